import { newWorkspace, type Workspace } from './support/api.js';
import { failure, ok } from './support/responses.js';
import { restClient } from './support/client.js';
import { advance, cancel, DAY, lifecycle, paymentsOf, seconds, subscribe, subscriptionElement, subscriptionEvents, subscriptionWorkflowId, TEST } from './support/subscriptions.js';
import { workflowClosed } from './support/workflows.js';

// Cancel (now, at the interval's end, the deprecated cancelOption), undo, pause and resume through
// HTTP on the suite's server, the test clock moving time; nothing is charged after a cancel.

const SLOW = 180_000;

let ws: Workspace;
let other: Workspace;
let monthly: string;

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace('Subscription cancels', ['testMode=true']), newWorkspace('Subscription cancels elsewhere', ['testMode=true'])]);
  monthly = await subscriptionElement(ws, 900);
}, SLOW);

describe('cancel', () => {
  test('now: cancelled at once (subscription_cancelled), the workflow ends, nothing is charged after, a second cancel is 400', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const { subscription: cancelled } = await ok(cancel(ws, order.number, { cancelAtIntervalEnd: false }));
    expect(cancelled).toMatchObject({ id: order.number, status: 'cancelled', cancelAtPeriodEnd: false });
    expect(cancelled.cancelledAt).toEqual(expect.any(Number));
    expect((await subscriptionEvents(ws, order.number)).map((e) => e.type)).toEqual(['subscription_created', 'subscription_cancelled']);
    // Its clock cannot be advanced any more, and no renewal ever comes.
    expect((await failure(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + DAY))).status).toBe(400);
    // Its workflow has ended: nothing can charge any more.
    expect(await workflowClosed(subscriptionWorkflowId(ws, order.number))).toBe('COMPLETED');
    expect(await paymentsOf(subscription.id)).toHaveLength(1);
    expect((await failure(cancel(ws, order.number))).status).toBe(400);
  }, SLOW);

  test('at the interval end: active until the period ends, then cancelled; nothing charged after', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const { subscription: scheduled } = await ok(cancel(ws, order.number, { cancelAtIntervalEnd: true }));
    expect(scheduled).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    const end = seconds(subscription.currentPeriodEnd!);
    expect((await ok(advance(ws, order.number, end - 60))).subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    const { subscription: ended } = await ok(advance(ws, order.number, end + 60));
    expect(ended).toMatchObject({ status: 'cancelled' });
    expect(await paymentsOf(subscription.id)).toHaveLength(1);
    expect((await subscriptionEvents(ws, order.number)).map((e) => e.type)).toEqual(['subscription_created', 'subscription_updated', 'subscription_cancelled']);
  }, SLOW);

  test('the deprecated cancelOption endInterval means cancelAtIntervalEnd; cancelAtIntervalEnd wins; other values are 400', async () => {
    const { order } = await subscribe(ws, monthly);
    expect((await failure(cancel(ws, order.number, { cancelOption: 'tomorrow' }))).status).toBe(400);
    expect((await ok(cancel(ws, order.number, { cancelOption: 'endInterval' }))).subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect((await ok(lifecycle(ws, 'undo-cancel', order.number))).subscription).toMatchObject({ cancelAtPeriodEnd: false });
    expect((await ok(cancel(ws, order.number, { cancelAtIntervalEnd: false, cancelOption: 'endInterval' }))).subscription).toMatchObject({ status: 'cancelled' });
  }, SLOW);

  test('undo a scheduled cancel: it renews at the period end as if never asked; undo without a schedule is 400', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    expect((await failure(lifecycle(ws, 'undo-cancel', order.number))).status).toBe(400);
    await ok(cancel(ws, order.number, { cancelAtIntervalEnd: true }));
    expect((await ok(lifecycle(ws, 'undo-cancel', order.number))).subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, cancelledAt: null });
    const { subscription: renewed } = await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    expect(renewed.status).toBe('active');
    expect((await paymentsOf(subscription.id)).map((p) => p.status)).toEqual(['PAID', 'PAID']);
  }, SLOW);

  test('errors: #number and other workspaces 404, malformed 400, live keys see no test subscription, read keys 401', async () => {
    const { order } = await subscribe(ws, monthly);
    expect((await failure(cancel(ws, `#${order.number}`))).status).toBe(404);
    expect((await failure(cancel(other, order.number))).status).toBe(404);
    expect((await failure(cancel(ws, order.number, {}, { mode: 'live' }))).status).toBe(404);
    expect((await failure(cancel(ws, 'nope!'))).status).toBe(400);
    expect((await failure(cancel(ws, order.number, {}, { ...TEST, write: false }))).status).toBe(401);
    const wrongType = await failure(restClient(ws, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { params: { path: { subscriptionIdOrNumber: order.number } }, body: { cancelAtIntervalEnd: 'yes' as never } }));
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
  }, SLOW);
});

