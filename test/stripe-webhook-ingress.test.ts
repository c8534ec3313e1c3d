import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';

import { StripeProcessor } from '../src/payments/processors/stripe.js';
import { markPaymentPaid, recordCharge } from '../src/payments/transitions.js';
import { applyPartOutcome } from '../src/refunds/bookkeeping.js';
import { requestRefund } from '../src/refunds/service.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { getOrder, TEST } from './support/refunds.js';
import { eventsAbout, salesDb, scopeOf, seedOrder } from './support/sales.js';

// POST /processor-webhooks/stripe on a server whose processor is Stripe, on the suite's database:
// events signed as Stripe signs them (the signature is all the endpoint checks), so no Stripe and
// no stripe-mock are needed. A refund Stripe answered `pending` settles through the refund's own
// events (current API versions' charge.refunded lists no refunds), and events about payments that
// are not ours (another system on the same Stripe account) are answered 200, logged and counted.

const WEBHOOK_SECRET = 'whsec_ingress_test';
const SLOW = 120_000;

let server: ServerProcess;
let ws: Workspace;

beforeAll(async () => {
  server = await startServerProcess({
    DATABASE_URL: process.env.DATABASE_URL!,
    ...httpOnlyEnv(),
    PAYMENT_PROCESSOR: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_ingress',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    // Never called: verifying a webhook is local.
    STRIPE_API_BASE: 'http://127.0.0.1:9',
  });
  ws = await newWorkspace('Stripe webhook ingress', ['testMode=true']);
}, SLOW);

afterAll(async () => {
  await server?.stop();
});

