import { createHash, randomUUID } from 'node:crypto';
import { newWorkspace, raw, keyHeaders, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { CARD_DECLINED, card, orderBody, payCheckout, tally } from './support/checkout.js';
import { refundUnits } from './support/refunds.js';
import { failure, ok, useSuiteDatabase } from './support/responses.js';
import { eventsAbout, salesDb } from './support/sales.js';

// License keys through the real HTTP server, PostgreSQL and the payment workflow: the merchant's
// stock (upload, list, revoke), the offer's inventory, one key per unit taken by the checkout's
// transaction (never twice, even under 50 parallel buyers), an unpaid payment giving its keys
// back, and the key reaching the buyer in the order details and the order's webhook payloads,
// revoked once its unit is refunded (through the refund API).

const SLOW = 240_000;
const READ: KeyChoice = { write: false };
const db = useSuiteDatabase();
const LIVE: KeyChoice = { mode: 'live' };

/** A key-based product (SoftwareKey unless said) with a one-time offer and a checkout element selling it. */
async function keyedCheckout(ws: Workspace, options: { type?: 'SoftwareKey' | 'GiftCard' | 'DigitalDownload'; price?: number; variant?: boolean; key?: KeyChoice } = {}) {
  const client = restClient(ws, options.key);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `Keys ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type: options.type ?? 'SoftwareKey' } }));
  const variant = options.variant ? (await ok(client.POST('/v0/products/{productId}/variants/add', { params: { path: { productId: product.id } }, body: { name: 'Pro' } }))).variant : null;
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: options.price ?? 1000, currency: 'USD', ...(variant ? { variantId: variant.id } : {}) } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return { product, offer, variant, element: checkoutElement };
}

const upload = (ws: Workspace, productId: string, keys: string[], variantId?: string, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/{productId}/keys', { params: { path: { productId } }, body: { keys, ...(variantId ? { variantId } : {}) } });

const listKeys = (ws: Workspace, productId: string, query: Record<string, unknown> = {}, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/products/{productId}/keys', { params: { path: { productId }, query: query as never } });

const inventoryOf = async (ws: Workspace, offerId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/offers/{offerId}', { params: { path: { offerId } } }))).offer.inventory;

const orderDetails = async (ws: Workspace, orderId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, key).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order;

const keyValues = (n: number, prefix = randomUUID().slice(0, 8)) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}-ABCDE`);

describe('license keys: the merchant stock', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Keys: stock');
  });

  test('upload: created and skipped (duplicates in the batch and already stocked, after trimming); offer inventory counts them', async () => {
    const { product, offer } = await keyedCheckout(ws);
    const first = await ok(upload(ws, product.id, ['AAAA-1', 'AAAA-2', ' AAAA-2 ', 'AAAA-3']));
    expect(first.upload).toEqual({ object: 'license_key_upload', productId: product.id, variantId: null, received: 4, created: 3, skipped: 1 });
    const again = await ok(upload(ws, product.id, ['AAAA-3', 'AAAA-4']));
    expect(again.upload).toMatchObject({ received: 2, created: 1, skipped: 1 });
    expect(await inventoryOf(ws, offer.id)).toEqual({ total: 4, available: 4, sold: 0, revoked: 0, status: 'in_stock' });
  });

  test('10,000 keys in one request; 10,001 is 400', async () => {
    const { product, offer } = await keyedCheckout(ws, { type: 'GiftCard' });
    const answer = await ok(upload(ws, product.id, keyValues(10_000)));
    expect(answer.upload).toMatchObject({ received: 10_000, created: 10_000, skipped: 0 });
    expect(await inventoryOf(ws, offer.id)).toMatchObject({ total: 10_000, available: 10_000, status: 'in_stock' });
    const tooMany = await failure(upload(ws, product.id, keyValues(10_001)));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/at most 10000/);
  }, SLOW);

  test('400: no keys, an empty or too long key, a control character, another product type, a variant of another product; 404: unknown product; 401 without the secret key', async () => {
    const { product } = await keyedCheckout(ws);
    const other = await keyedCheckout(ws, { variant: true });
    const download = await keyedCheckout(ws, { type: 'DigitalDownload' });
    for (const keys of [[], ['  '], ['x'.repeat(256)], ['A\u0001B']]) expect((await failure(upload(ws, product.id, keys))).status).toBe(400);
    expect((await failure(upload(ws, download.product.id, ['K-1']))).status).toBe(400);
    expect((await failure(upload(ws, product.id, ['K-1'], other.variant!.id))).status).toBe(400);
    expect((await failure(upload(ws, randomUUID(), ['K-1']))).status).toBe(404);
    expect((await failure(upload(ws, product.id, ['K-1'], undefined, READ))).status).toBe(401);
    expect((await ok(listKeys(ws, product.id, { returnCount: true }))).count).toBe(0);
  });

  test('list: values only with the secret key, paging, status filter; a DigitalDownload product is 400', async () => {
    const { product } = await keyedCheckout(ws);
    const values = keyValues(5);
    await ok(upload(ws, product.id, values));
    const withSecret = await ok(listKeys(ws, product.id, { returnCount: true, orderDirection: 'ASC' }));
    expect(withSecret.count).toBe(5);
    expect(withSecret.licenseKeys.map((k) => k.key)).toEqual(values);
    expect(withSecret.licenseKeys[0]).toMatchObject({ object: 'license_key', productId: product.id, variantId: null, status: 'available', orderItemId: null, soldAt: null });
    const publicOnly = await ok(listKeys(ws, product.id, {}, READ));
    expect(publicOnly.licenseKeys.map((k) => k.key)).toEqual([null, null, null, null, null]);
    const page = await ok(listKeys(ws, product.id, { skip: 3, take: 2, orderDirection: 'ASC' }));
    expect(page.licenseKeys.map((k) => k.key)).toEqual(values.slice(3));
    expect((await ok(listKeys(ws, product.id, { status: 'sold', returnCount: true }))).count).toBe(0);
    expect((await failure(listKeys(ws, product.id, { skip: -1 }))).status).toBe(400);
    const download = await keyedCheckout(ws, { type: 'DigitalDownload' });
    expect((await failure(listKeys(ws, download.product.id))).status).toBe(400);
  });

  test('stored encrypted: no key value, nor its plain SHA-256, is in the table', async () => {
    const { product } = await keyedCheckout(ws);
    const value = `SECRET-${randomUUID()}`;
    await ok(upload(ws, product.id, [value]));
    const { rows } = await db.query('SELECT * FROM "LicenseKey" WHERE "productId" = $1', [product.id]);
    expect(rows).toHaveLength(1);
    const dump = JSON.stringify(rows, (_key, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('latin1') : v));
    expect(dump).not.toContain(value);
    expect(dump).not.toContain(Buffer.from(value).toString('base64'));
    const digest = createHash('sha256').update(value).digest();
    expect(Buffer.from(rows[0].fingerprint).equals(digest)).toBe(false);
    expect(dump).not.toContain(digest.toString('hex'));
    expect(Buffer.from(rows[0].sealed).includes(Buffer.from(value))).toBe(false);
  });

  test('revoke: an unsold key leaves stock (twice is the same); unknown is 404; the inventory stops counting it', async () => {
    const { product, offer } = await keyedCheckout(ws);
    await ok(upload(ws, product.id, ['R-1', 'R-2']));
    const [key] = (await ok(listKeys(ws, product.id))).licenseKeys;
    const revoke = (keyId: string) => restClient(ws).PATCH('/v0/products/{productId}/keys/{keyId}/revoke', { params: { path: { productId: product.id, keyId } } });
    const revoked = (await ok(revoke(key!.id))).licenseKey;
    expect(revoked).toMatchObject({ id: key!.id, status: 'revoked', key: key!.key });
    expect(revoked.revokedAt).toEqual(expect.any(Number));
    expect((await ok(revoke(key!.id))).licenseKey.status).toBe('revoked');
    expect((await failure(revoke(randomUUID()))).status).toBe(404);
    expect(await inventoryOf(ws, offer.id)).toEqual({ total: 1, available: 1, sold: 0, revoked: 1, status: 'in_stock' });
  });

  test('scoped to workspace and mode: another workspace and the test mode see 404 and none of the stock', async () => {
    const { product } = await keyedCheckout(ws);
    await ok(upload(ws, product.id, ['S-1']));
    const stranger = await newWorkspace('Keys: stranger', ['testMode=true']);
    expect((await failure(listKeys(stranger, product.id))).status).toBe(404);
    expect((await failure(upload(stranger, product.id, ['S-2']))).status).toBe(404);
    const testMode = await newWorkspace('Keys: modes', ['testMode=true']);
    const live = await keyedCheckout(testMode);
    await ok(upload(testMode, live.product.id, ['M-1']));
    expect((await failure(listKeys(testMode, live.product.id, {}, { mode: 'test' }))).status).toBe(404);
  });

  test('the offer of a variant counts only its variant\'s keys; other product types have no inventory', async () => {
    const { product, offer, variant } = await keyedCheckout(ws, { variant: true });
    await ok(upload(ws, product.id, ['V-1', 'V-2'], variant!.id));
    await ok(upload(ws, product.id, ['P-1']));
    expect(await inventoryOf(ws, offer.id)).toMatchObject({ total: 2, available: 2 });
    const download = await keyedCheckout(ws, { type: 'DigitalDownload' });
    expect(await inventoryOf(ws, download.offer.id)).toBeNull();
  });
});

