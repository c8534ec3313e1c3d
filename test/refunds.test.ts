import { randomUUID } from 'node:crypto';

import { startPayment } from '../src/payments/payment-flow.js';
import { refundOrder } from '../src/refunds/flow.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { createNotifications, type Notifications } from '../src/db/notifications.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { card, CARD_DECLINED, eventually, orderBody, payCheckout } from './support/checkout.js';
import { restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';
import {
  deliverSandboxWebhooks,
  getOrder,
  getPayment,
  AUTHENTICATE,
  paidOrder,
  REFUND_FAILS,
  refund,
  refundable,
  sellingElement,
  suiteTemporal,
  TEST,
  testHelper,
} from './support/refunds.js';

// PATCH /v0/orders/{orderIdOrNumber}/refund and GET .../refundable through the suite's server
// (real HTTP, PostgreSQL, the Temporal dev server and its in-process worker, the sandbox
// processor); every answer is checked against the OpenAPI document by the typed client.
// Fees: the suite runs with the default rule, 5% + 50: an order of 1000 pays 100, of which the
// percentage part (50) comes back proportionally and the fixed part (50) is kept.

const SLOW = 120_000;


let ws: Workspace;
let other: Workspace;
let element: string;
let temporal: TemporalConnection;
let notifications: Notifications;

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace('Refunds', ['testMode=true']), newWorkspace('Refunds elsewhere', ['testMode=true'])]);
  element = (await sellingElement(ws)).id;
  temporal = await suiteTemporal();
  notifications = createNotifications(process.env.DATABASE_URL!);
}, SLOW);

afterAll(async () => {
  await temporal?.stop();
  await notifications?.close();
});

const key = () => `refund-${randomUUID()}`;

