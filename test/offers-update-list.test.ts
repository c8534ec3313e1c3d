import { randomUUID } from 'node:crypto';
import { newWorkspace, raw, type Workspace } from './support/api.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { READ, db, getOffer, updateOffer, archiveOffer, listOffers, newProduct, newVariant, newOffer, listIds } from './support/offers-suite.js';

describe('offers: update', () => {
  let ws: Workspace;
  let product: { id: string };
  beforeAll(async () => {
    ws = await newWorkspace('Offer updates');
    product = await newProduct(ws, { name: 'Updatable' });
  });

  test('changes the sent fields only and keeps the rest', async () => {
    const offer = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD', name: 'Before', region: 'EU', limit: 5 });
    const { offer: updated } = await ok(updateOffer(ws, offer.id, { id: offer.id, name: 'After', price: 250, description: 'New text' }));
    expect(updated).toEqual({ ...offer, name: 'After', price: 250, description: 'New text' });
    expect((await ok(getOffer(ws, offer.id))).offer).toMatchObject({ name: 'After', price: 250, region: 'EU', limit: 5 });
  });

  test('null clears a nullable field and is refused for a required one', async () => {
    const variant = await newVariant(ws, product.id, 'Clearable');
    const offer = await newOffer(ws, { productId: product.id, variantId: variant.id, price: 100, currency: 'USD', limit: 5, name: 'Named' });
    const { offer: cleared } = await ok(updateOffer(ws, offer.id, { limit: null, variantId: null, name: null }));
    expect(cleared).toMatchObject({ limit: null, variantId: null, name: null, price: 100 });
    for (const field of ['price', 'currency', 'status', 'region', 'platform']) {
      const res = await failure(updateOffer(ws, offer.id, { [field]: null }));
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
    }
  });

  test('an id in the body must match the path', async () => {
    const offer = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD' });
    expect(await failure(updateOffer(ws, offer.id, { id: randomUUID(), price: 1 }))).toEqual({ status: 400, body: ERROR });
    expect((await failure(updateOffer(ws, offer.id, { id: 'nope' }))).status).toBe(400);
    expect((await ok(getOffer(ws, offer.id))).offer.price).toBe(100);
  });

  test('recurring rules hold on the merged offer', async () => {
    const oneTime = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD' });
    expect((await failure(updateOffer(ws, oneTime.id, { trialInterval: 'day' }))).status).toBe(400);
    expect((await failure(updateOffer(ws, oneTime.id, { recurringIntervalCount: 2 }))).status).toBe(400);
    const { offer: subscription } = await ok(updateOffer(ws, oneTime.id, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 2 }));
    expect(subscription).toMatchObject({ recurringInterval: 'month', recurringIntervalCount: 1, trialInterval: 'week', trialIntervalCount: 2 });
    expect((await failure(updateOffer(ws, oneTime.id, { recurringIntervalCount: 0 }))).status).toBe(400);
    expect((await ok(updateOffer(ws, oneTime.id, { recurringIntervalCount: 3 }))).offer).toMatchObject({ recurringIntervalCount: 3, trialIntervalCount: 2 });
    const { offer: noTrial } = await ok(updateOffer(ws, oneTime.id, { trialInterval: null }));
    expect(noTrial).toMatchObject({ recurringInterval: 'month', trialInterval: null, trialIntervalCount: null });
    const { offer: backToOneTime } = await ok(updateOffer(ws, oneTime.id, { recurringInterval: null }));
    expect(backToOneTime).toMatchObject({ recurringInterval: null, recurringIntervalCount: null, trialInterval: null, trialIntervalCount: null });
  });

  test('field rules of create apply to update', async () => {
    const offer = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD' });
    const other = await newProduct(ws, { name: 'Other product' });
    const foreignVariant = await newVariant(ws, other.id, 'Foreign variant');
    for (const body of [{ price: -1 }, { currency: 'ABC' }, { limit: -2 }, { variantId: foreignVariant.id }, { region: '' }, { gtin: '12' }]) {
      const res = await failure(updateOffer(ws, offer.id, body));
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await ok(getOffer(ws, offer.id))).offer).toEqual({ ...offer, product: expect.any(Object), variant: null, inventory: null });
  });

  test('an archived or unknown offer is 404', async () => {
    const offer = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD' });
    await ok(archiveOffer(ws, offer.id));
    expect((await failure(updateOffer(ws, offer.id, { price: 5 }))).status).toBe(404);
    expect((await failure(updateOffer(ws, randomUUID(), { price: 5 }))).status).toBe(404);
  });
});

