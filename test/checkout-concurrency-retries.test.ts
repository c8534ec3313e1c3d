import { randomUUID } from 'node:crypto';
import { baseUrl, newWorkspace, type ApiResponse, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import {
  CARD_DECLINED,
  card,
  chargesOf,
  processorChargesOf,
  checkoutPath,
  newCheckout,
  offerOf,
  orderBody,
  ordersOfCheckout,
  payCheckout,
  tally } from './support/checkout.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { SLOW, READ, inParallel, statusesOf, settledOrders } from './support/checkout-concurrency-suite.js';

describe('checkout under load: retries with an Idempotency-Key', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Checkout load: idempotency');
  });

  test('the same key sent 10 times at once: one order, one payment, one charge; every answer names the same order', async () => {
    const { element } = await newCheckout(ws, { price: 1200 });
    const key = `retry-${randomUUID()}`;
    const body = orderBody();
    const answers = await inParallel(element.id, Array.from({ length: 10 }, () => body), key);

    expect(statusesOf(answers)).toEqual({ 200: 10 });
    const orderIds = new Set(answers.map((a) => a.body.data.order.id));
    const paymentIds = new Set(answers.map((a) => a.body.data.payment.id));
    expect(orderIds.size).toBe(1);
    expect(paymentIds.size).toBe(1);
    const [orderId] = orderIds;
    const [paymentId] = paymentIds;

    const { orders, count } = await settledOrders(ws, element.id, 1);
    expect(count).toBe(1);
    expect(orders[0]).toMatchObject({ id: orderId, status: 'PAID' });
    expect(await chargesOf(paymentId!)).toHaveLength(1);
    expect(await processorChargesOf([paymentId!])).toHaveLength(1);
    const { payment } = await ok(restClient(ws, READ).GET('/v0/payments/{paymentId}', { params: { path: { paymentId: paymentId! } } }));
    expect(payment.charges).toHaveLength(1);
    expect(await tally([ws.workspaceId])).toMatchObject({ orders: 1, payments: 1, charges: 1, users: 1 });

    // A retry after the first completed: the same order (now paid), nothing new.
    const later = await payCheckout(element.id, body, key);
    expect(later.status).toBe(200);
    expect(later.body.data.order.id).toBe(orderId);
    expect(later.body.data.payment.id).toBe(paymentId);
    // The same key with another body is refused and writes nothing.
    const before = await tally([ws.workspaceId]);
    const changed = await payCheckout(element.id, { ...body, quantity: 2 }, key);
    expect(changed.status).toBe(400);
    expect(await tally([ws.workspaceId])).toEqual(before);
    // Another key is another checkout.
    expect((await payCheckout(element.id, body, `retry-${randomUUID()}`)).status).toBe(200);
    expect((await ordersOfCheckout(ws, element.id)).count).toBe(2);
    // The same key on another element is that element's own.
    const another = await newCheckout(ws, { price: 1200 });
    const elsewhere = await payCheckout(another.element.id, body, key);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.order.id).not.toBe(orderId);
  }, SLOW);

  test('the same key sent 10 times at once, three rounds on fresh elements: always one order and one charge at the processor', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { element } = await newCheckout(ws, { price: 1100 + round });
      const key = `round-${round}-${randomUUID()}`;
      const body = orderBody();
      const answers = await inParallel(element.id, Array.from({ length: 10 }, () => body), key);
      expect({ round, statuses: statusesOf(answers) }).toEqual({ round, statuses: { 200: 10 } });
      const paymentIds = [...new Set(answers.map((a) => a.body.data.payment.id as string))];
      expect({ round, orders: new Set(answers.map((a) => a.body.data.order.id)).size, payments: paymentIds.length }).toEqual({ round, orders: 1, payments: 1 });
      expect({ round, charges: (await chargesOf(paymentIds[0]!)).length, atProcessor: (await processorChargesOf(paymentIds)).length }).toEqual({ round, charges: 1, atProcessor: 1 });
    }
  }, SLOW);

  test('one key with two different bodies at once: one order and one charge; the other body is refused (400)', async () => {
    const { element } = await newCheckout(ws, { price: 900 });
    const key = `race-${randomUUID()}`;
    const [bodyA, bodyB] = [orderBody(), orderBody({ quantity: 2 })];
    const answers = await inParallel(element.id, Array.from({ length: 10 }, (_, i) => (i % 2 ? bodyA : bodyB)), key);
    const accepted = answers.filter((a) => a.status === 200);
    expect(answers.every((a) => a.status === 200 || a.status === 400)).toBe(true);
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((a) => a.body.data.order.id)).size).toBe(1);
    // Every accepted answer sent the winning body: it names one order, with that body's quantity.
    expect(new Set(accepted.map((a) => a.body.data.order.totalItems)).size).toBe(1);
    const { count, orders } = await settledOrders(ws, element.id, 1);
    expect(count).toBe(1);
    expect(await processorChargesOf([orders[0]!.lastPaymentId!])).toHaveLength(1);
    const written = await tally([ws.workspaceId]);
    expect(written.orders).toBe(written.payments);
  }, SLOW);

  test('a client that timed out and retried with its key: one order and one charge, whether or not the first request got through', async () => {
    const { element } = await newCheckout(ws, { price: 700 });
    const key = `timeout-${randomUUID()}`;
    const body = orderBody();
    // The first attempt gives up almost at once, as a client with a short timeout would.
    await fetch(`${baseUrl()}${checkoutPath(element.id, 'orders')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5),
    }).catch(() => undefined);
    const retries: ApiResponse[] = [];
    for (let i = 0; i < 3; i += 1) retries.push(await payCheckout(element.id, body, key));
    expect(statusesOf(retries)).toEqual({ 200: 3 });
    expect(new Set(retries.map((r) => r.body.data.order.id)).size).toBe(1);
    const { orders, count } = await settledOrders(ws, element.id, 1);
    expect(count).toBe(1);
    expect(orders[0]!.status).toBe('PAID');
    expect(await chargesOf(orders[0]!.lastPaymentId!)).toHaveLength(1);
    expect(await processorChargesOf([orders[0]!.lastPaymentId!])).toHaveLength(1);
  }, SLOW);

  test('a declined checkout retried with its key answers 402 again without a second order or charge', async () => {
    const { element, offer } = await newCheckout(ws, { price: 800, limit: 5 });
    const key = `declined-${randomUUID()}`;
    const body = orderBody({ card: card(CARD_DECLINED) });
    const answers = await inParallel(element.id, Array.from({ length: 5 }, () => body), key);
    expect(statusesOf(answers)).toEqual({ 402: 5 });
    expect((await payCheckout(element.id, body, key)).status).toBe(402);
    const { orders, count } = await ordersOfCheckout(ws, element.id);
    expect(count).toBe(1);
    expect(orders[0]!.status).toBe('FAILED');
    expect(await chargesOf(orders[0]!.lastPaymentId!)).toHaveLength(1);
    expect(await processorChargesOf([orders[0]!.lastPaymentId!])).toHaveLength(1);
    expect((await offerOf(ws, offer.id)).soldItems).toBe(0);
  }, SLOW);
});

describe('checkout under load: two workspaces side by side, live and test', () => {
  test("concurrent checkouts in both workspaces and both modes never see each other's records", async () => {
    const [a, b] = await Promise.all([newWorkspace('Checkout load: A', ['testMode=true']), newWorkspace('Checkout load: B', ['testMode=true'])]);
    const email = `shared-${randomUUID()}@example.com`;
    const scopes = [
      { name: 'A live', ws: a, key: { mode: 'live' } as const },
      { name: 'A test', ws: a, key: { mode: 'test' } as const },
      { name: 'B live', ws: b, key: { mode: 'live' } as const },
      { name: 'B test', ws: b, key: { mode: 'test' } as const },
    ];
    const elements = await Promise.all(scopes.map((scope) => newCheckout(scope.ws, { price: 1000, limit: 3, key: scope.key })));
    // Five checkouts per element (limit 3), all four elements at once, all by one buyer email:
    // the buyer is created once per workspace and mode, however the requests race.
    const answers = await Promise.all(elements.map((e) => inParallel(e.element.id, Array.from({ length: 5 }, (_, i) => orderBody({ email: i % 2 ? email : email.toUpperCase() })))));
    for (const each of answers) expect(statusesOf(each)).toEqual({ 200: 3, 400: 2 });

    for (const [i, scope] of scopes.entries()) {
      const mine = answers[i]!.filter((x) => x.status === 200).map((x) => x.body.data);
      for (const { order, payment } of mine) {
        expect(order.checkoutId).toBe(elements[i]!.element.id);
        const stored = await salesDb().order.findUniqueOrThrow({ where: { id: order.id } });
        expect({ scope: scope.name, workspaceId: stored.workspaceId, livemode: stored.livemode }).toEqual({ scope: scope.name, workspaceId: scope.ws.workspaceId, livemode: scope.key.mode === 'live' });
        for (const [j, other] of scopes.entries()) {
          const getOrder = restClient(other.ws, { ...other.key, write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: order.id } } });
          const getPayment = restClient(other.ws, { ...other.key, write: false }).GET('/v0/payments/{paymentId}', { params: { path: { paymentId: payment.id } } });
          const byNumber = restClient(other.ws, { ...other.key, write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: order.number } } });
          const seen = [(await getOrder).response.status, (await getPayment).response.status, (await byNumber).response.status];
          expect({ from: scope.name, seenBy: other.name, seen }).toEqual({ from: scope.name, seenBy: other.name, seen: i === j ? [200, 200, 200] : [404, 404, 404] });
        }
      }
      // Lists: another scope asking for this element's orders finds none.
      for (const [j, other] of scopes.entries()) {
        const { count } = await ordersOfCheckout(other.ws, elements[i]!.element.id, other.key);
        expect({ element: scope.name, listedBy: other.name, count }).toEqual({ element: scope.name, listedBy: other.name, count: i === j ? 3 : 0 });
      }
      // The shared email is one buyer per workspace and mode.
      const { users } = await ok(restClient(scope.ws, { ...scope.key, write: false }).GET('/v0/users/list', { params: { query: { email } } }));
      expect(users).toHaveLength(1);
      expect(answers[i]!.filter((x) => x.status === 200).map((x) => x.body.data.order.userId)).toEqual(Array(3).fill(users[0]!.id));
    }
    const buyers = await salesDb().user.findMany({ where: { emailNormalized: email } });
    expect(buyers.map((u) => `${u.workspaceId === a.workspaceId ? 'A' : 'B'} ${u.livemode ? 'live' : 'test'}`).sort()).toEqual(['A live', 'A test', 'B live', 'B test']);
    // Test-mode checkouts recorded test-mode events only.
    for (const scope of scopes) {
      const events = await salesDb().event.findMany({ where: { workspaceId: scope.ws.workspaceId, type: 'order_created' } });
      const ids = new Set(answers[scopes.indexOf(scope)]!.filter((x) => x.status === 200).map((x) => x.body.data.order.id));
      const mine = events.filter((event) => ids.has((event.payload as { order?: { id?: string } }).order?.id ?? ''));
      expect(mine.map((event) => event.livemode)).toEqual(Array(3).fill(scope.key.mode === 'live'));
    }
    // An element id is public but its records are not: the test element's order through live keys of its own workspace is 404.
    const testOrder = answers[1]!.find((x) => x.status === 200)!.body.data.order;
    expect((await failure(restClient(a, READ).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: testOrder.id } } }))).status).toBe(404);
  }, SLOW);
});
