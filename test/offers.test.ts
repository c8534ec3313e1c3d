import { randomUUID } from 'node:crypto';
import { call, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok, useSuiteDatabase } from './support/responses.js';

const READ: KeyChoice = { write: false };

interface OfferBody {
  productId: string;
  price: number;
  currency: string;
  [field: string]: unknown;
}

/** Direct database access: license keys and sold items have no endpoint of their own yet. */
const db = useSuiteDatabase();


const createOffer = (ws: Workspace, body: OfferBody, key: KeyChoice = {}) => restClient(ws, key).POST('/v0/offers/create', { body });
const getOffer = (ws: Workspace, offerId: string, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/offers/{offerId}', { params: { path: { offerId } } });
const updateOffer = (ws: Workspace, offerId: string, body: Record<string, unknown>, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/offers/{offerId}/update', { params: { path: { offerId } }, body });
const archiveOffer = (ws: Workspace, offerId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId } }, body: {} });
const listOffers = (ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/offers/list', { params: { query } });

async function newProduct(ws: Workspace, body: { name: string; type?: 'DigitalDownload' | 'SoftwareKey' | 'GiftCard'; tags?: string[] }, key: KeyChoice = {}) {
  const data = await ok(restClient(ws, key).POST('/v0/products/create', { body: { projectId: ws.projectId, type: 'DigitalDownload', ...body } }));
  return data.product as { id: string; name: string; slug: string };
}

async function newVariant(ws: Workspace, productId: string, name: string) {
  const data = await ok(restClient(ws).POST('/v0/products/{productId}/variants/add', { params: { path: { productId } }, body: { name } }));
  return data.variant as { id: string };
}

async function newOffer(ws: Workspace, body: OfferBody, key: KeyChoice = {}) {
  return (await ok(createOffer(ws, body, key))).offer;
}

async function listIds(ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) {
  const data = await ok(listOffers(ws, query, key));
  return data.offers.map((o: { id: string }) => o.id);
}

const storedOffers = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Offer" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

describe('offers: create and read', () => {
  let ws: Workspace;
  let product: { id: string; name: string; slug: string };
  beforeAll(async () => {
    ws = await newWorkspace('Offers');
    product = await newProduct(ws, { name: 'Offer Book' });
  });

  test('a one-time offer has every field of the spec, read back by GET', async () => {
    const { data, response } = await createOffer(ws, { productId: product.id, price: 1999, currency: 'USD', name: 'Standard' });
    expect(response.status).toBe(200);
    expect(data?.status).toBe('success');
    const offer = data!.data.offer;
    expect(offer).toEqual({
      object: 'offer',
      id: expect.any(String),
      internalId: null,
      price: 1999,
      originalPrice: null,
      recurringInterval: null,
      recurringIntervalCount: null,
      trialInterval: null,
      trialIntervalCount: null,
      currency: 'USD',
      limit: null,
      soldItems: 0,
      status: 'ACTIVE',
      name: 'Standard',
      description: null,
      region: 'WORLDWIDE',
      platform: 'OTHER',
      gtin: null,
      warningMessage: null,
      productId: product.id,
      variantId: null,
      currencyDecimals: 2,
      createdAt: expect.any(Number),
    });
    expect(Math.abs(offer.createdAt - Date.now() / 1000)).toBeLessThan(120);
    const read = await ok(getOffer(ws, offer.id));
    expect(read.offer).toMatchObject(offer);
  });

  test('every writable field is stored as sent', async () => {
    const variant = await newVariant(ws, product.id, 'Deluxe');
    const body = {
      productId: product.id,
      variantId: variant.id,
      price: 4500,
      originalPrice: 6000,
      currency: 'EUR',
      limit: 0,
      status: 'DRAFT',
      name: 'Deluxe edition',
      description: 'With extras',
      internalId: 'sku-42',
      region: 'EU',
      platform: 'STEAM',
      gtin: '4006381333931',
      warningMessage: 'Region locked',
    };
    const offer = await newOffer(ws, body);
    const { productId: _p, ...fields } = body;
    expect(offer).toMatchObject({ ...fields, productId: product.id, soldItems: 0 });
    expect((await ok(getOffer(ws, offer.id))).offer).toMatchObject(fields);
  });

  test('subscription offers default their counts to 1 and keep explicit ones', async () => {
    const monthly = await newOffer(ws, { productId: product.id, price: 999, currency: 'USD', recurringInterval: 'month' });
    expect(monthly).toMatchObject({ recurringInterval: 'month', recurringIntervalCount: 1, trialInterval: null, trialIntervalCount: null });
    const trial = await newOffer(ws, { productId: product.id, price: 999, currency: 'USD', recurringInterval: 'year', trialInterval: 'week' });
    expect(trial).toMatchObject({ recurringInterval: 'year', recurringIntervalCount: 1, trialInterval: 'week', trialIntervalCount: 1 });
    const explicit = await newOffer(ws, {
      productId: product.id,
      price: 999,
      currency: 'USD',
      recurringInterval: 'week',
      recurringIntervalCount: 2,
      trialInterval: 'day',
      trialIntervalCount: 14,
    });
    expect(explicit).toMatchObject({ recurringInterval: 'week', recurringIntervalCount: 2, trialInterval: 'day', trialIntervalCount: 14 });
  });

  test('free offers, limit 0 and currency decimals', async () => {
    expect(await newOffer(ws, { productId: product.id, price: 0, currency: 'USD', limit: 0 })).toMatchObject({ price: 0, limit: 0 });
    expect(await newOffer(ws, { productId: product.id, price: 500, currency: 'JPY' })).toMatchObject({ currency: 'JPY', currencyDecimals: 0 });
    expect(await newOffer(ws, { productId: product.id, price: 500, currency: 'KWD' })).toMatchObject({ currency: 'KWD', currencyDecimals: 3 });
    expect(await newOffer(ws, { productId: product.id, price: 2147483647, currency: 'USD' })).toMatchObject({ price: 2147483647 });
  });

  test('each validation rule answers 400 and writes nothing', async () => {
    const other = await newWorkspace('Offers elsewhere');
    const foreignProduct = await newProduct(other, { name: 'Foreign' });
    const archivedProduct = await newProduct(ws, { name: 'Gone' });
    await ok(restClient(ws).PATCH('/v0/products/{productId}/archive', { params: { path: { productId: archivedProduct.id } }, body: {} }));
    const sibling = await newProduct(ws, { name: 'Sibling' });
    const siblingVariant = await newVariant(ws, sibling.id, 'Sibling variant');
    const base = { productId: product.id, price: 100, currency: 'USD' };
    const invalid: Record<string, unknown>[] = [
      { ...base, trialInterval: 'week' },
      { ...base, trialIntervalCount: 3 },
      { ...base, recurringIntervalCount: 2 },
      { ...base, recurringInterval: 'month', trialIntervalCount: 3 },
      { ...base, recurringInterval: 'month', recurringIntervalCount: 0 },
      { ...base, recurringInterval: 'month', trialInterval: 'day', trialIntervalCount: 0 },
      { ...base, recurringInterval: 'fortnight' },
      { ...base, price: -1 },
      { ...base, price: 2147483648 },
      { ...base, price: 1.5 },
      { ...base, price: '100' },
      { ...base, originalPrice: -5 },
      { ...base, limit: -1 },
      { ...base, currency: 'XYZ' },
      { ...base, currency: 'usd' },
      { ...base, region: '' },
      { ...base, region: 'R'.repeat(65) },
      { ...base, platform: '   ' },
      { ...base, status: 'ARCHIVED' },
      { ...base, gtin: 'abc123' },
      { ...base, productId: foreignProduct.id },
      { ...base, productId: randomUUID() },
      { ...base, productId: 'not-a-uuid' },
      { ...base, productId: archivedProduct.id },
      { ...base, variantId: siblingVariant.id },
      { ...base, variantId: randomUUID() },
      { productId: product.id, price: 100 },
      { productId: product.id, currency: 'USD' },
      { price: 100, currency: 'USD' },
    ];
    const before = await storedOffers(ws);
    for (const body of invalid) {
      const res = await call('POST', '/v0/offers/create', ws, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual(ERROR);
    }
    expect(await storedOffers(ws)).toBe(before);
  });

  test('the variant of an offer must belong to its product', async () => {
    const variant = await newVariant(ws, product.id, 'Own variant');
    expect(await newOffer(ws, { productId: product.id, price: 100, currency: 'USD', variantId: variant.id })).toMatchObject({ variantId: variant.id });
  });

  test('a path id that is not a UUID is 400; an unknown one is 404', async () => {
    expect(await failure(getOffer(ws, 'nope'))).toEqual({ status: 400, body: ERROR });
    expect(await failure(getOffer(ws, randomUUID()))).toEqual({ status: 404, body: ERROR });
  });
});

describe('offers: authentication and tenancy', () => {
  let ws: Workspace;
  let other: Workspace;
  let offerId: string;
  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Offers auth'), newWorkspace('Offers other')]);
    const product = await newProduct(ws, { name: 'Guarded' });
    offerId = (await newOffer(ws, { productId: product.id, price: 300, currency: 'USD', name: 'Guarded offer' })).id;
  });

  test('no keys is 401 on every endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/v0/offers/list'],
      ['GET', `/v0/offers/${offerId}`],
      ['POST', '/v0/offers/create'],
      ['PATCH', `/v0/offers/${offerId}/update`],
      ['PATCH', `/v0/offers/${offerId}/archive`],
    ] as const) {
      const res = await raw(method, path, { body: method === 'GET' ? undefined : '{}' });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.body).toEqual(ERROR);
    }
  });

  test('writes with only the public key are 401 and change nothing; reads work with it', async () => {
    const product = await newProduct(ws, { name: 'Public only' });
    expect((await failure(createOffer(ws, { productId: product.id, price: 1, currency: 'USD' }, READ))).status).toBe(401);
    expect((await failure(updateOffer(ws, offerId, { price: 1 }, READ))).status).toBe(401);
    expect((await failure(archiveOffer(ws, offerId, READ))).status).toBe(401);
    expect((await ok(getOffer(ws, offerId, READ))).offer).toMatchObject({ price: 300 });
    expect(await listIds(ws, { product: product.id }, READ)).toEqual([]);
  });

  test("another workspace's offer is 404 for read, update and archive", async () => {
    expect((await failure(getOffer(other, offerId))).status).toBe(404);
    expect((await failure(updateOffer(other, offerId, { price: 1 }))).status).toBe(404);
    expect((await failure(archiveOffer(other, offerId))).status).toBe(404);
    expect(await listIds(other, { termOrId: offerId })).toEqual([]);
    expect((await ok(getOffer(ws, offerId))).offer).toMatchObject({ price: 300 });
  });

  test('test-mode data is invisible to live keys and the other way round', async () => {
    await setWorkspace(ws.workspaceId, 'testMode=true');
    const TEST = { mode: 'test' } as const;
    const testProduct = await newProduct(ws, { name: 'Sandbox product' }, TEST);
    const testOffer = await newOffer(ws, { productId: testProduct.id, price: 700, currency: 'USD' }, TEST);
    expect((await failure(getOffer(ws, testOffer.id))).status).toBe(404);
    expect(await listIds(ws, { termOrId: testOffer.id })).toEqual([]);
    expect(await listIds(ws, {}, { mode: 'test', write: false })).toEqual([testOffer.id]);
    expect((await ok(getOffer(ws, testOffer.id, { mode: 'test', write: false }))).offer.id).toBe(testOffer.id);
    expect((await failure(getOffer(ws, offerId, { mode: 'test', write: false }))).status).toBe(404);
    // A live key cannot attach an offer to a test-mode product, nor the other way round.
    expect((await failure(createOffer(ws, { productId: testProduct.id, price: 1, currency: 'USD' }))).status).toBe(400);
    const liveProduct = await newProduct(ws, { name: 'Live product' });
    expect((await failure(createOffer(ws, { productId: liveProduct.id, price: 1, currency: 'USD' }, TEST))).status).toBe(400);
  });
});