describe('a refund, exact to the cent', () => {
  test('a full refund: the processor refunds it, payment and order REFUNDED, the fee adjusted, every unit refunded, payment_refunded once', async () => {
    const { order, payment } = await paidOrder(element, { quantity: 2 });
    expect(order).toMatchObject({ status: 'PAID', value: 2000, fee: 150 });
    const result = await ok(refund(ws, order.id, { idempotencyKey: key(), reason: 'requested_by_customer', metadata: { ticket: 42 } }));
    expect(result).toMatchObject({ object: 'refund', orderId: order.id, amount: 2000, currency: 'USD', status: 'succeeded', replayed: false, orderStatus: 'REFUNDED', feeRefunded: 100 });
    expect(result.metadata).toEqual({ ticket: 42 });
    expect(new Date(result.createdAt).toISOString()).toBe(result.createdAt);
    expect(result.payments).toEqual([expect.objectContaining({ paymentId: payment.id, amount: 2000, status: 'succeeded', processorRefundId: expect.stringMatching(/^re_sbx_/), feeRefunded: 100 })]);
    expect(result.workflowId).toMatch(new RegExp(`^refund/${ws.workspaceId}/${order.id}/key/refund-`));

    const shown = await getOrder(ws, order.id);
    expect(shown).toMatchObject({ status: 'REFUNDED', fee: 50 });
    // The answer (the workflow's result, not read again) is the refund as stored.
    expect(shown.refunds).toEqual([result]);
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'REFUNDED', refundedAmount: 2000, fee: 50 });
    const refunds = await salesDb().sandboxRefund.findMany({ where: { charge: { paymentId: payment.id } } });
    expect(refunds.map((r) => r.amount)).toEqual([2000]);
    const items = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
    expect(items.map((i) => [i.quantity, i.refundedQuantity])).toEqual([[2, 2]]);

    const events = await eventsAbout(ws, 'payment_refunded', 'payment', payment.id);
    expect(events).toHaveLength(1);
    const data = events[0]!.payload as Record<string, any>;
    expect(data.customer).toEqual(data.user);
    expect(data.user).toMatchObject({ object: 'user' });
    expect(data.refund).toMatchObject({ refundId: result.refundId, amount: 2000 });
    expect(data.payment).toMatchObject({ status: 'REFUNDED' });
  });

  test('partials add up to exactly one full refund: statuses, fee shares and the processor\'s sum', async () => {
    const { order, payment } = await paidOrder(element);
    const first = await ok(refund(ws, order.number, { amount: 333, idempotencyKey: key() }));
    expect(first).toMatchObject({ amount: 333, status: 'succeeded', orderStatus: 'PARTIALLY_REFUNDED', feeRefunded: 16 });
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: 333, fee: 84 });
    const second = await ok(refund(ws, `#${order.number}`, { amount: 333, idempotencyKey: key() }));
    expect(second).toMatchObject({ feeRefunded: 17, orderStatus: 'PARTIALLY_REFUNDED' });
    const rest = await ok(refund(ws, order.id, { idempotencyKey: key() }));
    expect(rest).toMatchObject({ amount: 334, feeRefunded: 17, orderStatus: 'REFUNDED' });
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'REFUNDED', refundedAmount: 1000, fee: 50 });
    const atProcessor = await salesDb().sandboxRefund.aggregate({ where: { charge: { paymentId: payment.id } }, _sum: { amount: true } });
    expect(atProcessor._sum.amount).toBe(1000);
    expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(3);
    const done = await failure(refund(ws, order.id, { amount: 1, idempotencyKey: key() }));
    expect(done).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/fully refunded/) } } });
  });

  test('units: items give back their units (worth their share of the line), more than left is 400, a full refund takes every unit', async () => {
    const { order } = await paidOrder(element, { quantity: 3 });
    const [item] = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
    const one = await ok(refund(ws, order.id, { items: [{ id: item!.id, quantity: 1 }], idempotencyKey: key() }));
    expect(one).toMatchObject({ amount: 1000, items: [{ id: item!.id, quantity: 1 }], orderStatus: 'PARTIALLY_REFUNDED' });
    const preview = await ok(refundable(ws, order.id));
    expect(preview.refundable.items).toEqual([{ id: item!.id, quantity: 3, refundedQuantity: 1, refundableQuantity: 2, amount: 2000 }]);
    const tooMany = await failure(refund(ws, order.id, { items: [{ id: item!.id, quantity: 3 }], idempotencyKey: key() }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/items\.0\.quantity: 3 units exceed the 2/);
    const notOnOrder = await failure(refund(ws, order.id, { items: [{ id: randomUUID(), quantity: 1 }], idempotencyKey: key() }));
    expect(notOnOrder.body.error.message).toMatch(/not a cart item of this order/);
    const rest = await ok(refund(ws, order.id, { idempotencyKey: key() }));
    expect(rest).toMatchObject({ amount: 2000, items: [{ id: item!.id, quantity: 2 }], orderStatus: 'REFUNDED' });
    expect((await salesDb().orderItem.findUniqueOrThrow({ where: { id: item!.id } })).refundedQuantity).toBe(3);
  });

  test('GET refundable is computed by the refund\'s own rules: the preview equals what a full refund then takes', async () => {
    const { order, payment } = await paidOrder(element);
    await ok(refund(ws, order.id, { amount: 250, idempotencyKey: key() }));
    const { refundable: preview } = await ok(refundable(ws, order.number));
    expect(preview).toMatchObject({ object: 'refundable', orderId: order.id, currency: 'USD', amount: 750, fee: 38, reason: null, disputeBlocked: false });
    expect(preview.payments).toEqual([{ paymentId: payment.id, number: order.number, amount: 750, fee: 38, blockedBy: null }]);
    const rest = await ok(refund(ws, order.id, { idempotencyKey: key() }));
    expect(rest).toMatchObject({ amount: preview.amount, feeRefunded: preview.fee });
    const after = await ok(refundable(ws, order.id));
    expect(after.refundable).toMatchObject({ amount: 0, fee: 0, reason: expect.stringMatching(/fully refunded/) });
  });
});

