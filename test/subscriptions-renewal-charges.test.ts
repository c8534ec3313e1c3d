import { randomUUID } from 'node:crypto';

import { domains } from '../src/domains.js';
import { ProcessorUnavailable, type ChargeRequest } from '../src/payments/processors/processor.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { beforeDeadline } from '../src/subscriptions/activities.js';
import { chargeSavedMethod } from '../src/subscriptions/off-session.js';
import { renewalChargeKey } from '../src/subscriptions/service.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { card, eventually, orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ownTaskQueueEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { deliverSandboxWebhooks } from './support/refunds.js';
import { ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { DAY, paymentsOf, seconds, subscriptionElement, TEST, VISA } from './support/subscriptions.js';
import { ownQueueWorker } from './support/temporal-worker.js';

// Renewal charges at the processor's edges (issue #31 §1.6 and §1.10), through the HTTP surface of
// an API process of this file's own (purchases, test clocks, cancels, card replacements, the
// processor's webhooks) whose workflows run on a worker in this process with the service's real
// activities, but (in the renewal charge's activity, after its deadline check) a processor that,
// for the first attempt of chosen renewals:
//   - leaves the charge pending (Stripe's `processing`): the sandbox's 3-D Secure card charged as
//     such a charge is (cancellable), or a PayPal charge (which the sandbox cannot cancel);
//   - never answers within the idempotency key's window: it made the charge under the key, and
//     every call (the first and each retry) fails as if the answer was lost.
// A pending charge waits PAYMENT_EXPIRY_SECONDS (3 s here), retries stop after
// PROCESSOR_KEY_WINDOW_SECONDS (4 s here). One period never keeps two charges, and no call is made
// for an attempt after its key's window.

const SLOW = 300_000;
const TIMINGS = { PAYMENT_EXPIRY_SECONDS: '3', PROCESSOR_KEY_WINDOW_SECONDS: '4' };
const AUTHENTICATE = '4000002760003184';

type Mode = 'pending' | 'pending-paypal' | 'answer-lost';

let api: ServerProcess;
let worker: Awaited<ReturnType<typeof ownQueueWorker>>;
let ws: Workspace;
let monthly: string;
/** Subscriptions whose first renewal attempt the processor treats so (by subscription id). */
const modes = new Map<string, Mode>();
/** Calls to the processor for those attempts, by payment. */
const calls = new Map<string, number>();
const saved = Object.fromEntries(Object.keys(TIMINGS).map((name) => [name, process.env[name]]));

/** The sandbox, but its charges pend: a saved card's charge is made as the 3-D Secure card's (or as PayPal's). */
class PendingSandbox extends SandboxProcessor {
  constructor(private readonly paypal: boolean) {
    super({ prisma: salesDb() });
  }

  override createCharge({ savedPaymentMethod: _saved, ...request }: ChargeRequest) {
    return super.createCharge(this.paypal ? { ...request, method: 'paypal' } : { ...request, card: card(AUTHENTICATE) });
  }
}

beforeAll(async () => {
  // The worker's activities read their timings when made; the API process gets the same.
  Object.assign(process.env, TIMINGS);
  const queue = ownTaskQueueEnv('renewal-charges');
  const env = { DATABASE_URL: process.env.DATABASE_URL!, ...queue, SANDBOX_WEBHOOK_DELIVERY: 'false', RATE_LIMIT_POINTS: '1000000', ...TIMINGS };
  [api, worker, ws] = await Promise.all([
    startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' }),
    ownQueueWorker('renewal-charges', (temporal) => activities(temporal), queue.TEMPORAL_TASK_QUEUE!),
    newWorkspace('Renewal charges at the edges', ['testMode=true']),
  ]);
  monthly = await subscriptionElement(ws, 900);
}, SLOW);

afterAll(async () => {
  await worker?.stop();
  await api?.stop('SIGKILL');
  for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}, SLOW);

/** Every domain's activities, the renewal charge's first attempt of a chosen subscription at the processor above. */
function activities(temporal: TemporalConnection) {
  const all: Record<string, (...args: never[]) => Promise<unknown>> = Object.assign({}, ...domains.map((d) => d.createActivities?.({ prisma: salesDb(), temporal }) ?? {}));
  const real = all.chargeRenewal as (paymentId: string, attempt: number, clockMs: number, dueMs: number, deadlineMs: number) => Promise<unknown>;
  return {
    ...all,
    async chargeRenewal(paymentId: string, attempt: number, clockMs: number, dueMs: number, deadlineMs: number) {
      const payment = await salesDb().payment.findUniqueOrThrow({ where: { id: paymentId } });
      const mode = attempt === 0 ? modes.get(payment.subscriptionId!) : undefined;
      if (!mode) return real(paymentId, attempt, clockMs, dueMs, deadlineMs);
      // As the real activity: nothing is called past the attempt's deadline.
      beforeDeadline(deadlineMs);
      calls.set(paymentId, (calls.get(paymentId) ?? 0) + 1);
      const key = renewalChargeKey(payment.subscriptionId!, payment.subscriptionPeriod!, attempt);
      if (mode !== 'answer-lost') return chargeSavedMethod(salesDb(), new PendingSandbox(mode === 'pending-paypal'), paymentId, key, attempt);
      await chargeSavedMethod(salesDb(), new SandboxProcessor({ prisma: salesDb() }), paymentId, key, attempt);
      throw new ProcessorUnavailable('The answer was lost on the way back');
    },
  };
}

const client = () => restClient(ws, TEST, api.url);

/** A subscription bought through the API under test, its first renewal attempt at the processor `mode`. */
async function buy(mode: Mode) {
  const { order } = await placeOrder(monthly, orderBody(), randomUUID(), api.url);
  const subscription = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: order.number } });
  modes.set(subscription.id, mode);
  return subscription;
}

