import { newWorkspace, type Workspace } from './support/api.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { deliverSandboxWebhooks } from './support/refunds.js';
import { advance, cancel, DAY, DECLINES_OFF_SESSION, EXPIRED, paymentsOf, replaceCard, seconds, subscribe, subscriptionElement, subscriptionEvents, subscriptionWorkflowId, VISA } from './support/subscriptions.js';
import { signalsReceived } from './support/workflows.js';

// Dunning through HTTP on the suite's server and the test clock: a failed renewal is past_due and
// retried 3, 7, 14 and 21 days after it was due; the last failure (or a hard decline) makes it
// unpaid; a replaced payment method brings it back (the payment-method update hook).

const SLOW = 180_000;

let ws: Workspace;
let monthly: string;

beforeAll(async () => {
  ws = await newWorkspace('Subscription dunning', ['testMode=true']);
  monthly = await subscriptionElement(ws, 900);
}, SLOW);

const failedEvents = async (paymentId: string) =>
  (await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_failed' }, orderBy: { createdAt: 'asc' } })).filter(
    (e) => (e.payload as { payment: { id: string } }).payment.id === paymentId,
  );

describe('dunning', () => {
  test('every step: past_due with a retry per scheduled day (PENDING, payment_failed each), unpaid after the 4th retry (UNPAID), then a replaced card renews now and it is active', async () => {
    const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    const due = seconds(subscription.currentPeriodEnd!);

    const { subscription: pastDue } = await ok(advance(ws, order.number, due + 60));
    expect(pastDue).toMatchObject({ status: 'past_due', nextRetryAt: due + 3 * DAY });
    let [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'PENDING', failureCode: 'generic_decline', number: `${order.number}-2` });
    expect(renewal!.charges.map((c) => c.status)).toEqual(['failed']);

    // Each retry exactly on its day, none before.
    const schedule = [3, 7, 14];
    for (const [i, day] of schedule.entries()) {
      const before = await ok(advance(ws, order.number, due + day * DAY - 60));
      expect(before.subscription.status).toBe('past_due');
      expect((await paymentsOf(subscription.id))[1]!.charges).toHaveLength(i + 1);
      const { subscription: after } = await ok(advance(ws, order.number, due + day * DAY + 60));
      expect(after).toMatchObject({ status: 'past_due', nextRetryAt: due + [7, 14, 21][i]! * DAY });
      expect((await paymentsOf(subscription.id))[1]!.charges).toHaveLength(i + 2);
    }
    const { subscription: unpaid } = await ok(advance(ws, order.number, due + 21 * DAY + 60));
    expect(unpaid).toMatchObject({ status: 'unpaid', nextRetryAt: null });
    [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'UNPAID' });
    expect(renewal!.charges.map((c) => c.attempt)).toEqual([0, 1, 2, 3, 4]);
    // One payment_failed per attempt, with the buyer; the last one says UNPAID.
    const failures = await failedEvents(renewal!.id);
    expect(failures.map((e) => (e.payload as { payment: { status: string } }).payment.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'UNPAID']);
    expect((failures[0]!.payload as Record<string, unknown>).customer).toEqual((failures[0]!.payload as Record<string, unknown>).user);
    // Unpaid: nothing more is charged, even periods later.
    await ok(advance(ws, order.number, due + 70 * DAY));
    expect(await paymentsOf(subscription.id)).toHaveLength(2);

    // The hook: a replaced card renews now (a new period from today) and the subscription is active again.
    const { subscription: replaced } = await ok(replaceCard(ws, order.number, VISA));
    expect(['unpaid', 'active']).toContain(replaced.status);
    const { subscription: active } = await ok(advance(ws, order.number, due + 70 * DAY + 60));
    expect(active.status).toBe('active');
    const payments = await paymentsOf(subscription.id);
    expect(payments.map((p) => p.status)).toEqual(['PAID', 'UNPAID', 'PAID']);
    expect(seconds(payments[2]!.createdAt)).toBeGreaterThanOrEqual(due + 70 * DAY - 5);
    expect((await subscriptionEvents(ws, order.number)).map((e) => (e.payload as { subscription: { status: string } }).subscription.status)).toEqual([
      'active',
      'past_due',
      'unpaid',
      'active',
    ]);
  }, SLOW);

  test('a retry that succeeds: a card replaced while past_due is charged at once, the same renewal PAID, active, the period kept', async () => {
    const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    const due = seconds(subscription.currentPeriodEnd!);
    await ok(advance(ws, order.number, due + 60));
    await ok(replaceCard(ws, order.number, VISA));
    const { subscription: active } = await ok(advance(ws, order.number, due + 120));
    expect(active).toMatchObject({ status: 'active', nextRetryAt: null, currentPeriodStart: due });
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'PAID', failureCode: null });
    expect(renewal!.charges.map((c) => c.status)).toEqual(['failed', 'succeeded']);
    // The next renewal is on schedule and succeeds on the new card.
    await ok(advance(ws, order.number, seconds(new Date((active.currentPeriodEnd as number) * 1000)) + 60));
    expect((await paymentsOf(subscription.id)).map((p) => p.status)).toEqual(['PAID', 'PAID', 'PAID']);
  }, SLOW);

  test('a hard decline (expired_card) skips the retries: unpaid at once, one charge', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    await ok(replaceCard(ws, order.number, EXPIRED));
    const { subscription: unpaid } = await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    expect(unpaid).toMatchObject({ status: 'unpaid', nextRetryAt: null });
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'UNPAID', failureCode: 'expired_card' });
    expect(renewal!.charges).toHaveLength(1);
  }, SLOW);

  test('a cancel while past_due is immediate and gives the retried renewal up (CANCELLED): no retry is charged after', async () => {
    const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    const due = seconds(subscription.currentPeriodEnd!);
    await ok(advance(ws, order.number, due + 60));
    const { subscription: cancelled } = await ok(cancel(ws, order.number, { cancelAtIntervalEnd: true }));
    expect(cancelled.status).toBe('cancelled');
    expect((await failure(advance(ws, order.number, due + 30 * DAY))).status).toBe(400);
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'CANCELLED' });
    expect(renewal!.charges).toHaveLength(1);
  }, SLOW);

  test("the processor's events about renewal charges go to the subscription (matched by charge): a failed attempt's event leaves the renewal PENDING, not FAILED", async () => {
    const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    const [, renewal] = await paymentsOf(subscription.id);
    const chargeIds = renewal!.charges.map((c) => c.processorChargeId!);
    expect(await deliverSandboxWebhooks(chargeIds)).toBe(1);
    // Answered once routed: the attempt's own call booked this failure already, so the event, a
    // redelivery of what the books say, went nowhere (no signal to the workflow, nothing changed).
    expect(await signalsReceived(subscriptionWorkflowId(ws, order.number), 'renewalChargeOutcome')).toBe(0);
    const [, after] = await paymentsOf(subscription.id);
    expect(after).toMatchObject({ status: 'PENDING' });
    expect(after!.charges.map((c) => c.status)).toEqual(['failed']);
    expect((await failedEvents(renewal!.id)).length).toBe(1);
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe('past_due');
  }, SLOW);

  test('the test card helper: unknown cards 400, live keys 401', async () => {
    const { order } = await subscribe(ws, monthly);
    expect((await failure(replaceCard(ws, order.number, '4111111111111111'))).status).toBe(400);
    expect((await failure(replaceCard(ws, order.number, VISA, { mode: 'live' }))).status).toBe(401);
  }, SLOW);
});