describe('rules', () => {
  test('403 while refunds are off for the workspace; 404 for an unknown order or one of another workspace', async () => {
    const off = await newWorkspace('Refunds off', ['testMode=true', 'refundsEnabled=false']);
    const { order } = await paidOrder((await sellingElement(off)).id);
    expect(await failure(refund(off, order.id, { idempotencyKey: key() }))).toEqual({ status: 403, body: { status: 'error', error: { message: expect.stringMatching(/not enabled/) } } });
    await setWorkspace(off.workspaceId, 'refundsEnabled=true');
    await ok(refund(off, order.id, { amount: 1, idempotencyKey: key() }));

    expect((await failure(refund(ws, randomUUID(), { idempotencyKey: key() }))).status).toBe(404);
    expect((await failure(refund(other, order.id, { idempotencyKey: key() }))).status).toBe(404);
    expect((await failure(refund(other, order.number))).status).toBe(404);
    expect((await failure(refundable(other, order.id))).status).toBe(404);
    // Live keys see live data only.
    expect((await failure(refund(off, order.id, { idempotencyKey: key() }, { mode: 'live' }))).status).toBe(404);
    expect(await salesDb().refund.count({ where: { orderId: order.id } })).toBe(1);
  });

  test('400 for an amount that is not a positive integer or exceeds what is refundable, and for a bad key; nothing is written', async () => {
    const { order } = await paidOrder(element);
    for (const amount of [0, -5]) {
      const answer = await failure(refund(ws, order.id, { amount, idempotencyKey: key() }));
      expect(answer).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/amount must be a positive integer/) } } });
    }
    const fraction = await raw('PATCH', `/v0/orders/${order.id}/refund`, { headers: keyHeaders(ws, TEST), body: JSON.stringify({ amount: 1.5 }) });
    expect(fraction.status).toBe(400);
    const text = await raw('PATCH', `/v0/orders/${order.id}/refund`, { headers: keyHeaders(ws, TEST), body: JSON.stringify({ amount: '100' }) });
    expect(text.status).toBe(400);
    const tooMuch = await failure(refund(ws, order.id, { amount: 1001, idempotencyKey: key() }));
    expect(tooMuch.body.error.message).toBe('amount 1001 exceeds the 1000 still refundable on this order');
    expect((await failure(refund(ws, order.id, { amount: 1, idempotencyKey: '' }))).body.error.message).toMatch(/idempotencyKey must have 1 to 255/);
    expect((await failure(refund(ws, order.id, { amount: 1, idempotencyKey: 'k'.repeat(256) }))).status).toBe(400);
    expect((await failure(refund(ws, order.id, { amount: 1, metadata: [1, 2] }))).body.error.message).toMatch(/metadata must be a JSON object/);
    expect(await salesDb().refund.count({ where: { orderId: order.id } })).toBe(0);
    expect(await getOrder(ws, order.id)).toMatchObject({ status: 'PAID', fee: 100 });
  });

  test('400 when nothing is refundable, saying which: a pending payment, a failed one, the manual method', async () => {
    // A 3-D Secure card's payment waits for the buyer (PENDING); a declined card's is FAILED (402, its order found by the buyer's email).
    const pending = await paidOrder(element, { number: AUTHENTICATE });
    expect(pending.payment.status).toBe('PENDING');
    expect((await failure(refund(ws, pending.order.id, { idempotencyKey: key() }))).body.error.message).toMatch(/payment is PENDING/);
    const declinedBody = orderBody({ card: card(CARD_DECLINED) });
    expect((await payCheckout(element, declinedBody)).status).toBe(402);
    const [declined] = (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/orders/list', { params: { query: { term: declinedBody.email } } }))).orders;
    expect(declined!.lastPayment).toMatchObject({ status: 'FAILED' });
    expect((await failure(refund(ws, declined!.id, { idempotencyKey: key() }))).body.error.message).toMatch(/payment is FAILED/);

    const { order, payment } = await paidOrder(element, { method: 'manual' });
    expect(payment.status).toBe('PENDING');
    await ok(testHelper(ws, 'settle', payment.id));
    const manual = await failure(refund(ws, order.id, { idempotencyKey: key() }));
    expect(manual).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/bank transfer \(the manual method\)/) } } });
    expect((await ok(refundable(ws, order.id))).refundable).toMatchObject({ amount: 0, payments: [expect.objectContaining({ blockedBy: 'manual_method' })] });
  });

  test('eligibility comes from the payments, not the order status PATCH update can overwrite', async () => {
    const { order } = await paidOrder(element);
    await ok(restClient(ws, TEST).PATCH('/v0/orders/{orderIdOrNumber}/update', { params: { path: { orderIdOrNumber: order.id } }, body: { status: 'REFUNDED' } }));
    const result = await ok(refund(ws, order.id, { amount: 100, idempotencyKey: key() }));
    expect(result).toMatchObject({ status: 'succeeded', orderStatus: 'PARTIALLY_REFUNDED' });
  });

  test('disputes: 400 while open and once lost; 503 when the live dispute check fails (retryable)', async () => {
    const { order, payment } = await paidOrder(element);
    await ok(testHelper(ws, 'dispute', payment.id));
    const open = await failure(refund(ws, order.id, { idempotencyKey: key() }));
    expect(open.status).toBe(400);
    expect(open.body.error.message).toMatch(/dispute is still open/);
    expect((await ok(refundable(ws, order.id))).refundable).toMatchObject({ amount: 0, disputeBlocked: true });
    await ok(testHelper(ws, 'lose-dispute', payment.id));
    expect((await failure(refund(ws, order.id, { idempotencyKey: key() }))).body.error.message).toMatch(/dispute was lost/);
    await ok(testHelper(ws, 'fail-dispute-check', payment.id));
    const unavailable = await failure(refund(ws, order.id, { idempotencyKey: key() }));
    expect(unavailable).toEqual({ status: 503, body: { status: 'error', error: { message: expect.stringMatching(/live check of the disputed charge failed/) } } });
    expect((await failure(refundable(ws, order.id))).status).toBe(503);
    expect(await salesDb().refund.count({ where: { orderId: order.id } })).toBe(0);
  });
});