const advance = (number: string, to: number) => ok(client().POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { params: { path: { subscriptionIdOrNumber: number } }, body: { to } }));
const subscriptionOf = (id: string) => salesDb().subscription.findUniqueOrThrow({ where: { id } });

/** Renews past the first period: its first attempt pends, and is booked failed once its wait gave up. */
async function renewGivenUp(s: Awaited<ReturnType<typeof buy>>) {
  const { subscription } = await advance(s.number, seconds(s.currentPeriodEnd!) + 60);
  expect(subscription.status).toBe('past_due');
  const [, renewal] = await paymentsOf(s.id);
  expect(renewal).toMatchObject({ status: 'PENDING' });
  expect(renewal!.charges.map((c) => [c.attempt, c.status, c.failureCode])).toEqual([[0, 'failed', 'authentication_required']]);
  return { renewal: renewal!, chargeId: renewal!.charges[0]!.processorChargeId! };
}

/** The processor settles the charge after all; its webhook reaches the API under test. */
async function settleLate(chargeId: string) {
  await new SandboxProcessor({ prisma: salesDb() }).settle(chargeId);
  await deliverSandboxWebhooks([chargeId], api.url);
}

/** The charge's money went back once: an expired_payment refund of it, succeeded here and at the processor. */
async function expectGivenBack(orderId: string, chargeId: string, amount: number) {
  const refunds = await eventually(() => salesDb().refund.findMany({ where: { orderId }, include: { parts: true } }), (rows) => rows.some((r) => r.status === 'succeeded'));
  expect(refunds.map((r) => [r.source, r.amount, r.status, r.parts.map((p) => p.processorChargeId)])).toEqual([['expired_payment', amount, 'succeeded', [chargeId]]]);
  const atProcessor = await salesDb().sandboxRefund.findMany({ where: { chargeId } });
  expect(atProcessor.map((r) => [r.amount, r.status])).toEqual([[amount, 'succeeded']]);
}

const orderOf = async (subscriptionId: string) => salesDb().order.findFirstOrThrow({ where: { subscriptionId } });