describe('license keys: the sale', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Keys: sale');
  });

  test('a paid order gets one key per unit: in the order details (values with the secret key only), in payment_success items, the inventory counts them sold', async () => {
    const { product, offer, element } = await keyedCheckout(ws);
    const values = keyValues(3);
    await ok(upload(ws, product.id, values));
    const paid = await payCheckout(element.id, orderBody({ quantity: 2 }));
    expect(paid.status).toBe(200);
    expect(paid.body.data.order.status).toBe('PAID');
    const orderId: string = paid.body.data.order.id;

    const details = await orderDetails(ws, orderId);
    const keys = details.items[0]!.licenseKeys;
    expect(keys.map((k) => [k.unit, k.status])).toEqual([[0, 'active'], [1, 'active']]);
    expect(new Set(keys.map((k) => k.key)).size).toBe(2);
    for (const k of keys) expect(values).toContain(k.key);
    const publicView = await orderDetails(ws, orderId, READ);
    expect(publicView.items[0]!.licenseKeys.map((k) => [k.id, k.key, k.status])).toEqual(keys.map((k) => [k.id, null, 'active']));

    const [event] = await eventsAbout(ws, 'payment_success', 'order', orderId);
    const itemsSent = (event!.payload as { items: { id: string; licenseKeys: { key: string; status: string }[] }[] }).items;
    expect(itemsSent[0]!.licenseKeys.map((k) => [k.key, k.status])).toEqual(keys.map((k) => [k.key, 'active']));
    const [created] = await eventsAbout(ws, 'order_created', 'order', orderId);
    expect((created!.payload as { items: { licenseKeys: unknown[] }[] }).items[0]!.licenseKeys).toEqual([]);

    expect(await inventoryOf(ws, offer.id)).toEqual({ total: 3, available: 1, sold: 2, revoked: 0, status: 'in_stock' });
    const sold = await ok(listKeys(ws, product.id, { status: 'sold' }));
    expect(sold.licenseKeys.map((k) => k.orderItemId)).toEqual([details.items[0]!.id, details.items[0]!.id]);
    // A sold key cannot be revoked by the merchant.
    const revoke = await failure(restClient(ws).PATCH('/v0/products/{productId}/keys/{keyId}/revoke', { params: { path: { productId: product.id, keyId: keys[0]!.id } } }));
    expect(revoke.status).toBe(400);
  }, SLOW);

  test('keys run out: a clear 400 before any charge, nothing written; out_of_stock', async () => {
    const { product, offer, element } = await keyedCheckout(ws);
    await ok(upload(ws, product.id, ['ONLY-1']));
    const before = await tally([ws.workspaceId]);
    const tooMany = await payCheckout(element.id, orderBody({ quantity: 2 }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toBe(`offer ${offer.id} has 1 license keys left, fewer than quantity 2`);
    expect(await tally([ws.workspaceId])).toEqual(before);
    expect((await payCheckout(element.id, orderBody())).status).toBe(200);
    const none = await payCheckout(element.id, orderBody());
    expect(none.status).toBe(400);
    expect(none.body.error.message).toBe(`offer ${offer.id} is out of license keys`);
    expect(await inventoryOf(ws, offer.id)).toEqual({ total: 1, available: 0, sold: 1, revoked: 0, status: 'out_of_stock' });
  }, SLOW);

  test('a declined card gives its keys back', async () => {
    const { product, offer, element } = await keyedCheckout(ws);
    await ok(upload(ws, product.id, ['D-1']));
    const declined = await payCheckout(element.id, orderBody({ card: card(CARD_DECLINED) }));
    expect(declined.status).toBe(402);
    expect(await inventoryOf(ws, offer.id)).toMatchObject({ available: 1, sold: 0, status: 'in_stock' });
    const after = await payCheckout(element.id, orderBody());
    expect(after.status).toBe(200);
    expect((await orderDetails(ws, after.body.data.order.id)).items[0]!.licenseKeys.map((k) => k.key)).toEqual(['D-1']);
  }, SLOW);

  test('50 parallel checkouts on 30 keys: 30 orders with 30 distinct keys, 20 answers 400, nothing charged for them', async () => {
    const { product, offer, element } = await keyedCheckout(ws);
    const values = keyValues(30);
    await ok(upload(ws, product.id, values));
    const answers = await Promise.all(Array.from({ length: 50 }, () => payCheckout(element.id, orderBody())));
    const counts = answers.reduce<Record<number, number>>((all, a) => ({ ...all, [a.status]: (all[a.status] ?? 0) + 1 }), {});
    expect({ counts, messages: [...new Set(answers.filter((a) => a.status !== 200).map((a) => a.body?.error?.message))] }).toEqual({
      counts: { 200: 30, 400: 20 },
      messages: [`offer ${offer.id} is out of license keys`],
    });
    const orderIds = answers.filter((a) => a.status === 200).map((a) => a.body.data.order.id as string);
    const delivered = (await Promise.all(orderIds.map((id) => orderDetails(ws, id)))).flatMap((o) => o.items[0]!.licenseKeys.map((k) => k.key));
    expect(delivered.sort()).toEqual([...values].sort());
    expect(await inventoryOf(ws, offer.id)).toEqual({ total: 30, available: 0, sold: 30, revoked: 0, status: 'out_of_stock' });
    const charges = await salesDb().charge.count({ where: { payment: { workspaceId: ws.workspaceId, order: { checkoutId: element.id } } } });
    expect(charges).toBe(30);
  }, SLOW);

  test('refunds: a refunded unit shows its key revoked, the others stay active; an order refunded in full revokes them all', async () => {
    const { product, element } = await keyedCheckout(ws);
    await ok(upload(ws, product.id, keyValues(2)));
    const paid = await payCheckout(element.id, orderBody({ quantity: 2 }));
    const orderId: string = paid.body.data.order.id;
    const itemId = (await orderDetails(ws, orderId)).items[0]!.id;
    expect((await refundUnits(ws, orderId, [{ id: itemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    expect((await orderDetails(ws, orderId)).items[0]!.licenseKeys.map((k) => [k.unit, k.status])).toEqual([[0, 'active'], [1, 'revoked']]);
    expect((await refundUnits(ws, orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
    expect((await orderDetails(ws, orderId)).items[0]!.licenseKeys.map((k) => k.status)).toEqual(['revoked', 'revoked']);
  }, SLOW);

  test('a key-less product sells as before, its items carry no keys', async () => {
    const { element } = await keyedCheckout(ws, { type: 'DigitalDownload' });
    const paid = await payCheckout(element.id, orderBody());
    expect(paid.status).toBe(200);
    expect((await orderDetails(ws, paid.body.data.order.id)).items[0]!.licenseKeys).toEqual([]);
  }, SLOW);
});

test('raw: the upload route refuses a body that is not an object of keys (400), and answers in the envelope', async () => {
  const ws = await newWorkspace('Keys: raw');
  const { product } = await keyedCheckout(ws);
  for (const body of [{}, { keys: [1] }, { keys: null }]) {
    expect((await raw('POST', `/v0/products/${product.id}/keys`, { headers: keyHeaders(ws), body: JSON.stringify(body) })).status).toBe(400);
  }
  const wrongId = await raw('POST', '/v0/products/not-a-uuid/keys', { headers: keyHeaders(ws), body: JSON.stringify({ keys: ['K'] }) });
  expect(wrongId.status).toBe(400);
});