describe('idempotency', () => {
  test('the same key returns the original refund (replayed, no status change, no event); another body with it is 400', async () => {
    const { order, payment } = await paidOrder(element);
    const k = key();
    const first = await ok(refund(ws, order.id, { amount: 200, idempotencyKey: k, reason: 'duplicate' }));
    const again = await ok(refund(ws, order.id, { amount: 200, idempotencyKey: k, reason: 'duplicate' }));
    expect(again).toEqual({ ...first, replayed: true });
    expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(1);
    expect(await getPayment(ws, payment.id)).toMatchObject({ refundedAmount: 200 });
    const otherBody = await failure(refund(ws, order.id, { amount: 300, idempotencyKey: k, reason: 'duplicate' }));
    expect(otherBody.body.error.message).toMatch(/different request body/);
  });

  test('a repeated key a fresh eligibility check rejects is 400: a full refund, an exhausting partial, more than refundable now', async () => {
    const full = await paidOrder(element);
    const fullKey = key();
    await ok(refund(ws, full.order.id, { idempotencyKey: fullKey }));
    expect((await failure(refund(ws, full.order.id, { idempotencyKey: fullKey }))).body.error.message).toMatch(/full refund/);

    const exhausting = await paidOrder(element);
    const exhaustingKey = key();
    await ok(refund(ws, exhausting.order.id, { amount: 1000, idempotencyKey: exhaustingKey }));
    expect((await failure(refund(ws, exhausting.order.id, { amount: 1000, idempotencyKey: exhaustingKey }))).body.error.message).toMatch(/exhausted the order/);

    const partial = await paidOrder(element);
    const bigKey = key();
    await ok(refund(ws, partial.order.id, { amount: 600, idempotencyKey: bigKey }));
    await ok(refund(ws, partial.order.id, { amount: 300, idempotencyKey: key() }));
    expect((await failure(refund(ws, partial.order.id, { amount: 600, idempotencyKey: bigKey }))).body.error.message).toMatch(/more than the 100 still refundable/);
    expect(await salesDb().refund.count({ where: { orderId: partial.order.id } })).toBe(2);
  });

  test('derived dedup: an identical body without a key returns the first refund; another reason or metadata is a deliberate second one', async () => {
    const { order } = await paidOrder(element);
    const first = await ok(refund(ws, order.id, { amount: 100, reason: 'damaged', metadata: { a: 1, b: 2 } }));
    const same = await ok(refund(ws, order.id, { amount: 100, reason: 'damaged', metadata: { b: 2, a: 1 } }));
    expect(same).toMatchObject({ refundId: first.refundId, replayed: true });
    expect(first.workflowId).toMatch(new RegExp(`^refund/${ws.workspaceId}/${order.id}/body/[0-9a-f]{32}/\\d+$`));
    const otherReason = await ok(refund(ws, order.id, { amount: 100, reason: 'late', metadata: { a: 1, b: 2 } }));
    const otherMetadata = await ok(refund(ws, order.id, { amount: 100, reason: 'damaged', metadata: { a: 1 } }));
    expect(new Set([first.refundId, otherReason.refundId, otherMetadata.refundId]).size).toBe(3);
    expect(otherReason.replayed || otherMetadata.replayed).toBe(false);
    expect((await ok(refundable(ws, order.id))).refundable.amount).toBe(700);
  });

  test('derived dedup with the injected clock: within 23 hours the first refund, after them a new one', async () => {
    const { order } = await paidOrder(element);
    const start = new Date();
    const at = (ms: number) => ({ prisma: salesDb(), processor: new SandboxProcessor({ prisma: salesDb() }), temporal, notifications, now: () => new Date(start.getTime() + ms) });
    const scope = { workspaceId: ws.workspaceId, livemode: false };
    const body = { amount: 100, reason: 'clock' };
    const first = await refundOrder(at(0), scope, { refundsEnabled: true }, order.id, body);
    const within = await refundOrder(at(23 * 3600_000 - 60_000), scope, { refundsEnabled: true }, order.id, body);
    expect(within).toMatchObject({ refundId: first.refundId, replayed: true });
    const after = await refundOrder(at(23 * 3600_000 + 60_000), scope, { refundsEnabled: true }, order.id, body);
    expect(after).toMatchObject({ replayed: false, status: 'succeeded' });
    expect(after.refundId).not.toBe(first.refundId);
    expect(after.workflowId).not.toBe(first.workflowId);
  });
});