describe('a renewal charge left pending (§1.6)', () => {
  test('its wait gives up: the charge is cancelled at the processor before the attempt is booked failed; dunning goes on', async () => {
    const s = await buy('pending');
    const { chargeId } = await renewGivenUp(s);
    expect(await salesDb().sandboxCharge.findUniqueOrThrow({ where: { id: chargeId } })).toMatchObject({ status: 'cancelled' });
    // The processor's word on the cancel changes nothing; nothing is given back (no money moved).
    await deliverSandboxWebhooks([chargeId], api.url);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await subscriptionOf(s.id)).toMatchObject({ status: 'past_due', nextRetryAt: expect.any(Date) });
    expect(await salesDb().refund.count({ where: { orderId: (await orderOf(s.id)).id } })).toBe(0);
  }, SLOW);

  test('one the processor cannot cancel succeeds after its attempt was booked failed: the money goes back, the renewal stays to be paid', async () => {
    const s = await buy('pending-paypal');
    const { renewal, chargeId } = await renewGivenUp(s);
    await settleLate(chargeId);
    await expectGivenBack((await orderOf(s.id)).id, chargeId, renewal.amount);
    const [, after] = await paymentsOf(s.id);
    expect(after).toMatchObject({ status: 'PENDING', refundedAmount: 0 });
    expect(await subscriptionOf(s.id)).toMatchObject({ status: 'past_due' });
  }, SLOW);

  test('its success comes after the subscription was cancelled (its workflow ended): the money goes back', async () => {
    const s = await buy('pending-paypal');
    const { renewal, chargeId } = await renewGivenUp(s);
    await ok(client().PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { params: { path: { subscriptionIdOrNumber: s.number } }, body: {} }));
    await eventually(() => worker.temporal.client.workflow.getHandle(`subscription/${ws.workspaceId}/${s.number}`).describe(), (d) => d.status.name === 'COMPLETED');
    await settleLate(chargeId);
    await expectGivenBack((await orderOf(s.id)).id, chargeId, renewal.amount);
    const [, after] = await paymentsOf(s.id);
    expect(after).toMatchObject({ status: 'CANCELLED', refundedAmount: 0 });
  }, SLOW);

  test('the renewal was paid by the next attempt (a card replaced), then the first succeeds: it goes back, the paid renewal untouched', async () => {
    const s = await buy('pending-paypal');
    const { renewal, chargeId } = await renewGivenUp(s);
    await ok(client().POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method', { params: { path: { subscriptionIdOrNumber: s.number } }, body: { testCard: VISA } }));
    const [, paid] = await eventually(() => paymentsOf(s.id), ([, p]) => p?.status === 'PAID');
    expect(paid!.charges.map((c) => [c.attempt, c.status])).toEqual([[0, 'failed'], [1, 'succeeded']]);
    const order = await orderOf(s.id);
    await settleLate(chargeId);
    await expectGivenBack(order.id, chargeId, renewal.amount);
    // Never on our books: the renewal, its fee and the order are as the paying attempt left them.
    const [, after] = await paymentsOf(s.id);
    expect(after).toMatchObject({ status: 'PAID', refundedAmount: 0, fee: paid!.fee, processorChargeId: paid!.charges[1]!.processorChargeId });
    expect(await orderOf(s.id)).toMatchObject({ status: order.status, fee: order.fee });
    expect(await subscriptionOf(s.id)).toMatchObject({ status: 'active' });
  }, SLOW);
});

describe("a renewal charge the processor never answers within its key's window (§1.10)", () => {
  test('requires attention (payment_requires_attention), nothing is called again under any key, and its charge, once heard of, pays the renewal', async () => {
    const s = await buy('answer-lost');
    const { subscription } = await advance(s.number, seconds(s.currentPeriodEnd!) + 60);
    expect(subscription).toMatchObject({ status: 'past_due' });
    const [, renewal] = await paymentsOf(s.id);
    expect(renewal).toMatchObject({ status: 'PENDING', failureCode: 'processor_no_answer' });
    expect(renewal!.charges.map((c) => [c.attempt, c.status, c.processorChargeId])).toEqual([[0, 'requires_attention', null]]);
    const events = await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_requires_attention' } });
    expect(events.map((e) => (e.payload as { payment: { id: string } }).payment.id)).toEqual([renewal!.id]);
    // The window is over: the calls stopped, and no retry is planned, however long the clock runs.
    const made = calls.get(renewal!.id)!;
    expect(made).toBeGreaterThanOrEqual(2);
    // Weeks past every dunning retry, short of the next period's renewal (which would be charged as
    // this one was, and leave a charge the processor made that no attempt of ours answers).
    await advance(s.number, seconds(s.currentPeriodEnd!) + 25 * DAY);
    expect(calls.get(renewal!.id)).toBe(made);
    expect(await subscriptionOf(s.id)).toMatchObject({ status: 'past_due', nextRetryAt: null });
    const atProcessor = await salesDb().sandboxCharge.findMany({ where: { paymentId: renewal!.id } });
    expect(atProcessor.map((c) => c.status)).toEqual(['succeeded']);
    expect((await paymentsOf(s.id))[1]!.charges).toHaveLength(1);

    // The processor's word on the one charge it made arrives: the attempt it answers is paid with it.
    await deliverSandboxWebhooks([atProcessor[0]!.id], api.url);
    const [, paid] = await eventually(() => paymentsOf(s.id), ([, p]) => p?.status === 'PAID');
    expect(paid!.charges.map((c) => [c.attempt, c.status, c.processorChargeId])).toEqual([[0, 'succeeded', atProcessor[0]!.id]]);
    expect(await subscriptionOf(s.id)).toMatchObject({ status: 'active' });
    expect(await salesDb().refund.count({ where: { orderId: (await orderOf(s.id)).id } })).toBe(0);
  }, SLOW);
});