describe('offers: archive', () => {
  let ws: Workspace;
  let product: { id: string };
  beforeAll(async () => {
    ws = await newWorkspace('Offer archive');
    product = await newProduct(ws, { name: 'Archivable' });
  });

  test('archive answers success, hides the offer and is listed only on request', async () => {
    const kept = await newOffer(ws, { productId: product.id, price: 100, currency: 'USD' });
    const gone = await newOffer(ws, { productId: product.id, price: 200, currency: 'USD' });
    const { data, response } = await archiveOffer(ws, gone.id);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { success: true } });
    expect(await failure(getOffer(ws, gone.id))).toEqual({ status: 404, body: ERROR });
    expect((await failure(archiveOffer(ws, gone.id))).status).toBe(404);
    expect(await listIds(ws)).toEqual([kept.id]);
    expect(await listIds(ws, { archived: true })).toEqual([gone.id]);
    expect(await listIds(ws, { withArchived: true })).toEqual([gone.id, kept.id]);
    expect(await listIds(ws, { archived: true, withArchived: true })).toEqual([gone.id]);
    expect(await listIds(ws, { archived: false })).toEqual([kept.id]);
  });

  test('archiving a product archives its offers', async () => {
    const doomed = await newProduct(ws, { name: 'Doomed' });
    const offer = await newOffer(ws, { productId: doomed.id, price: 100, currency: 'USD' });
    await ok(restClient(ws).PATCH('/v0/products/{productId}/archive', { params: { path: { productId: doomed.id } }, body: {} }));
    expect((await failure(getOffer(ws, offer.id))).status).toBe(404);
    expect(await listIds(ws, { archived: true, product: doomed.id })).toEqual([offer.id]);
  });
});