describe('refunds the processor fails later', () => {
  test('the refund-failing card: pending at once, failed when its webhook arrives; the money is refundable again, refund_failed recorded, shown on the order', async () => {
    const { order, payment } = await paidOrder(element, { number: REFUND_FAILS });
    const pending = await ok(refund(ws, order.id, { amount: 400, idempotencyKey: key() }));
    expect(pending).toMatchObject({ status: 'pending', orderStatus: 'PAID', amount: 400 });
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'PAID', refundedAmount: 400 });
    expect((await ok(refundable(ws, order.id))).refundable.amount).toBe(600);

    const { processorChargeId } = await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } });
    expect(await deliverSandboxWebhooks([processorChargeId!])).toBeGreaterThan(0);
    const shown = await getOrder(ws, order.id);
    expect(shown.refunds).toEqual([expect.objectContaining({ refundId: pending.refundId, status: 'failed', failureCode: 'expired_or_canceled_card' })]);
    expect(shown).toMatchObject({ status: 'PAID', fee: 100 });
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'PAID', refundedAmount: 0 });
    expect((await ok(refundable(ws, order.id))).refundable.amount).toBe(1000);
    const failed = await eventsAbout(ws, 'refund_failed', 'payment', payment.id);
    expect(failed).toHaveLength(1);
    expect((failed[0]!.payload as Record<string, any>).refund).toMatchObject({ refundId: pending.refundId, status: 'failed' });
    // Delivered again (at least once): nothing changes twice.
    await salesDb().sandboxEvent.updateMany({ where: { chargeId: processorChargeId! }, data: { acknowledgedAt: null } });
    expect(await deliverSandboxWebhooks([processorChargeId!])).toBeGreaterThan(0);
    expect(await eventsAbout(ws, 'refund_failed', 'payment', payment.id)).toHaveLength(1);
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'PAID', refundedAmount: 0, fee: 100 });
  });

  test('the settling limit: refunds pending at the processor limit new ones (400) until they settle, then it clears on its own', async () => {
    const limited = await newWorkspace('Refunds settling', ['testMode=true']);
    const { order, payment } = await paidOrder((await sellingElement(limited)).id, { number: REFUND_FAILS });
    for (let i = 0; i < 10; i++) expect(await ok(refund(limited, order.id, { amount: 10, idempotencyKey: `settling-${i}` }))).toMatchObject({ status: 'pending' });
    const refused = await failure(refund(limited, order.id, { amount: 10, idempotencyKey: 'settling-10' }));
    expect(refused).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/temporarily limited: 10 earlier refunds are still settling/) } } });
    const { processorChargeId } = await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } });
    await deliverSandboxWebhooks([processorChargeId!]);
    expect(await ok(refund(limited, order.id, { amount: 10, idempotencyKey: 'settling-10' }))).toMatchObject({ status: 'pending', replayed: false });
    // Its failure too, as the relay would deliver it: the books end agreeing with the processor's (test/support/invariants.ts).
    await eventually(() => salesDb().sandboxRefund.count({ where: { chargeId: processorChargeId! } }), (n) => n === 11);
    await deliverSandboxWebhooks([processorChargeId!]);
  });
});

