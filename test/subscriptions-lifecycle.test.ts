import { newWorkspace, type Workspace } from './support/api.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { suiteTemporal } from './support/refunds.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { createNotifications, type Notifications } from '../src/db/notifications.js';
import { advance, DAY, paymentsOf, seconds, subscribe, subscriptionElement, subscriptionEvents } from './support/subscriptions.js';

// The subscription workflow through the suite's server (real HTTP, PostgreSQL, the Temporal dev
// server and its worker, the sandbox processor): renewals on the test clock, every answer checked
// against the OpenAPI document by the typed client.

const SLOW = 180_000;

let ws: Workspace;
let other: Workspace;
let monthly: string;
let temporal: TemporalConnection;
let notifications: Notifications;

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace('Subscriptions', ['testMode=true']), newWorkspace('Subscriptions elsewhere', ['testMode=true'])]);
  monthly = await subscriptionElement(ws, 900);
  temporal = await suiteTemporal();
  notifications = createNotifications(process.env.DATABASE_DIRECT_URL ?? process.env.DATABASE_URL!);
}, SLOW);

afterAll(async () => {
  await temporal?.stop();
  await notifications?.close();
});

describe('renewals on the test clock', () => {
  test('a year of monthly billing in one advance: 12 renewals {number}-2..-13, each PAID once at its period start, the workflow continued as new', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const start = subscription.currentPeriodStart!;
    const firstEnd = subscription.currentPeriodEnd!;
    // One month on the same day (the billing anchor).
    expect(firstEnd.getUTCDate()).toBe(Math.min(start.getUTCDate(), firstEnd.getUTCDate()));
    expect(firstEnd.getTime() - start.getTime()).toBeGreaterThanOrEqual(28 * DAY * 1000);

    const to = seconds(start) + 365 * DAY + DAY;
    const { subscription: after } = await ok(advance(ws, order.number, to));
    expect(after).toMatchObject({ object: 'subscription', id: order.number, status: 'active', amount: 900 });
    expect(after.clock).toBeGreaterThanOrEqual(to);

    const payments = await paymentsOf(subscription.id);
    expect(payments.map((p) => p.number)).toEqual([order.number, ...Array.from({ length: 12 }, (_, i) => `${order.number}-${i + 2}`)]);
    expect(payments.every((p) => p.status === 'PAID')).toBe(true);
    const renewals = payments.slice(1);
    expect(renewals.map((p) => p.subscriptionPeriod)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    expect(renewals.map((p) => p.charges.length)).toEqual(Array(12).fill(1));
    expect(renewals.map((p) => p.amount)).toEqual(Array(12).fill(900));
    // Each renewal is charged at its period's start, a month after the one before.
    for (let i = 1; i < renewals.length; i += 1) {
      const gap = renewals[i]!.createdAt.getTime() - renewals[i - 1]!.createdAt.getTime();
      expect(gap).toBeGreaterThanOrEqual(28 * DAY * 1000);
      expect(gap).toBeLessThanOrEqual(31 * DAY * 1000);
    }
    expect(renewals[0]!.createdAt.getTime()).toBe(firstEnd.getTime());
    // Paid at its own moment, not at the advance's target: as if the year had passed.
    expect(renewals.map((p) => p.paidAt?.getTime())).toEqual(renewals.map((p) => p.createdAt.getTime()));
    // One processor charge per renewal, keyed by (subscription, period, attempt).
    const atProcessor = await salesDb().sandboxCharge.findMany({ where: { paymentId: { in: renewals.map((p) => p.id) } } });
    expect(atProcessor).toHaveLength(12);
    expect(new Set(atProcessor.map((c) => c.idempotencyKey)).size).toBe(12);
    expect(atProcessor[0]!.idempotencyKey).toMatch(new RegExp(`^subscription/${subscription.id}/period/\\d+/attempt/0$`));

    // payment_success per renewal, with the buyer as user and customer.
    const successes = await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_success' } });
    const renewalEvents = successes.filter((e) => renewals.some((p) => p.id === (e.payload as { payment: { id: string } }).payment.id));
    expect(renewalEvents).toHaveLength(12);
    const data = renewalEvents[0]!.payload as Record<string, any>;
    expect(data.user).toMatchObject({ object: 'user' });
    expect(data.customer).toEqual(data.user);

    // Renewals are no status transitions: subscription_created only.
    expect((await subscriptionEvents(ws, order.number)).map((e) => e.type)).toEqual(['subscription_created']);

    // Continued as new once the advance's periods were done, not after each of them (Temporal
    // holds a continued run a second): the first run and the one waiting now, whose history is short.
    const handle = temporal.client.workflow.getHandle(`subscription/${ws.workspaceId}/${order.number}`);
    const description = await handle.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.historyLength).toBeLessThan(40);
    const runs: string[] = [];
    for (let runId: string | undefined = description.runId; runId; ) {
      runs.push(runId);
      const { events } = await temporal.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
      const previous: string | null | undefined = events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
      runId = previous || undefined;
    }
    expect(runs).toHaveLength(2);
    const state = await handle.query<{ status: string; period: number; clockMs: number }>('state');
    expect(state).toMatchObject({ status: 'active', period: 13 });
    expect(state.clockMs).toBeGreaterThanOrEqual(to * 1000);
  }, SLOW);

  test('advance: not after the clock is 400, live keys 401, #number and other workspaces 404, malformed 400', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const later = seconds(subscription.currentPeriodStart!) + 3 * DAY;
    await ok(advance(ws, order.number, later));
    const again = await failure(advance(ws, order.number, later));
    expect(again).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/after the subscription's clock/) } } });
    expect((await failure(advance(ws, order.number, later - DAY))).status).toBe(400);
    expect((await failure(advance(ws, order.number, later + DAY, { mode: 'live' }))).status).toBe(401);
    expect((await failure(advance(ws, `#${order.number}`, later + DAY))).status).toBe(404);
    expect((await failure(advance(other, order.number, later + DAY))).status).toBe(404);
    expect((await failure(advance(ws, 'not a number!', later + DAY))).status).toBe(400);
    expect((await failure(advance(ws, order.number, -5))).status).toBe(400);
    // Nothing was due in those three days: no renewal.
    expect(await paymentsOf(subscription.id)).toHaveLength(1);
  }, SLOW);

  test("an advance to the second the API shows as the period's end renews it (the end is stored with its milliseconds)", async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    // Its end is within that second (milliseconds after it, shown rounded down), yet due by then.
    const { subscription: after } = await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!)));
    expect(after).toMatchObject({ status: 'active', currentPeriodStart: seconds(subscription.currentPeriodEnd!) });
    expect((await paymentsOf(subscription.id)).map((p) => p.status)).toEqual(['PAID', 'PAID']);
  }, SLOW);

  test("an advance is answered from its clock's record, which notifies the subscription's channel once (the API waits on it, not reading in a loop)", async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const heard = await notifications.subscribe('subscription_clock', subscription.id);
    try {
      const to = seconds(subscription.currentPeriodEnd!) + DAY;
      const { subscription: after } = await ok(advance(ws, order.number, to));
      expect(after.clock).toBeGreaterThanOrEqual(to);
      await expect(heard.next(AbortSignal.timeout(2000))).resolves.toBeUndefined();
      await expect(heard.next(AbortSignal.timeout(500))).rejects.toThrow();
      expect(await paymentsOf(subscription.id)).toHaveLength(2);
    } finally {
      heard.close();
    }
  }, SLOW);
});