describe('offers: list filters and order', () => {
  let ws: Workspace;
  // o1..o4 in creation order: the default order is o4, o3, o2, o1.
  let o1: string, o2: string, o3: string, o4: string;
  let rpg: { id: string };
  let sports: { id: string };

  beforeAll(async () => {
    ws = await newWorkspace('Offer filters');
    rpg = await newProduct(ws, { name: 'Quest', tags: ['rpg', 'indie'] });
    sports = await newProduct(ws, { name: 'Match', tags: ['sports'] });
    o1 = (await newOffer(ws, { productId: rpg.id, price: 100, currency: 'USD', region: 'EU', platform: 'STEAM', limit: 10, name: 'Red Sword' })).id;
    o2 = (await newOffer(ws, { productId: rpg.id, price: 500, currency: 'USD', region: 'US', platform: 'XBOX', name: 'Blue Shield', description: 'A sturdy shield', recurringInterval: 'month' })).id;
    o3 = (await newOffer(ws, { productId: sports.id, price: 0, currency: 'USD', region: 'EU', platform: 'XBOX', limit: 2, name: 'Green Ball', recurringInterval: 'year', recurringIntervalCount: 2 })).id;
    o4 = (await newOffer(ws, { productId: sports.id, price: 2500, currency: 'USD', limit: 0, name: 'Gold Cup', recurringInterval: 'month', recurringIntervalCount: 3 })).id;
    // Availability is limit - soldItems: o1 6 (4 of its 10 sold through a checkout), o2 unlimited, o3 2, o4 0.
    const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [o1] } }));
    await placeOrder(checkoutElement.id, orderBody({ quantity: 4 }));
  });

  test('default order is newest first; orderDirection ASC reverses it', async () => {
    expect(await listIds(ws)).toEqual([o4, o3, o2, o1]);
    expect(await listIds(ws, { orderDirection: 'ASC' })).toEqual([o1, o2, o3, o4]);
    expect(await listIds(ws, { orderBy: 'createdAt', orderDirection: 'DESC' })).toEqual([o4, o3, o2, o1]);
  });

  test('termOrId searches name and description case-insensitively, or matches the id', async () => {
    expect(await listIds(ws, { termOrId: 'shield' })).toEqual([o2]);
    expect(await listIds(ws, { termOrId: 'STURDY' })).toEqual([o2]);
    expect(await listIds(ws, { termOrId: 'g' })).toEqual([o4, o3]);
    expect(await listIds(ws, { termOrId: o3 })).toEqual([o3]);
    expect(await listIds(ws, { termOrId: o3.toUpperCase() })).toEqual([o3]);
    expect(await listIds(ws, { termOrId: 'nothing like it' })).toEqual([]);
  });

  test('regions and platforms match any listed value', async () => {
    expect(await listIds(ws, { regions: ['EU'] })).toEqual([o3, o1]);
    expect(await listIds(ws, { regions: ['EU', 'US'] })).toEqual([o3, o2, o1]);
    expect(await listIds(ws, { regions: ['WORLDWIDE'] })).toEqual([o4]);
    expect(await listIds(ws, { platforms: ['XBOX'] })).toEqual([o3, o2]);
    expect(await listIds(ws, { platforms: ['STEAM', 'OTHER'] })).toEqual([o4, o1]);
  });

  test('minPrice and maxPrice are inclusive bounds', async () => {
    expect(await listIds(ws, { minPrice: 100 })).toEqual([o4, o2, o1]);
    expect(await listIds(ws, { maxPrice: 500 })).toEqual([o3, o2, o1]);
    expect(await listIds(ws, { minPrice: 100, maxPrice: 500 })).toEqual([o2, o1]);
    expect(await listIds(ws, { minPrice: 0, maxPrice: 0 })).toEqual([o3]);
  });

  test('availability is limit - soldItems; unlimited offers meet every minimum and no maximum', async () => {
    expect(await listIds(ws, { minAvailability: 2 })).toEqual([o3, o2, o1]);
    expect(await listIds(ws, { minAvailability: 3 })).toEqual([o2, o1]);
    expect(await listIds(ws, { minAvailability: 7 })).toEqual([o2]);
    expect(await listIds(ws, { maxAvailability: 2 })).toEqual([o4, o3]);
    expect(await listIds(ws, { maxAvailability: 0 })).toEqual([o4]);
    expect(await listIds(ws, { minAvailability: 1, maxAvailability: 6 })).toEqual([o3, o1]);
  });

  test('recurringInterval, recurringIntervalCount, product and tags', async () => {
    expect(await listIds(ws, { recurringInterval: 'month' })).toEqual([o4, o2]);
    expect(await listIds(ws, { recurringIntervalCount: 2 })).toEqual([o3]);
    expect(await listIds(ws, { recurringInterval: 'month', recurringIntervalCount: 3 })).toEqual([o4]);
    expect(await listIds(ws, { product: rpg.id })).toEqual([o2, o1]);
    expect(await listIds(ws, { product: randomUUID() })).toEqual([]);
    expect(await listIds(ws, { tags: ['indie'] })).toEqual([o2, o1]);
    expect(await listIds(ws, { tags: ['sports', 'rpg'] })).toEqual([o4, o3, o2, o1]);
    expect(await listIds(ws, { tags: ['none'] })).toEqual([]);
  });

  test('filters combine with AND', async () => {
    expect(await listIds(ws, { regions: ['EU'], product: sports.id })).toEqual([o3]);
    expect(await listIds(ws, { platforms: ['XBOX'], minPrice: 1, tags: ['rpg'] })).toEqual([o2]);
    expect(await listIds(ws, { recurringInterval: 'month', maxAvailability: 100, termOrId: 'cup' })).toEqual([o4]);
    expect(await listIds(ws, { regions: ['US'], minAvailability: 1, product: sports.id })).toEqual([]);
  });

  test('orderBy price, name and soldItems, with createdAt as the tie-break', async () => {
    expect(await listIds(ws, { orderBy: 'price', orderDirection: 'ASC' })).toEqual([o3, o1, o2, o4]);
    expect(await listIds(ws, { orderBy: 'price' })).toEqual([o4, o2, o1, o3]);
    expect(await listIds(ws, { orderBy: 'name', orderDirection: 'ASC' })).toEqual([o2, o4, o3, o1]);
    expect(await listIds(ws, { orderBy: 'soldItems' })).toEqual([o1, o4, o3, o2]);
    expect(await listIds(ws, { orderBy: 'soldItems', orderDirection: 'ASC' })).toEqual([o2, o3, o4, o1]);
  });

  test('pagination: skip, take clamps and count', async () => {
    expect(await listIds(ws, { skip: 1, take: 2 })).toEqual([o3, o2]);
    expect(await listIds(ws, { skip: 4 })).toEqual([]);
    expect(await listIds(ws, { take: 0 })).toEqual([o4]);
    expect(await listIds(ws, { take: -5 })).toEqual([o4]);
    const counted = await ok(listOffers(ws, { take: 1, returnCount: true }));
    expect(counted.count).toBe(4);
    expect((await ok(listOffers(ws, { take: 1 }))).count).toBeNull();
    expect((await ok(listOffers(ws, { regions: ['EU'], returnCount: true }))).count).toBe(2);
    expect(await failure(listOffers(ws, { skip: -1 }))).toEqual({ status: 400, body: ERROR });
  });

  test('malformed parameters are 400', async () => {
    for (const query of ['orderBy=popularity', 'minPrice=-1', 'maxPrice=abc', 'product=not-a-uuid', 'recurringInterval=fortnight', 'minAvailability=1.5', 'orderDirection=UP']) {
      const res = await raw('GET', '/v0/offers/list', { headers: { 'x-svc-public-key': ws.publicKey }, query });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });
});