describe('GraphQL', () => {
  test('refundOrder and orderRefundable answer as the REST routes do', async () => {
    const { order } = await paidOrder(element);
    const post = (query: string, variables: object) =>
      fetch(`${process.env.TEST_BASE_URL}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders(ws, TEST) }, body: JSON.stringify({ query, variables }) }).then((r) => r.json() as Promise<any>);
    const refunded = await post('mutation ($id: String!, $k: String) { refundOrder(orderIdOrNumber: $id, amount: 150, idempotencyKey: $k) { refundId amount status replayed orderStatus } }', { id: order.id, k: key() });
    expect(refunded.data.refundOrder).toMatchObject({ amount: 150, status: 'succeeded', replayed: false, orderStatus: 'PARTIALLY_REFUNDED' });
    const left = await post('query ($id: String!) { orderRefundable(orderIdOrNumber: $id) { refundable { amount fee } } }', { id: order.id });
    expect(left.data.orderRefundable.refundable).toEqual({ amount: 850, fee: 43 });
    const tooMuch = await post('mutation ($id: String!) { refundOrder(orderIdOrNumber: $id, amount: 5000) { refundId } }', { id: order.id });
    expect(tooMuch.errors[0]).toMatchObject({ message: 'amount 5000 exceeds the 850 still refundable on this order', extensions: { code: 'BAD_REQUEST' } });
  });
});

describe('no money stranded', () => {
  test('a success after the payment EXPIRED is refunded automatically (expired_payment), shown on the order, reported by payment_refunded', async () => {
    const { order, payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } }, TEST);
    await startPayment(salesDb(), temporal, new SandboxProcessor({ prisma: salesDb() }), { paymentId: payment.id, expireAfterMs: 500 });
    expect((await eventually(() => getPayment(ws, payment.id), (p) => p.status === 'EXPIRED')).status).toBe('EXPIRED');
    // The PayPal approval arrives late: the processor took the money.
    await ok(testHelper(ws, 'settle', payment.id));
    const refunded = await eventually(() => salesDb().refund.findFirst({ where: { orderId: order.id } }), (r) => r?.status === 'succeeded');
    expect(refunded).toMatchObject({ source: 'expired_payment', reason: 'expired_payment', amount: 1000, status: 'succeeded' });
    const atProcessor = await salesDb().sandboxRefund.findMany({ where: { charge: { paymentId: payment.id } } });
    expect(atProcessor.map((r) => [r.amount, r.status])).toEqual([[1000, 'succeeded']]);
    const shown = await getOrder(ws, order.id);
    expect(shown.status).toBe('EXPIRED');
    expect(shown.refunds).toEqual([expect.objectContaining({ source: 'expired_payment', status: 'succeeded', amount: 1000 })]);
    expect(await getPayment(ws, payment.id)).toMatchObject({ status: 'EXPIRED', refundedAmount: 0 });
    const events = await eventsAbout(ws, 'payment_refunded', 'payment', payment.id);
    expect(events).toHaveLength(1);
    expect((events[0]!.payload as Record<string, any>).refund).toMatchObject({ source: 'expired_payment', amount: 1000 });
  });
});