test('cancelling the initial order (PATCH /v0/orders/{id}/cancel) cancels its subscription now: nothing charged after', async () => {
  const { order, subscription } = await subscribe(ws, monthly);
  const { order: cancelled } = await ok(restClient(ws, TEST).PATCH('/v0/orders/{orderIdOrNumber}/cancel', { params: { path: { orderIdOrNumber: `#${order.number}` } } }));
  expect(cancelled).toMatchObject({ status: 'CANCELLED', subscription: { status: 'cancelled' } });
  expect((await subscriptionEvents(ws, order.number)).map((e) => e.type)).toEqual(['subscription_created', 'subscription_cancelled']);
  expect((await failure(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + DAY))).status).toBe(400);
  expect(await paymentsOf(subscription.id)).toHaveLength(1);
}, SLOW);

describe('pause and resume', () => {
  test('paused: no renewal while paused; resumed after the period ended, a new period starts and is charged at once', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const start = seconds(subscription.currentPeriodStart!);
    const { subscription: paused } = await ok(lifecycle(ws, 'pause', order.number));
    expect(paused).toMatchObject({ status: 'paused', pausedAt: expect.any(Number) });
    expect((await failure(lifecycle(ws, 'pause', order.number))).status).toBe(400);
    await ok(advance(ws, order.number, start + 70 * DAY));
    expect(await paymentsOf(subscription.id)).toHaveLength(1);
    const { subscription: resumed } = await ok(lifecycle(ws, 'resume', order.number));
    expect(resumed).toMatchObject({ status: 'active', pausedAt: null });
    // The renewal runs right after the resume (the workflow's next step); wait for it through the clock.
    const { subscription: after } = await ok(advance(ws, order.number, start + 70 * DAY + 60));
    expect(after.status).toBe('active');
    const now = await paymentsOf(subscription.id);
    expect(now.map((p) => p.status)).toEqual(['PAID', 'PAID']);
    // The new period starts at the resume (70 days in), not at the old period's end.
    expect(seconds(now[1]!.createdAt)).toBeGreaterThanOrEqual(start + 70 * DAY - 5);
    expect(after.currentPeriodStart).toBeGreaterThanOrEqual(start + 70 * DAY - 5);
    expect((await failure(lifecycle(ws, 'resume', order.number))).status).toBe(400);
    const types = (await subscriptionEvents(ws, order.number)).map((e) => e.type);
    expect(types).toEqual(['subscription_created', 'subscription_updated', 'subscription_updated']);
  }, SLOW);
});

describe('a cancel at the interval end while paused (docs/decisions.md "Cancel, undo, pause, resume")', () => {
  test('asked while paused, or scheduled before the pause: it ends at the period end, still paused, nothing charged', async () => {
    for (const order of ['cancel, then pause', 'pause, then cancel'] as const) {
      const { order: bought, subscription } = await subscribe(ws, monthly);
      const end = seconds(subscription.currentPeriodEnd!);
      const steps = order === 'pause, then cancel' ? ['pause', 'cancel'] : ['cancel', 'pause'];
      for (const step of steps) {
        if (step === 'pause') await ok(lifecycle(ws, 'pause', bought.number));
        else await ok(cancel(ws, bought.number, { cancelAtIntervalEnd: true }));
      }
      expect((await ok(advance(ws, bought.number, end - 60))).subscription).toMatchObject({ status: 'paused', cancelAtPeriodEnd: true });
      const { subscription: ended } = await ok(advance(ws, bought.number, end + 60));
      expect(ended).toMatchObject({ status: 'cancelled', cancelAtPeriodEnd: true });
      expect((await paymentsOf(subscription.id)).map((p) => p.status)).toEqual(['PAID']);
      expect((await subscriptionEvents(ws, bought.number)).map((e) => e.type).at(-1)).toBe('subscription_cancelled');
    }
  }, SLOW);

  test('paused past its period end, nothing of a period is paid: the cancel is immediate', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    await ok(lifecycle(ws, 'pause', order.number));
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 10 * DAY));
    const { subscription: cancelled } = await ok(cancel(ws, order.number, { cancelAtIntervalEnd: true }));
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelAtPeriodEnd: false });
    expect((await paymentsOf(subscription.id)).map((p) => p.status)).toEqual(['PAID']);
  }, SLOW);
});
