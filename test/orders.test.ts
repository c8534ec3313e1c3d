import { randomUUID } from 'node:crypto';
import type { operations } from './generated/openapi.js';
import { baseUrl, call, keyHeaders, newWorkspace, raw, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { eventually, newCheckout, orderBody, placeOrder } from './support/checkout.js';
import { testHelper } from './support/refunds.js';
import { failure, ok } from './support/responses.js';
import { countEvents, eventsAbout, newBuyer, newCatalogue, readHeaders, salesDb, seedOrder } from './support/sales.js';
import { feeRuleFromEnv, parsePercent, platformFee } from '../src/orders/fee.js';
import { createdRange } from '../src/orders/filters.js';
import { markPaymentFailed, markPaymentPaid } from '../src/payments/transitions.js';
import { advance, DAY, seconds, subscriptionElement, TEST } from './support/subscriptions.js';

type ListQuery = NonNullable<operations['orders']['parameters']['query']>;
const READ: KeyChoice = { write: false };
const TEST_READ: KeyChoice = { mode: 'test', write: false };
const NUMBER = /^[0-9A-HJKMNP-TV-Z]{16}$/;

const listOrders = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) => restClient(ws, key).GET('/v0/orders/list', { params: { query } });
const getOrder = (ws: Workspace, orderIdOrNumber: string, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber } } });
const cancelOrder = (ws: Workspace, orderIdOrNumber: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/orders/{orderIdOrNumber}/cancel', { params: { path: { orderIdOrNumber } }, body: {} });
const updateOrder = (ws: Workspace, orderIdOrNumber: string, body: Record<string, unknown>, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/orders/{orderIdOrNumber}/update', { params: { path: { orderIdOrNumber } }, body: body as never });

describe('orders: the platform fee', () => {
  test('percentage in basis points plus the fixed part, rounded half up, never above the value, 0 when free', () => {
    const rule = { basisPoints: parsePercent('2.9', 'P'), fixed: 30 };
    expect(rule.basisPoints).toBe(290);
    expect(platformFee(1000, rule)).toBe(59);
    expect(platformFee(1999, rule)).toBe(88);
    expect(platformFee(10, rule)).toBe(10);
    expect(platformFee(0, rule)).toBe(0);
    expect(platformFee(2_147_483_647, { basisPoints: 10_000, fixed: 0 })).toBe(2_147_483_647);
    expect(platformFee(50, { basisPoints: 100, fixed: 0 })).toBe(1);
    expect(platformFee(49, { basisPoints: 100, fixed: 0 })).toBe(0);
  });

  test('the environment sets it; defaults are 5% + 50; malformed values stop the start', () => {
    expect(feeRuleFromEnv({})).toEqual({ basisPoints: 500, fixed: 50 });
    expect(feeRuleFromEnv({ PLATFORM_FEE_PERCENT: '0', PLATFORM_FEE_FIXED: '0' })).toEqual({ basisPoints: 0, fixed: 0 });
    expect(feeRuleFromEnv({ PLATFORM_FEE_PERCENT: '12.5', PLATFORM_FEE_FIXED: '25' })).toEqual({ basisPoints: 1250, fixed: 25 });
    for (const percent of ['-1', '101', '2.999', 'abc', '1e2']) expect(() => feeRuleFromEnv({ PLATFORM_FEE_PERCENT: percent })).toThrow(/PLATFORM_FEE_PERCENT/);
    for (const fixed of ['-5', '1.5', 'x']) expect(() => feeRuleFromEnv({ PLATFORM_FEE_FIXED: fixed })).toThrow(/PLATFORM_FEE_FIXED/);
  });

  test('createdFrom/createdTo: seconds below 10^11, milliseconds from there; a second bound covers its whole second', () => {
    expect(createdRange(1_700_000_000, 1_700_000_000)).toEqual({ gte: new Date(1_700_000_000_000), lte: new Date(1_700_000_000_999) });
    expect(createdRange(1_700_000_000_123, 1_700_000_000_456)).toEqual({ gte: new Date(1_700_000_000_123), lte: new Date(1_700_000_000_456) });
    expect(createdRange(0, Number.MAX_SAFE_INTEGER)?.lte?.getUTCFullYear()).toBe(9999);
    expect(createdRange(null, null)).toBeUndefined();
  });
});

describe('orders: the object, details and lookups', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Orders objects', ['testMode=true']), newWorkspace('Orders elsewhere', ['testMode=true'])]);
  });

  test('a list row is the Order object exactly as order_created carried it; number equals orderNumber', async () => {
    const buyer = await newBuyer(ws);
    const { item } = await newCatalogue(ws, 1250);
    const created = await seedOrder(ws, { userId: buyer.id, country: 'DE', items: [item(2, { tax: 100, discount: 50 })] });
    const { orders } = await ok(listOrders(ws, { ids: [created.order.id] }));
    expect(orders).toHaveLength(1);
    const [row] = orders;
    expect(row).toMatchObject({
      object: 'order', id: created.order.id, status: 'PENDING', type: 'ONE_TIME', value: 2550, tax: 100, discountAmount: 50, fee: 173, totalItems: 2,
      country: 'DE', currency: 'USD', currencyDecimals: 2, userId: buyer.id, user: buyer, subscriptionId: null, subscription: null, checkoutId: null, disputed: false,
    });
    expect(row!.number).toMatch(NUMBER);
    expect(row!.orderNumber).toBe(row!.number);
    expect(row!.lastPaymentNumber).toBe(row!.number);
    expect(row!.lastPayment).toMatchObject({ object: 'payment', id: row!.lastPaymentId, number: row!.number, status: 'PENDING', amount: 2550, fee: 173, orderNumber: row!.number });
    expect(Math.abs(row!.createdAt - Date.now() / 1000)).toBeLessThan(600);
    const [event] = await eventsAbout(ws, 'order_created', 'order', created.order.id);
    expect(event!.payload).toEqual({ order: row, items: [expect.objectContaining({ object: 'order_item', id: created.items[0]!.id, quantity: 2 })], user: buyer });
  });

  test('details: cart items with id, offer, product, quantity, prices and custom fields; payments; by id, number or #number', async () => {
    const first = await newCatalogue(ws, 900);
    const second = await newCatalogue(ws, 400);
    const created = await seedOrder(ws, { items: [first.item(1, { customFields: { nick: 'neo' } }), second.item(3, { discount: 200 })] });
    const { order } = await ok(getOrder(ws, created.order.id));
    expect(order.items).toEqual([
      expect.objectContaining({ object: 'order_item', id: created.items[0]!.id, quantity: 1, unitPrice: 900, subtotal: 900, discount: 0, tax: 0, total: 900, customFields: { nick: 'neo' }, offer: expect.objectContaining({ object: 'offer', id: first.offer.id }), product: expect.objectContaining({ object: 'product', id: first.product.id }) }),
      expect.objectContaining({ id: created.items[1]!.id, quantity: 3, subtotal: 1200, discount: 200, total: 1000, customFields: null, offer: expect.objectContaining({ id: second.offer.id }) }),
    ]);
    expect(order.payments).toEqual([expect.objectContaining({ object: 'payment', id: created.payment.id, number: created.order.number, status: 'PENDING' })]);
    expect(order.value).toBe(1900);
    expect((await ok(getOrder(ws, created.order.number))).order).toEqual(order);
    const hashed = await raw('GET', `/v0/orders/%23${created.order.number}`, { headers: readHeaders(ws) });
    expect(hashed.body.data.order).toEqual(order);
  });

  test('a subscription order carries its subscription (id = number) with its status, which its first payment starts', async () => {
    const { item } = await newCatalogue(ws, 500, {}, { recurringInterval: 'month' });
    const created = await seedOrder(ws, { items: [item()], subscription: { recurringInterval: 'month' } });
    const before = (await ok(getOrder(ws, created.order.id))).order;
    expect(before).toMatchObject({ type: 'SUBSCRIPTION', subscriptionId: created.order.number, subscription: { object: 'subscription', id: created.order.number, status: 'incomplete', recurringInterval: 'month' } });
    await salesDb().$transaction((tx) => markPaymentPaid(tx, created.payment.id));
    expect((await ok(getOrder(ws, created.order.id))).order).toMatchObject({ status: 'PAID', subscription: { status: 'active' } });
    const [started] = await eventsAbout(ws, 'subscription_created', 'subscription', created.order.number);
    expect(started!.payload).toMatchObject({ subscription: { status: 'active' }, items: [{ id: created.items[0]!.id }] });
  });

  test('GraphQL serves the same orders and payments as /v0', async () => {
    const created = await seedOrder(ws);
    const query = `query($ref: String!, $id: UUID!) {
      orders(ids: [$id]) { orders { id number status value fee lastPayment { number status } } count }
      order(orderIdOrNumber: $ref) { order { id items { id quantity } payments { id number } } }
      payment(paymentId: ${JSON.stringify(created.payment.id)}) { payment { id status order { number } charges { id } invoice { id } } }
    }`;
    const response = await fetch(`${baseUrl()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders(ws, READ) },
      body: JSON.stringify({ query, variables: { ref: `#${created.order.number}`, id: created.order.id } }),
    });
    const { data, errors } = (await response.json()) as { data: any; errors?: unknown };
    expect(errors).toBeUndefined();
    const rest = (await ok(listOrders(ws, { ids: [created.order.id] }))).orders[0]!;
    expect(data.orders).toEqual({ orders: [{ id: rest.id, number: rest.number, status: 'PENDING', value: rest.value, fee: rest.fee, lastPayment: { number: rest.number, status: 'PENDING' } }], count: null });
    expect(data.order.order).toEqual({ id: created.order.id, items: [{ id: created.items[0]!.id, quantity: 1 }], payments: [{ id: created.payment.id, number: rest.number }] });
    expect(data.payment.payment).toEqual({ id: created.payment.id, status: 'PENDING', order: { number: rest.number }, charges: [], invoice: null });
  });

  test('unknown is 404, neither an id nor a number is 400', async () => {
    for (const ref of [randomUUID(), '0000000000000000', '123456', '#123456']) expect((await failure(getOrder(ws, ref))).status).toBe(404);
    for (const ref of ['not a number', 'ABC', '1M85V9VX8V08KJ39-2', '##123456']) expect((await failure(getOrder(ws, ref))).status).toBe(400);
  });

  test('test mode and live mode never see each other’s orders', async () => {
    const live = await seedOrder(ws);
    const test = await seedOrder(ws, {}, { mode: 'test' });
    expect((await ok(getOrder(ws, test.order.id, { mode: 'test', write: false }))).order.id).toBe(test.order.id);
    expect((await failure(getOrder(ws, test.order.id))).status).toBe(404);
    expect((await failure(getOrder(ws, live.order.number, { mode: 'test', write: false }))).status).toBe(404);
    expect((await failure(cancelOrder(ws, live.order.id, { mode: 'test' }))).status).toBe(404);
    const testIds = (await ok(listOrders(ws, { take: 100 }, { mode: 'test', write: false }))).orders.map((o) => o.id);
    expect(testIds).toContain(test.order.id);
    expect(testIds).not.toContain(live.order.id);
  });

  test("another workspace's keys get 404 for every order route, and its lists hold none of them", async () => {
    const mine = await seedOrder(ws);
    const before = await countEvents(ws);
    for (const ref of [mine.order.id, mine.order.number]) {
      expect((await failure(getOrder(other, ref))).status).toBe(404);
      expect((await failure(cancelOrder(other, ref))).status).toBe(404);
      expect((await failure(updateOrder(other, ref, { value: 1 }))).status).toBe(404);
    }
    expect((await ok(listOrders(other, { ids: [mine.order.id] }))).orders).toEqual([]);
    expect((await ok(listOrders(other, { number: mine.order.number }))).orders).toEqual([]);
    expect(await countEvents(ws)).toBe(before);
    expect((await ok(getOrder(ws, mine.order.id))).order.status).toBe('PENDING');
  });
});

