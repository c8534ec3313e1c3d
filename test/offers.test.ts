import { randomUUID } from 'node:crypto';
import { call, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { READ, createOffer, getOffer, updateOffer, archiveOffer, listOffers, newProduct, newVariant, newOffer, listIds, storedOffers } from './support/offers-suite.js';

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
