import { randomUUID } from 'node:crypto';
import { baseUrl, keyHeaders, newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { CARD_DECLINED, card, orderBody, payCheckout, placeOrder, type PlacedOrder } from './support/checkout.js';
import { refundUnits } from './support/refunds.js';
import { failure, ok } from './support/responses.js';

// The buyer's inventory (GET /v0/users/{userId}/inventory) after real sales through the hosted
// checkout: what each item is (order, product, offer, units, refunded units), its license keys
// (values only with the secret key), the subscription's status, paging exactly as the contract's
// page pagination; declined and cancelled orders, orders refunded in full and items whose every
// unit is refunded own nothing (refunds through the refund API).

const SLOW = 240_000;
const READ: KeyChoice = { write: false };
const LIVE: KeyChoice = { mode: 'live' };

async function element(ws: Workspace, type: 'SoftwareKey' | 'DigitalDownload', offer: Record<string, unknown> = {}) {
  const client = restClient(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `Owned ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type } }));
  const created = (await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 700, currency: 'USD', name: 'Standard', ...offer } }))).offer;
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [created.id] } }));
  return { product, offer: created, elementId: checkoutElement.id };
}

const inventory = (ws: Workspace, userId: string, query: { page?: number; limit?: number } = {}, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/users/{userId}/inventory', { params: { path: { userId }, query } });

describe('inventory after sales', () => {
  let ws: Workspace;
  const email = `owner-${randomUUID()}@example.com`;
  let userId: string;
  let keyed: Awaited<ReturnType<typeof element>>;
  let keyedOrder: PlacedOrder['order'];

  beforeAll(async () => {
    ws = await newWorkspace('Inventory');
    keyed = await element(ws, 'SoftwareKey');
    await ok(restClient(ws).POST('/v0/products/{productId}/keys', { params: { path: { productId: keyed.product.id } }, body: { keys: ['OWN-1', 'OWN-2', 'OWN-3'] } }));
    keyedOrder = (await placeOrder(keyed.elementId, orderBody({ email, quantity: 2 }))).order;
    userId = keyedOrder.userId;
  }, SLOW);

  test('a keyed item: order, product, offer, units and its keys; values with the secret key only', async () => {
    const { inventory: items, count, pages } = await ok(inventory(ws, userId));
    expect([count, pages]).toEqual([1, 1]);
    expect(items[0]).toMatchObject({
      object: 'inventoryItem',
      orderId: keyedOrder.id,
      orderNumber: keyedOrder.number,
      orderStatus: 'PAID',
      productId: keyed.product.id,
      productName: keyed.product.name,
      productType: 'SoftwareKey',
      offerId: keyed.offer.id,
      offerName: 'Standard',
      quantity: 2,
      refundedQuantity: 0,
      subscriptionId: null,
      subscriptionStatus: null,
    });
    expect(items[0]!.paidAt).toEqual(expect.any(Number));
    expect(items[0]!.licenseKeys.map((k) => [k.unit, k.key, k.status])).toEqual([
      [0, 'OWN-1', 'active'],
      [1, 'OWN-2', 'active'],
    ]);
    const publicView = await ok(inventory(ws, userId, {}, READ));
    expect(publicView.inventory[0]!.licenseKeys.map((k) => k.key)).toEqual([null, null]);
  }, SLOW);

  test('a subscription item carries its status; declined orders own nothing; paging', async () => {
    const subscription = await element(ws, 'DigitalDownload', { recurringInterval: 'month' });
    const started = await payCheckout(subscription.elementId, orderBody({ email }));
    expect(started.status).toBe(200);
    const download = await element(ws, 'DigitalDownload');
    const attached = await fetch(`${baseUrl()}/v0/products/${download.product.id}/files/upload?fileName=game.zip`, {
      method: 'POST',
      headers: { ...keyHeaders(ws), 'content-type': 'application/zip' },
      body: 'PK-bytes',
    });
    expect(attached.status).toBe(200);
    expect((await payCheckout(download.elementId, orderBody({ email, card: card(CARD_DECLINED) }))).status).toBe(402);
    expect((await payCheckout(download.elementId, orderBody({ email }))).status).toBe(200);

    const all = await ok(inventory(ws, userId));
    expect([all.count, all.pages]).toEqual([3, 1]);
    expect(all.inventory.map((i) => i.productId)).toEqual([download.product.id, subscription.product.id, keyed.product.id]);
    expect(all.inventory[1]).toMatchObject({ subscriptionId: started.body.data.order.number, subscriptionStatus: 'active', productType: 'DigitalDownload', licenseKeys: [], download: null });
    expect(all.inventory[0]!.download).toMatchObject({ fileName: 'game.zip', mimeType: 'application/zip', size: 8 });
    expect(all.inventory[2]!.download).toBeNull();

    const page2 = await ok(inventory(ws, userId, { page: 2, limit: 2 }));
    expect([page2.count, page2.pages, page2.inventory.map((i) => i.productId)]).toEqual([3, 2, [keyed.product.id]]);
    const beyond = await ok(inventory(ws, userId, { page: 9, limit: 2 }));
    expect(beyond).toEqual({ inventory: [], count: 3, pages: 2 });
    expect((await ok(inventory(ws, userId, { limit: 500 }))).inventory).toHaveLength(3);
    expect((await failure(inventory(ws, userId, { page: 0 }))).status).toBe(400);
  }, SLOW);

  test('refunds: a partial refund keeps the item with its refunded units; a fully refunded item or order, and a cancelled order, leave it', async () => {
    const buyer = `refunded-${randomUUID()}@example.com`;
    const paid = await payCheckout(keyed.elementId, orderBody({ email: buyer }));
    expect(paid.status).toBe(200);
    const owner: string = paid.body.data.order.userId;
    const orderId: string = paid.body.data.order.id;
    // An order of two items of two units each.
    const [first, second] = [await element(ws, 'DigitalDownload'), await element(ws, 'DigitalDownload')];
    const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [first.offer.id, second.offer.id] } }));
    const both = await payCheckout(checkoutElement.id, orderBody({ email: buyer, quantity: 2 }));
    expect(both.status).toBe(200);
    const bothId: string = both.body.data.order.id;
    const owned = await ok(inventory(ws, owner));
    expect(owned.count).toBe(3);
    const firstItemId = owned.inventory.find((i) => i.offerId === first.offer.id)!.id;

    // One of two units of an item refunded: still owned, with its refunded unit.
    expect((await refundUnits(ws, bothId, [{ id: firstItemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    const partial = await ok(inventory(ws, owner));
    expect(partial.inventory.find((i) => i.id === firstItemId)).toMatchObject({ orderId: bothId, orderStatus: 'PARTIALLY_REFUNDED', quantity: 2, refundedQuantity: 1 });

    // Every unit of the item refunded: gone, while the other item of its partially refunded order stays.
    expect((await refundUnits(ws, bothId, [{ id: firstItemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    const rest = await ok(inventory(ws, owner));
    expect(rest.inventory.map((i) => [i.orderId, i.offerId, i.refundedQuantity])).toEqual([
      [bothId, second.offer.id, 0],
      [orderId, keyed.offer.id, 0],
    ]);

    // Refunded in full, or cancelled after payment: nothing left.
    expect((await refundUnits(ws, orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
    expect((await ok(inventory(ws, owner))).inventory.map((i) => i.orderId)).toEqual([bothId]);
    expect((await ok(restClient(ws).PATCH('/v0/orders/{orderIdOrNumber}/cancel', { params: { path: { orderIdOrNumber: bothId } }, body: {} }))).order.status).toBe('CANCELLED');
    expect(await ok(inventory(ws, owner))).toEqual({ inventory: [], count: 0, pages: 0 });
  }, SLOW);

  test('tenancy: another workspace, or the test mode, sees 404', async () => {
    const stranger = await newWorkspace('Inventory stranger');
    expect((await failure(inventory(stranger, userId))).status).toBe(404);
    const testMode = await newWorkspace('Inventory modes', ['testMode=true']);
    const buyer = (await ok(restClient(testMode).POST('/v0/users/create', { body: { email: `live-${randomUUID()}@example.com` } }))).user;
    expect((await failure(inventory(testMode, buyer.id, {}, { mode: 'test' }))).status).toBe(404);
  });
});