describe('orders: cancel and update', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Orders changes');
  });

  test('cancel: PENDING becomes CANCELLED with order_cancelled; its pending card payment gets a cancel request; # tolerated', async () => {
    const created = await seedOrder(ws);
    const res = await raw('PATCH', `/v0/orders/%23${created.order.number}/cancel`, { headers: readHeaders(ws, { write: true }), body: '{}' });
    expect(res.status).toBe(401);
    const cancelled = await call('PATCH', `/v0/orders/%23${created.order.number}/cancel`, ws, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.order).toMatchObject({ id: created.order.id, status: 'CANCELLED' });
    const events = await eventsAbout(ws, 'order_cancelled', 'order', created.order.id);
    expect(events.map((e) => e.payload)).toEqual([{ order: cancelled.body.data.order, items: [expect.objectContaining({ id: created.items[0]!.id })], user: null }]);
    const payment = await salesDb().payment.findUniqueOrThrow({ where: { id: created.payment.id } });
    expect(payment).toMatchObject({ status: 'PENDING', cancelRequestedAt: expect.any(Date) });
  });

  test('cancel: a cancelled, failed or expired order is 400 and records nothing; a PAID one is cancelled without a refund', async () => {
    const cancelled = await seedOrder(ws);
    await ok(cancelOrder(ws, cancelled.order.id));
    const failed = await seedOrder(ws);
    await salesDb().$transaction((tx) => markPaymentFailed(tx, failed.payment.id, { failureCode: 'card_declined', failureMessage: 'Declined' }));
    const before = await countEvents(ws);
    for (const id of [cancelled.order.id, failed.order.id]) {
      const res = await failure(cancelOrder(ws, id));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/cannot be cancelled/);
    }
    expect(await countEvents(ws)).toBe(before);
    const paid = await seedOrder(ws);
    await salesDb().$transaction((tx) => markPaymentPaid(tx, paid.payment.id));
    expect((await ok(cancelOrder(ws, paid.order.number))).order).toMatchObject({ status: 'CANCELLED', lastPayment: { status: 'PAID', refundedAmount: 0 } });
  });

  test('cancel: two at once cancel once', async () => {
    const created = await seedOrder(ws);
    const results = await Promise.all(Array.from({ length: 6 }, () => cancelOrder(ws, created.order.id)));
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(await eventsAbout(ws, 'order_cancelled', 'order', created.order.id)).toHaveLength(1);
  });

  test('update writes status, value, fee, tax and currency as given, with order_updated', async () => {
    const created = await seedOrder(ws);
    const { order } = await ok(updateOrder(ws, `#${created.order.number}`, { status: 'PAID', value: 5000, fee: 300, tax: 400, currency: 'eur' }));
    expect(order).toMatchObject({ status: 'PAID', value: 5000, fee: 300, tax: 400, currency: 'EUR', currencyDecimals: 2 });
    const events = await eventsAbout(ws, 'order_updated', 'order', created.order.id);
    expect(events.map((e) => e.payload)).toEqual([{ order, items: [expect.objectContaining({ id: created.items[0]!.id })], user: null }]);
    expect((await ok(updateOrder(ws, created.order.id, { value: 5000 }))).order).toEqual(order);
    expect((await ok(updateOrder(ws, created.order.id, {}))).order).toEqual(order);
    expect(await eventsAbout(ws, 'order_updated', 'order', created.order.id)).toHaveLength(1);
  });

  test('update refuses what cannot be stored (400, nothing written, no event); a read key is 401', async () => {
    const created = await seedOrder(ws);
    const before = await countEvents(ws);
    const bodies = [{ value: -1 }, { fee: 2000 }, { tax: 1001 }, { value: 10, fee: 11 }, { currency: 'XXX' }, { status: 'SHIPPED' }, { status: null }, { value: null }, { value: 1.5 }, { value: '10' }, { value: 2_147_483_648 }];
    for (const body of bodies) expect({ body, status: (await failure(updateOrder(ws, created.order.id, body))).status }).toEqual({ body, status: 400 });
    expect((await failure(updateOrder(ws, created.order.id, { value: 1 }, { write: false }))).status).toBe(401);
    expect(await countEvents(ws)).toBe(before);
    expect((await ok(getOrder(ws, created.order.id))).order).toMatchObject({ value: 1000, fee: 100, tax: 0, currency: 'USD', status: 'PENDING' });
  });
});