describe('offers: page size cap', () => {
  test('take defaults to 20 and is clamped to 100', async () => {
    const ws = await newWorkspace('Offer paging');
    const product = await newProduct(ws, { name: 'Bulk' });
    for (let batch = 0; batch < 11; batch += 1) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => newOffer(ws, { productId: product.id, price: batch * 10 + i, currency: 'USD' })));
    }
    expect(await listIds(ws)).toHaveLength(20);
    expect(await listIds(ws, { take: 500 })).toHaveLength(100);
    expect(await listIds(ws, { take: 100, skip: 100 })).toHaveLength(10);
  });
});

describe('products orderBy=price follows the live offers', () => {
  test('lowest live offer price, through create, update and archive', async () => {
    const ws = await newWorkspace('Price order');
    const [x, y, z] = [await newProduct(ws, { name: 'X' }), await newProduct(ws, { name: 'Y' }), await newProduct(ws, { name: 'Z' })];
    const byPrice = async (orderDirection: 'ASC' | 'DESC' = 'ASC') =>
      (await ok(restClient(ws, READ).GET('/v0/products/list', { params: { query: { orderBy: 'price', orderDirection } } }))).products.map((p: { name: string }) => p.name);
    const x300 = await newOffer(ws, { productId: x.id, price: 300, currency: 'USD' });
    const x900 = await newOffer(ws, { productId: x.id, price: 900, currency: 'USD' });
    const y500 = await newOffer(ws, { productId: y.id, price: 500, currency: 'USD' });
    // Products without offers come last either way.
    expect(await byPrice()).toEqual(['X', 'Y', 'Z']);
    expect(await byPrice('DESC')).toEqual(['Y', 'X', 'Z']);
    await ok(archiveOffer(ws, x300.id));
    expect(await byPrice()).toEqual(['Y', 'X', 'Z']);
    await ok(updateOffer(ws, y500.id, { price: 1000 }));
    expect(await byPrice()).toEqual(['X', 'Y', 'Z']);
    await newOffer(ws, { productId: z.id, price: 50, currency: 'USD' });
    expect(await byPrice()).toEqual(['Z', 'X', 'Y']);
    await ok(archiveOffer(ws, x900.id));
    expect(await byPrice()).toEqual(['Z', 'Y', 'X']);
    const stored = await db.query('SELECT name, "lowestPrice" FROM "Product" WHERE "workspaceId" = $1 ORDER BY name', [ws.workspaceId]);
    expect(stored.rows).toEqual([
      { name: 'X', lowestPrice: null },
      { name: 'Y', lowestPrice: 1000 },
      { name: 'Z', lowestPrice: 50 },
    ]);
  });

  test('concurrent offer writes on one product leave the true minimum', async () => {
    const ws = await newWorkspace('Price race');
    const product = await newProduct(ws, { name: 'Raced' });
    const prices = [700, 300, 900, 100, 500, 800, 200, 600];
    await Promise.all(prices.map((price) => newOffer(ws, { productId: product.id, price, currency: 'USD' })));
    const stored = await db.query('SELECT "lowestPrice" FROM "Product" WHERE id = $1', [product.id]);
    expect(stored.rows[0].lowestPrice).toBe(100);
  });
});
