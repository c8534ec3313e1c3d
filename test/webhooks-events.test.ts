import { randomBytes, randomUUID } from 'node:crypto';
import { events } from '../src/domains.js';
import { eventBody } from '../src/events/event-service.js';
import { sampleUser } from '../src/users/events.js';
import { createOrder } from '../src/orders/service.js';
import { markPaymentCancelled, markPaymentExpired, markPaymentFailed, markPaymentPaid } from '../src/payments/transitions.js';
import { call, newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { db, prisma } from './support/webhooks-suite.js';

describe('events recorded with catalogue writes', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Webhook events outbox');
  });

  const eventsOf = async (type: string, subjectKey: string, subjectId: string) => {
    const { rows } = await db.query(`SELECT * FROM "Event" WHERE "workspaceId" = $1 AND type = $2 AND payload->($3::text)->>'id' = $4`, [ws.workspaceId, type, subjectKey, subjectId]);
    return rows;
  };
  const countEvents = async () => (await db.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = $1`, [ws.workspaceId])).rows[0].n as number;

  test('a product create writes exactly one product_created event whose data is the product as returned', async () => {
    const res = await call('POST', '/v0/products/create', ws, { name: 'Evented', projectId: ws.projectId, type: 'DigitalDownload', tags: ['a'] });
    expect(res.status).toBe(200);
    const { product } = res.body.data;
    const rows = await eventsOf('product_created', 'product', product.id);
    expect(rows).toHaveLength(1);
    const [event] = rows;
    // dispatchedAt is set by the worker's dispatcher shortly after (webhook-delivery-tries.test.ts).
    expect(event).toMatchObject({ livemode: true, test: false, payload: { product } });
    const body = eventBody({ id: event.id, type: event.type, createdAt: event.createdAt, livemode: event.livemode, payload: event.payload });
    expect(body).toEqual({ id: event.id, idempotencyKey: event.id, type: 'product_created', createdAt: event.createdAt.getTime(), livemode: true, data: { product } });
  });

  test('a test event has the shape of the real event of its type (one payload builder feeds both)', async () => {
    /** The keys of every object, recursively; an array by its first item; other values by nothing. */
    const shapeOf = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
      if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]));
      return null;
    };
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'Shaped', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const { offer } = (await call('POST', '/v0/offers/create', ws, { productId: product.id, price: 500, currency: 'USD' })).body.data;
    const { discount } = (await call('POST', '/v0/discounts/create', ws, { type: 'code', amount: 10, amountType: 'percentage', discountCode: `SHAPE${randomBytes(3).toString('hex')}` })).body.data;
    const { user } = (await call('POST', '/v0/users/create', ws, { email: `shape-${randomUUID()}@example.com` })).body.data;
    const { checkoutElement } = (await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [offer.id] })).body.data;
    // Orders as checkout makes them, each payment then settled one way.
    const scope = { workspaceId: ws.workspaceId, livemode: true };
    const buyer = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    const sale = (subscription = false) =>
      prisma.$transaction((tx) =>
        createOrder(tx, scope, {
          user: buyer, currency: 'USD', items: [{ offerId: offer.id, productId: product.id, quantity: 1, unitPrice: 500 }],
          payment: { processor: 'sandbox', methodType: 'card' }, subscription: subscription ? { recurringInterval: 'month' } : null,
        }),
      );
    const [paid, failed, cancelled, expired, subscribed] = [await sale(), await sale(), await sale(), await sale(), await sale(true)];
    await prisma.$transaction(async (tx) => {
      await markPaymentPaid(tx, paid.payment.id);
      await markPaymentFailed(tx, failed.payment.id, { failureCode: 'card_declined', failureMessage: 'Declined' });
      await markPaymentCancelled(tx, cancelled.payment.id);
      await markPaymentExpired(tx, expired.payment.id);
      await markPaymentPaid(tx, subscribed.payment.id);
    });
    expect((await call('PATCH', `/v0/orders/${paid.order.id}/update`, ws, { tax: 10 })).status).toBe(200);
    const cancelledOrder = await sale();
    expect((await call('PATCH', `/v0/orders/${cancelledOrder.order.number}/cancel`, ws, {})).status).toBe(200);
    const subjects: Array<[string, string, string]> = [
      ['product_created', 'product', product.id],
      ['offer_created', 'offer', offer.id],
      ['discount_created', 'discount', discount.id],
      ['user_created', 'user', user.id],
      ['checkout_element_created', 'checkoutElement', checkoutElement.id],
      ['order_created', 'order', paid.order.id],
      ['order_updated', 'order', paid.order.id],
      ['order_cancelled', 'order', cancelledOrder.order.id],
      ['payment_success', 'payment', paid.payment.id],
      ['payment_failed', 'payment', failed.payment.id],
      ['payment_cancelled', 'payment', cancelled.payment.id],
      ['payment_expired', 'payment', expired.payment.id],
      ['subscription_created', 'subscription', subscribed.order.number],
    ];
    for (const [type, key, id] of subjects) {
      const [real] = await eventsOf(type, key, id);
      const now = new Date();
      const sample = await events[type]!({ now, items: () => [], user: () => sampleUser(prisma, { workspaceId: ws.workspaceId, livemode: true }, null, now) });
      expect({ type, shape: shapeOf(sample) }).toEqual({ type, shape: shapeOf(real.payload) });
    }
  });

  test('rejected creates write no event', async () => {
    const before = await countEvents();
    const rejected = [
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: randomUUID(), type: 'DigitalDownload' }),
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: ws.projectId, type: 'DigitalDownload', developer: 'x' }),
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: ws.projectId, type: 'DigitalDownload' }, { write: false }),
      await call('POST', '/v0/users/create', ws, { email: 'not-an-email' }),
    ];
    expect(rejected.map((r) => r.status)).toEqual([400, 400, 401, 400]);
    const limited = await newWorkspace('Webhook events limit', ['productLimit=0']);
    const overLimit = await call('POST', '/v0/products/create', limited, { name: 'Over', projectId: limited.projectId, type: 'DigitalDownload' });
    expect(overLimit.status).toBe(409);
    expect(await countEvents()).toBe(before);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = $1`, [limited.workspaceId]);
    expect(rows[0].n).toBe(0);
  });

  test('update, duplicate and archive of a product each record their event; test mode records livemode false', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'Lifecycle', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const updated = await call('PATCH', `/v0/products/${product.id}/update`, ws, { name: 'Lifecycle 2' });
    expect((await eventsOf('product_updated', 'product', product.id)).map((e) => e.payload)).toEqual([{ product: updated.body.data.product }]);
    const copy = (await call('POST', `/v0/products/${product.id}/duplicate`, ws, {})).body.data.product;
    expect((await eventsOf('product_created', 'product', copy.id)).map((e) => e.payload)).toEqual([{ product: copy }]);
    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(200);
    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(404);
    const archived = await eventsOf('product_archived', 'product', product.id);
    expect(archived).toHaveLength(1);
    expect(archived[0].payload.product).toMatchObject({ id: product.id, name: 'Lifecycle 2' });
    const failedUpdate = await call('PATCH', `/v0/products/${copy.id}/update`, ws, { name: '' });
    expect(failedUpdate.status).toBe(400);
    expect(await eventsOf('product_updated', 'product', copy.id)).toHaveLength(0);

    await setWorkspace(ws.workspaceId, 'testMode=true');
    const testProduct = (await call('POST', '/v0/products/create', ws, { name: 'Test mode', projectId: ws.projectId, type: 'DigitalDownload' }, { mode: 'test' })).body.data.product;
    const [testEvent] = await eventsOf('product_created', 'product', testProduct.id);
    expect(testEvent.livemode).toBe(false);
  });

  test('offer create, update and archive record their events; archiving a product archives its offers with an event each', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'With offers', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const created = await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'EUR', price: 1500 });
    expect(created.status).toBe(200);
    const { offer } = created.body.data;
    expect((await eventsOf('offer_created', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer }]);
    const updated = await call('PATCH', `/v0/offers/${offer.id}/update`, ws, { price: 1200 });
    expect((await eventsOf('offer_updated', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer: updated.body.data.offer }]);
    const rejected = await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'XXX', price: 1 });
    expect(rejected.status).toBe(400);

    const second = (await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'EUR', price: 900 })).body.data.offer;
    expect((await call('PATCH', `/v0/offers/${second.id}/archive`, ws, {})).status).toBe(200);
    const [secondArchived] = await eventsOf('offer_archived', 'offer', second.id);
    expect(secondArchived.payload).toEqual({ offer: second });

    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(200);
    expect((await eventsOf('offer_archived', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer: updated.body.data.offer }]);
    expect(await eventsOf('offer_archived', 'offer', second.id)).toHaveLength(1);
    const { rows } = await db.query(`SELECT type FROM "Event" WHERE "workspaceId" = $1 AND (payload->'offer'->>'productId' = $2 OR payload->'product'->>'id' = $2) ORDER BY "createdAt", type`, [ws.workspaceId, product.id]);
    expect(rows.map((r) => r.type).sort()).toEqual(['offer_archived', 'offer_archived', 'offer_created', 'offer_created', 'offer_updated', 'product_archived', 'product_created'].sort());
  });

  test('a checkout element create records checkout_element_created with the element as returned', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'For checkout', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const offers = [];
    for (const price of [500, 700]) offers.push((await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'USD', price })).body.data.offer);
    const created = await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [offers[1].id, offers[0].id], name: 'Cart' });
    expect(created.status).toBe(200);
    const { checkoutElement } = created.body.data;
    expect(checkoutElement.offers.map((o: { id: string }) => o.id)).toEqual([offers[1].id, offers[0].id]);
    expect((await eventsOf('checkout_element_created', 'checkoutElement', checkoutElement.id)).map((e) => e.payload)).toEqual([{ checkoutElement }]);
    const before = await countEvents();
    expect((await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [randomUUID()] })).status).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  test('user create and archive record user_created and user_archived with the user as returned', async () => {
    const created = await call('POST', '/v0/users/create', ws, { email: `buyer-${randomUUID()}@example.com`, billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    expect(created.status).toBe(200);
    const { user } = created.body.data;
    expect((await eventsOf('user_created', 'user', user.id)).map((e) => e.payload)).toEqual([{ user }]);
    const duplicate = await call('POST', '/v0/users/create', ws, { email: user.email });
    expect(duplicate.status).toBe(400);
    expect(await eventsOf('user_created', 'user', user.id)).toHaveLength(1);
    expect((await call('PATCH', `/v0/users/${user.id}/archive`, ws, {})).status).toBe(200);
    expect((await call('PATCH', `/v0/users/${user.id}/archive`, ws, {})).status).toBe(404);
    expect((await eventsOf('user_archived', 'user', user.id)).map((e) => e.payload)).toEqual([{ user }]);
  });
});
