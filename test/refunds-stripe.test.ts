import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';

import '../src/refunds/module.js';
import { handleProcessorEvents } from '../src/payments/processor-callbacks.js';
import { StripeProcessor } from '../src/payments/processors/stripe.js';
import { markPaymentPaid, recordCharge } from '../src/payments/transitions.js';
import { applyPartOutcome } from '../src/refunds/bookkeeping.js';
import { requestRefund } from '../src/refunds/service.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';
import { suiteTemporal } from './support/refunds.js';
import { STRIPE_MOCK_PROVISION_TIMEOUT_MS, findOrProvisionStripeMock, startStripeMock, type StripeMock } from './support/stripe-mock.js';

// Stripe's events carry no metadata we set on disputes (and on objects made elsewhere): they are
// mapped to our payment by the processor's charge id, and refund events to our refund by the
// processor's refund id. The objects are stripe-mock's own fixtures (answers generated from
// Stripe's OpenAPI document), pointed at our charge, signed as Stripe signs webhooks, parsed by
// the adapter and applied by the same handler as the webhook ingress, on the suite's database.

const KEY = 'sk_test_123';
const WEBHOOK_SECRET = 'whsec_refunds_secret';
const SLOW = 120_000;

const executable = await findOrProvisionStripeMock().catch(() => undefined);
const describeWithMock = executable ? describe : describe.skip;

let mock: StripeMock | undefined;
let stripe: StripeProcessor;
let temporal: TemporalConnection;
let ws: Workspace;

beforeAll(async () => {
  if (!executable) return;
  mock = await startStripeMock(executable);
  stripe = new StripeProcessor({ secretKey: KEY, webhookSecret: WEBHOOK_SECRET, apiBase: mock.url });
  temporal = await suiteTemporal();
  ws = await newWorkspace('Refunds on Stripe', ['testMode=true']);
}, STRIPE_MOCK_PROVISION_TIMEOUT_MS);
afterAll(async () => {
  await temporal?.stop();
  await mock?.stop();
});

/** A stripe-mock fixture object (GET /v1/<resource>/<id>). */
async function fixture(resource: 'disputes' | 'refunds', id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${mock!.url}/v1/${resource}/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** The webhook Stripe would send for `object`, parsed by the adapter (signature checked). */
function parsed(type: string, object: Record<string, unknown>) {
  const payload = JSON.stringify({ id: `evt_${randomUUID().slice(0, 12)}`, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
  return stripe.parseWebhook(payload, { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) });
}

/** A PAID Stripe card payment of 1000 whose charge is the PaymentIntent `intentId`. */
async function paidStripePayment(intentId: string) {
  const { order, payment } = await seedOrder(ws, { payment: { processor: 'stripe', methodType: 'card' } }, { mode: 'test' });
  await salesDb().$transaction(async (tx) => {
    await recordCharge(tx, payment.id, 0, { processor: 'stripe', processorChargeId: intentId, status: 'succeeded', amount: 1000, currency: 'USD' });
    await markPaymentPaid(tx, payment.id, { processorChargeId: intentId });
  });
  return { order, payment };
}

describeWithMock('Stripe events mapped by the processor\'s ids', () => {
  test('a refund sends our ids as metadata (a valid call for Stripe\'s schema)', async () => {
    const result = await stripe.refund({ chargeId: 'pi_123', amount: 100, idempotencyKey: randomUUID(), metadata: { refundId: randomUUID(), paymentId: randomUUID() } });
    expect(result).toMatchObject({ refundId: expect.stringMatching(/^re_/), amount: 100 });
  });

  test('a dispute without our metadata marks the payment (and its order) disputed, found by the charge id', async () => {
    const intentId = `pi_${randomUUID().replace(/-/g, '')}`;
    const { order, payment } = await paidStripePayment(intentId);
    const dispute = { ...(await fixture('disputes', 'dp_123')), payment_intent: intentId, status: 'needs_response', metadata: {} };
    const events = await parsed('charge.dispute.created', dispute);
    expect(events).toMatchObject([{ type: 'charge.disputed', chargeId: intentId, paymentId: null }]);
    await handleProcessorEvents(salesDb(), temporal, events);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ disputed: true });
    expect(await salesDb().order.findUniqueOrThrow({ where: { id: order.id } })).toMatchObject({ disputed: true });
  }, SLOW);

  test('refund.failed and refund.updated find our refund by the processor\'s refund id: failed gives the money back, succeeded books it', async () => {
    const intentId = `pi_${randomUUID().replace(/-/g, '')}`;
    const { order, payment } = await paidStripePayment(intentId);
    const deps = { prisma: salesDb(), processor: stripe, now: () => new Date() };
    const scope = { workspaceId: ws.workspaceId, livemode: false };
    const settle = async (amount: number) => {
      const { refund } = await requestRefund(deps, scope, { refundsEnabled: true }, order.id, { amount, idempotencyKey: randomUUID() });
      const processorRefundId = `re_${randomUUID().replace(/-/g, '')}`;
      // The processor accepted it and settles it later.
      await applyPartOutcome(salesDb(), refund.parts[0]!.id, { processorRefundId, status: 'pending' });
      return { refund, processorRefundId };
    };
    const base = await fixture('refunds', 're_123');

    const failing = await settle(300);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ refundedAmount: 300 });
    const failed = await parsed('refund.failed', { ...base, id: failing.processorRefundId, payment_intent: intentId, amount: 300, status: 'failed', failure_reason: 'expired_or_canceled_card', metadata: {} });
    await handleProcessorEvents(salesDb(), temporal, failed);
    expect(await salesDb().refund.findUniqueOrThrow({ where: { id: failing.refund.id } })).toMatchObject({ status: 'failed', failureCode: 'expired_or_canceled_card' });
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ refundedAmount: 0, status: 'PAID' });
    expect(await eventsAbout(ws, 'refund_failed', 'payment', payment.id)).toHaveLength(1);

    const settling = await settle(400);
    const succeeded = await parsed('refund.updated', { ...base, id: settling.processorRefundId, payment_intent: intentId, amount: 400, status: 'succeeded', metadata: {} });
    expect(succeeded).toMatchObject([{ type: 'charge.refunded', refundId: settling.processorRefundId }]);
    await handleProcessorEvents(salesDb(), temporal, succeeded);
    await handleProcessorEvents(salesDb(), temporal, succeeded);
    expect(await salesDb().refund.findUniqueOrThrow({ where: { id: settling.refund.id } })).toMatchObject({ status: 'succeeded' });
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ refundedAmount: 400, status: 'PARTIALLY_REFUNDED' });
    expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(1);
  }, SLOW);
});