describe('orders: list filters', () => {
  let ws: Workspace;
  const o: Record<string, { order: { id: string; number: string }; payment: { id: string } }> = {};
  const checkout = { c1: '', c2: randomUUID() };
  let alice: { id: string; email: string | null };
  const at = (month: number) => new Date(Date.UTC(2026, month - 1, 1, 12, 0, 0, 250));

  // Test mode: the subscription is bought through the hosted checkout and renewed by its workflow
  // on the test clock (test keys only); the other orders are seeded in the same mode.
  beforeAll(async () => {
    ws = await newWorkspace('Orders filters', ['testMode=true']);
    const bob = await newBuyer(ws, `bob-${randomUUID()}@example.com`, TEST);
    alice = await newBuyer(ws, `alice-${randomUUID()}@example.com`, TEST);
    // The subscription's element is checkout c1 (order one is seeded as sold by it too).
    checkout.c1 = await subscriptionElement(ws, 500);
    const line = (unitPrice: number, customFields?: Record<string, string>) => ({ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice, customFields });
    o.one = await seedOrder(ws, { userId: alice.id, country: 'US', checkoutId: checkout.c1, items: [line(600, { size: 'L', color: 'red' }), line(400, { gift: 'yes' })] }, TEST);
    o.two = await seedOrder(ws, { userId: bob.id, currency: 'EUR', country: 'DE', checkoutId: checkout.c2, items: [line(3000, { size: 'L' })] }, TEST);
    o.three = await subscribed(checkout.c1, alice.email!);
    o.four = await seedOrder(ws, { items: [line(0)], payment: { processor: null, methodType: null } }, TEST);
    // Bob's order, paid through a checkout of its own (2000, in Oregon: no sales tax), then disputed by the cardholder (the test helper).
    const sold = await newCheckout(ws, { price: 2000, key: TEST });
    o.five = await placeOrder(sold.element.id, orderBody({ email: bob.email!, billingDetails: { countryCode: 'US', postalCode: '97201', state: 'OR' } }));
    await ok(testHelper(ws, 'dispute', o.five.payment.id));
    const db = salesDb();
    await db.$transaction(async (tx) => {
      await markPaymentPaid(tx, o.one!.payment.id);
      await markPaymentFailed(tx, o.two!.payment.id, { failureCode: 'card_declined', failureMessage: 'Declined' });
      await markPaymentPaid(tx, o.four!.payment.id);
    });
    // A renewal of the subscription, its second payment: the test clock advanced past the first period.
    const { currentPeriodEnd } = await db.subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: o.three.order.number } });
    await ok(advance(ws, o.three.order.number, seconds(currentPeriodEnd!) + DAY));
    const renewal = await db.payment.findFirstOrThrow({ where: { number: `${o.three.order.number}-2` } });
    if (renewal.status !== 'PAID' || renewal.sequence !== 2) throw new Error(`the renewal is not the second payment, PAID: ${renewal.status} ${renewal.sequence}`);
    // Time travel, which no route does: the orders one month apart, in the order of their names.
    for (const [index, name] of ['one', 'two', 'three', 'four', 'five'].entries()) await db.order.update({ where: { id: o[name]!.order.id }, data: { createdAt: at(index + 1) } });
  }, 120_000);

  /** A monthly subscription bought by `email` (a buyer in Berlin) through the element; waits until its workflow began its first period. */
  async function subscribed(elementId: string, email: string) {
    const { order, payment } = await placeOrder(elementId, orderBody({ email, billingDetails: { countryCode: 'DE', postalCode: '10115' } }), randomUUID());
    await eventually(() => salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: order.number } }), (s) => s.currentPeriodEnd !== null);
    return { order, payment };
  }

  const names = async (query: ListQuery) => {
    const { orders } = await ok(listOrders(ws, query, TEST_READ));
    return orders.map((row) => Object.keys(o).find((name) => o[name]!.order.id === row.id) ?? row.id);
  };
  const rejected = async (query: ListQuery) => (await failure(listOrders(ws, query, TEST_READ))).status;

  test('newest first by default; orderBy createdAt, orderNumber and value in both directions', async () => {
    expect(await names({})).toEqual(['five', 'four', 'three', 'two', 'one']);
    expect(await names({ orderDirection: 'ASC' })).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(await names({ orderBy: 'value' })).toEqual(['two', 'five', 'one', 'three', 'four']);
    expect(await names({ orderBy: 'value', orderDirection: 'ASC' })).toEqual(['four', 'three', 'one', 'five', 'two']);
    const byNumber = Object.keys(o).sort((a, b) => (o[a]!.order.number < o[b]!.order.number ? -1 : 1));
    expect(await names({ orderBy: 'orderNumber', orderDirection: 'ASC' })).toEqual(byNumber);
    expect(await names({ orderBy: 'orderNumber' })).toEqual([...byNumber].reverse());
    const page = await ok(listOrders(ws, { skip: 1, take: 2, returnCount: true }, TEST_READ));
    expect(page.orders.map((row) => row.id)).toEqual([o.four!.order.id, o.three!.order.id]);
    expect(page.count).toBe(5);
    expect(await ok(listOrders(ws, { archived: true, returnCount: true }, TEST_READ))).toEqual({ orders: [], count: 0 });
  });

  test('term, ids, number (# tolerated, a payment number finds its order), userId', async () => {
    expect(await names({ term: alice.email!.slice(0, 12).toUpperCase() })).toEqual(['three', 'one']);
    expect(await names({ term: `#${o.two!.order.number.toLowerCase()}` })).toEqual(['two']);
    expect(await names({ term: o.two!.order.number.slice(4) })).toEqual([]);
    expect(await names({ term: o.four!.order.id })).toEqual(['four']);
    expect(await names({ ids: [o.one!.order.id, o.five!.order.id, randomUUID()] })).toEqual(['five', 'one']);
    expect(await names({ number: o.two!.order.number })).toEqual(['two']);
    expect(await names({ number: `#${o.two!.order.number}` })).toEqual(['two']);
    expect(await names({ number: `${o.three!.order.number}-2` })).toEqual(['three']);
    expect(await names({ number: '123456' })).toEqual([]);
    expect(await names({ userId: alice.id })).toEqual(['three', 'one']);
    for (const number of ['1234567890x', 'abc-def', '##123', '1M85V9VX8V08KJ39-', 'x'.repeat(33)]) expect(await rejected({ number })).toBe(400);
  });

  test('subscriptionNumber and its deprecated twin subscriptionId; checkoutIds repeated', async () => {
    expect(await names({ subscriptionNumber: o.three!.order.number })).toEqual(['three']);
    expect(await names({ subscriptionNumber: `#${o.three!.order.number}` })).toEqual(['three']);
    expect(await names({ subscriptionId: o.three!.order.number })).toEqual(['three']);
    expect(await names({ subscriptionNumber: o.one!.order.number })).toEqual([]);
    expect(await rejected({ subscriptionNumber: 'not-a-number' })).toBe(400);
    expect(await names({ checkoutIds: [checkout.c1] })).toEqual(['three', 'one']);
    expect(await names({ checkoutIds: [checkout.c1, checkout.c2] })).toEqual(['three', 'two', 'one']);
    const repeated = await raw('GET', '/v0/orders/list', { headers: readHeaders(ws, TEST), query: `checkoutIds=${checkout.c2}&checkoutIds=${checkout.c1}` });
    expect(repeated.body.data.orders).toHaveLength(3);
  });

  test('customFields: one cart item must carry every pair exactly; malformed JSON is 400', async () => {
    const fields = (value: unknown) => names({ customFields: JSON.stringify(value) });
    expect(await fields({ size: 'L' })).toEqual(['two', 'one']);
    expect(await fields({ size: 'L', color: 'red' })).toEqual(['one']);
    expect(await fields({ size: 'L', gift: 'yes' })).toEqual([]);
    expect(await fields({ size: 'l' })).toEqual([]);
    expect(await fields({ gift: 'yes' })).toEqual(['one']);
    const encoded = await raw('GET', '/v0/orders/list', { headers: readHeaders(ws, TEST), query: `customFields=${encodeURIComponent('{"color":"red"}')}` });
    expect(encoded.body.data.orders.map((row: { id: string }) => row.id)).toEqual([o.one!.order.id]);
    for (const customFields of ['{size', '[]', '"L"', 'null', '{"size":{"a":1}}', '{"size":null}']) expect(await rejected({ customFields })).toBe(400);
  });

  test('statuses, types, disputed, valueFrom/valueTo, currency, country', async () => {
    expect(await names({ statuses: ['PAID'] })).toEqual(['five', 'four', 'three', 'one']);
    expect(await names({ statuses: ['FAILED', 'PENDING'] })).toEqual(['two']);
    expect(await names({ types: ['SUBSCRIPTION', 'FREE'] })).toEqual(['four', 'three']);
    expect(await names({ disputed: true })).toEqual(['five']);
    expect(await names({ disputed: false })).toEqual(['four', 'three', 'two', 'one']);
    expect(await names({ valueFrom: 1000, valueTo: 2000 })).toEqual(['five', 'one']);
    expect(await names({ valueFrom: 2001 })).toEqual(['two']);
    expect(await names({ valueTo: 0 })).toEqual(['four']);
    expect(await names({ currency: 'eur' })).toEqual(['two']);
    expect(await names({ country: 'de' })).toEqual(['three', 'two']);
    expect(await names({ currency: 'USD', country: 'US', statuses: ['PAID'] })).toEqual(['five', 'one']);
    expect(await names({ currency: 'USD', country: 'DE', statuses: ['PAID'] })).toEqual(['three']);
    for (const query of [{ currency: 'ZZZ' }, { country: 'QQ' }, { statuses: ['SHIPPED'] }, { types: ['RENTAL'] }] as unknown as ListQuery[]) expect(await rejected(query)).toBe(400);
  });

  test('createdFrom/createdTo take seconds or milliseconds, inclusive, over 0..9007199254740991', async () => {
    const seconds = (month: number) => Math.floor(at(month).getTime() / 1000);
    expect(await names({ createdFrom: seconds(2), createdTo: seconds(4) })).toEqual(['four', 'three', 'two']);
    expect(await names({ createdFrom: at(2).getTime(), createdTo: at(4).getTime() })).toEqual(['four', 'three', 'two']);
    expect(await names({ createdFrom: at(2).getTime() + 1, createdTo: at(4).getTime() - 1 })).toEqual(['three']);
    expect(await names({ createdFrom: 0, createdTo: Number.MAX_SAFE_INTEGER })).toHaveLength(5);
    expect(await names({ createdFrom: Number.MAX_SAFE_INTEGER })).toEqual([]);
    for (const value of ['-1', '9007199254740992', '1.5', 'soon']) {
      expect((await raw('GET', '/v0/orders/list', { headers: readHeaders(ws, TEST), query: `createdFrom=${value}` })).status).toBe(400);
    }
  });
});