describe('offers: details', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Offer details');
  });

  /** Uploads keys to the product's stock and sells `sold` of them through a checkout of `offerId`, all through the API. */
  async function addKeys(productId: string, offerId: string, counts: Record<'available' | 'sold', number>) {
    const keys = Array.from({ length: counts.available + counts.sold }, () => randomUUID());
    await ok(restClient(ws).POST('/v0/products/{productId}/keys', { params: { path: { productId } }, body: { keys } }));
    const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [offerId] } }));
    await placeOrder(checkoutElement.id, orderBody({ quantity: counts.sold }));
  }

  test('details carry the product reference, the variant and no inventory for other product types', async () => {
    const product = await newProduct(ws, { name: 'Detailed Ebook' });
    const variant = await newVariant(ws, product.id, 'Hardcover');
    const offer = await newOffer(ws, { productId: product.id, variantId: variant.id, price: 1500, currency: 'GBP' });
    const { offer: details } = await ok(getOffer(ws, offer.id));
    expect(details).toMatchObject(offer);
    expect(details.product).toEqual({ object: 'product', id: product.id, name: 'Detailed Ebook', type: 'DigitalDownload', slug: product.slug });
    expect(details.variant).toMatchObject({ object: 'variant', id: variant.id, name: 'Hardcover' });
    expect(details.inventory).toBeNull();
    const plain = await newOffer(ws, { productId: product.id, price: 100, currency: 'GBP' });
    expect((await ok(getOffer(ws, plain.id))).offer).toMatchObject({ variant: null, inventory: null });
  });

  test('key-based products report their key stock', async () => {
    const keys = await newProduct(ws, { name: 'Game key', type: 'SoftwareKey' });
    const stocked = await newOffer(ws, { productId: keys.id, price: 2000, currency: 'USD' });
    await addKeys(keys.id, stocked.id, { available: 3, sold: 2 });
    expect((await ok(getOffer(ws, stocked.id))).offer.inventory).toEqual({ total: 5, available: 3, sold: 2, revoked: 0, status: 'in_stock' });
    const cards = await newProduct(ws, { name: 'Gift card', type: 'GiftCard' });
    const empty = await newOffer(ws, { productId: cards.id, price: 5000, currency: 'USD' });
    expect((await ok(getOffer(ws, empty.id))).offer.inventory).toEqual({ total: 0, available: 0, sold: 0, revoked: 0, status: 'out_of_stock' });
    await addKeys(cards.id, empty.id, { available: 0, sold: 1 });
    expect((await ok(getOffer(ws, empty.id))).offer.inventory).toEqual({ total: 1, available: 0, sold: 1, revoked: 0, status: 'out_of_stock' });
  });

  test('the list shows plain offers, without the details fields', async () => {
    const [listed] = (await ok(listOffers(ws, { take: 1 }))).offers;
    expect(listed).not.toHaveProperty('product');
    expect(listed).not.toHaveProperty('inventory');
  });
});

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