/** Posts `object` as the event Stripe would send; returns the status and the envelope. */
async function deliver(type: string, object: Record<string, unknown>) {
  const payload = JSON.stringify({ id: `evt_${randomUUID().replace(/-/g, '')}`, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
  const response = await fetch(`${server.url}/processor-webhooks/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
    body: payload,
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const intentId = () => `pi_${randomUUID().replace(/-/g, '')}`;

/** A PAID Stripe card payment of 1000 (test mode) whose charge is a new PaymentIntent. */
async function paidStripePayment() {
  const chargeId = intentId();
  const { order, payment } = await seedOrder(ws, { payment: { processor: 'stripe', methodType: 'card' } }, TEST);
  await salesDb().$transaction(async (tx) => {
    await recordCharge(tx, payment.id, 0, { processor: 'stripe', processorChargeId: chargeId, status: 'succeeded', amount: 1000, currency: 'USD' });
    await markPaymentPaid(tx, payment.id, { processorChargeId: chargeId });
  });
  return { order, payment, chargeId };
}

/** A refund of the order recorded as the request records it; its workflow is not started (the test answers for Stripe). */
async function recordedRefund(orderId: string, amount: number) {
  const deps = { prisma: salesDb(), processor: new StripeProcessor({ secretKey: 'sk_test_ingress', webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:9' }), now: () => new Date() };
  return (await requestRefund(deps, scopeOf(ws, TEST), { refundsEnabled: true }, orderId, { amount, idempotencyKey: randomUUID() })).refund;
}

const refundObject = (fields: { id: string; chargeId: string; amount: number; status: string; refundId: string; paymentId: string; failure_reason?: string }) => ({
  id: fields.id,
  object: 'refund',
  payment_intent: fields.chargeId,
  amount: fields.amount,
  currency: 'usd',
  status: fields.status,
  failure_reason: fields.failure_reason ?? null,
  metadata: { refundId: fields.refundId, paymentId: fields.paymentId },
});

test('refunds Stripe answered pending settle through refund.updated, refund.created and refund.failed', async () => {
  const { order, payment, chargeId } = await paidStripePayment();

  // Stripe answered pending (the activity recorded its refund id); refund.updated says it succeeded.
  const settling = await recordedRefund(order.id, 300);
  await applyPartOutcome(salesDb(), settling.parts[0]!.id, { processorRefundId: 're_settles', status: 'pending' });
  expect((await getOrder(ws, order.id)).refunds).toEqual([expect.objectContaining({ refundId: settling.id, status: 'pending' })]);
  const updated = refundObject({ id: 're_settles', chargeId, amount: 300, status: 'succeeded', refundId: settling.id, paymentId: payment.id });
  expect(await deliver('refund.updated', updated)).toMatchObject({ status: 200 });
  // A redelivery changes nothing.
  expect(await deliver('refund.updated', updated)).toMatchObject({ status: 200 });

  // Stripe's refund.created (succeeded at once) arrives before the activity recorded the answer: our ids in its metadata find the part.
  const early = await recordedRefund(order.id, 400);
  const created = refundObject({ id: `re_${randomUUID().slice(0, 8)}`, chargeId, amount: 400, status: 'succeeded', refundId: early.id, paymentId: payment.id });
  expect(await deliver('refund.created', created)).toMatchObject({ status: 200 });

  // A pending refund that fails later: the money comes back.
  const failing = await recordedRefund(order.id, 100);
  expect(await deliver('refund.created', refundObject({ id: 're_fails', chargeId, amount: 100, status: 'pending', refundId: failing.id, paymentId: payment.id }))).toMatchObject({ status: 200 });
  await applyPartOutcome(salesDb(), failing.parts[0]!.id, { processorRefundId: 're_fails', status: 'pending' });
  expect(await deliver('refund.failed', refundObject({ id: 're_fails', chargeId, amount: 100, status: 'failed', failure_reason: 'expired_or_canceled_card', refundId: failing.id, paymentId: payment.id }))).toMatchObject({ status: 200 });

  const after = await getOrder(ws, order.id);
  expect(after.refunds.map((r) => [r.refundId, r.status])).toEqual([
    [settling.id, 'succeeded'],
    [early.id, 'succeeded'],
    [failing.id, 'failed'],
  ]);
  expect(after.status).toBe('PARTIALLY_REFUNDED');
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: 700 });
  expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(2);
  expect(await eventsAbout(ws, 'refund_failed', 'payment', payment.id)).toHaveLength(1);
}, SLOW);

test('events about payments that are not ours are answered 200, logged and counted, and change nothing', async () => {
  const { order, payment, chargeId } = await paidStripePayment();
  const foreignIntent = intentId();
  const intent = (paymentId: string) => ({ id: foreignIntent, object: 'payment_intent', amount: 5000, amount_received: 5000, currency: 'usd', metadata: { paymentId }, last_payment_error: null });
  const foreign = [
    // Another deployment's payment id, and another system's id that is no id of ours at all.
    ['payment_intent.succeeded', intent(randomUUID())],
    ['payment_intent.succeeded', intent('order_8812')],
    ['payment_intent.payment_failed', intent(randomUUID())],
    ['refund.updated', refundObject({ id: 're_foreign', chargeId: foreignIntent, amount: 100, status: 'succeeded', refundId: randomUUID(), paymentId: randomUUID() })],
    ['charge.dispute.created', { id: 'dp_foreign', object: 'dispute', payment_intent: foreignIntent, amount: 5000, reason: 'fraudulent', status: 'needs_response' }],
  ] as const;
  for (const [type, object] of foreign) expect({ type, ...(await deliver(type, object)) }).toEqual({ type, status: 200, body: { status: 'success', data: { received: 1 } } });

  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const counted = (type: string) => Number(new RegExp(`^processor_events_foreign_total\\{processor="stripe",type="${type.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
  expect([counted('charge.succeeded'), counted('charge.failed'), counted('charge.refunded'), counted('charge.disputed')]).toEqual([2, 1, 1, 1]);
  expect(server.output()).toMatch(/processor event about no payment of ours/);
  // Our own payment is untouched, and our charge's events still reach it.
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'PAID', disputed: false });
  expect(await deliver('charge.dispute.created', { id: 'dp_ours', object: 'dispute', payment_intent: chargeId, amount: 1000, reason: 'fraudulent', status: 'needs_response' })).toMatchObject({ status: 200 });
  expect(await getOrder(ws, order.id)).toMatchObject({ disputed: true });
}, SLOW);
