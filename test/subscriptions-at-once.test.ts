import { randomUUID } from 'node:crypto';

import { newWorkspace, type Workspace } from './support/api.js';
import { card, eventually, orderBody, payCheckout } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { advance, cancel, DAY, paymentsOf, subscriptionElement, TEST, VISA } from './support/subscriptions.js';

// A subscription takes requests from the moment its purchase is answered (issue #31 §1.1): the
// checkout's answer shows it active with its first period (both written by the payment's one
// transaction), and a request sent in the same tick as that answer reaches its workflow even when
// the payment's hook has not started it yet (update-with-start from the hook's own arguments).
// 50 subscriptions are bought at once through the hosted checkout, each cancelled (half now, half
// at the period's end) as soon as its answer arrives; then the hook's late start must not revive
// any of them, and a test clock's advance past the period ends those scheduled, with no renewal.
// Every other kind of request is sent the same way once.

const SLOW = 300_000;
const COUNT = 50;

let ws: Workspace;
let monthly: string;
let trial: string;

beforeAll(async () => {
  ws = await newWorkspace('Subscriptions requested at once', ['testMode=true']);
  [monthly, trial] = await Promise.all([subscriptionElement(ws, 700), subscriptionElement(ws, 700, { recurringInterval: 'month', trialInterval: 'week' })]);
}, SLOW);

interface Bought {
  number: string;
  /** The subscription as the checkout's answer showed it. */
  answered: { status: string; currentPeriodStart: number | null; currentPeriodEnd: number | null };
  atPeriodEnd: boolean;
  cancelled: { status: number; subscription?: { status: string; cancelAtPeriodEnd: boolean }; message?: string };
}

/** The checkout's answer; 503 (busy, nothing changed) is retried with backoff under the same Idempotency-Key, as the contract asks. */
async function checkout(elementId = monthly) {
  const body = orderBody({ email: `at-once-${randomUUID()}@example.com`, card: card() });
  const key = randomUUID();
  for (let attempt = 0; ; attempt += 1) {
    const answer = await payCheckout(elementId, body, key);
    if (answer.status !== 503 || attempt === 5) return answer;
    await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
  }
}

/** Buys one subscription and cancels it in the same tick as the checkout's answer. */
async function buyAndCancel(index: number): Promise<Bought> {
  const atPeriodEnd = index % 2 === 1;
  const { status, body } = await checkout();
  if (status !== 200) throw new Error(`checkout answered ${status}: ${JSON.stringify(body)}`);
  const { order } = body.data as { order: { number: string; subscription: Bought['answered'] } };
  const { data, error, response } = await cancel(ws, order.number, { cancelAtIntervalEnd: atPeriodEnd });
  return {
    number: order.number,
    answered: order.subscription,
    atPeriodEnd,
    cancelled: { status: response.status, subscription: data?.data.subscription, message: (error as { error?: { message?: string } } | undefined)?.error?.message },
  };
}

test(`${COUNT} subscriptions bought at once, each cancelled in the same tick as its purchase's answer: every cancel applies`, async () => {
  const bought = await Promise.all(Array.from({ length: COUNT }, (_, index) => buyAndCancel(index)));

  // Active with its period in the answer itself: never one without the other.
  for (const { answered } of bought) {
    expect(answered).toMatchObject({ status: 'active', currentPeriodStart: expect.any(Number), currentPeriodEnd: expect.any(Number) });
    expect(answered.currentPeriodEnd!).toBeGreaterThan(answered.currentPeriodStart!);
  }
  // Every cancel reached a workflow, started by it or by the hook, whichever came first.
  // With each refusal's message, so that a failure says why.
  expect(bought.filter((b) => b.cancelled.status !== 200).map((b) => ({ number: b.number, ...b.cancelled, subscription: undefined }))).toEqual([]);
  for (const { cancelled, atPeriodEnd } of bought) {
    expect(cancelled.subscription).toMatchObject(atPeriodEnd ? { status: 'active', cancelAtPeriodEnd: true } : { status: 'cancelled', cancelAtPeriodEnd: false });
  }

  const rows = await salesDb().subscription.findMany({ where: { workspaceId: ws.workspaceId, number: { in: bought.map((b) => b.number) } } });
  expect(rows).toHaveLength(COUNT);
  // The hooks' starts came after some of the cancels: none revived an ended subscription, and the
  // scheduled ones stay scheduled (each workflow applied the cancel once, in its first run).
  await new Promise((r) => setTimeout(r, 1000));
  const again = await salesDb().subscription.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
  for (const row of again) {
    const { atPeriodEnd } = bought.find((b) => b.number === row.number)!;
    expect(row).toMatchObject(atPeriodEnd ? { status: 'active', cancelAtPeriodEnd: true } : { status: 'cancelled' });
  }

  // Past the period's end the scheduled cancels take effect; nothing is ever charged again.
  const scheduled = again.filter((row) => row.status === 'active');
  await Promise.all(scheduled.map(async (row) => ok(advance(ws, row.number, Math.floor(row.currentPeriodEnd!.getTime() / 1000) + DAY))));
  const ended = await eventually(
    () => salesDb().subscription.findMany({ where: { id: { in: rows.map((r) => r.id) } } }),
    (all) => all.every((row) => row.status === 'cancelled'),
  );
  expect(ended.map((row) => row.status)).toEqual(rows.map(() => 'cancelled'));
  for (const row of rows) expect((await paymentsOf(row.id)).map((p) => p.status)).toEqual(['PAID']);
  const details = await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}', { params: { path: { subscriptionIdOrNumber: bought[0]!.number } } }));
  expect(details.subscription).toMatchObject({ status: 'cancelled' });
}, SLOW);

test('every other request, sent in the same tick as the purchase\'s answer, applies too: pause, advance, update, charge, a new card, end-trial', async () => {
  const path = (number: string) => ({ params: { path: { subscriptionIdOrNumber: number } } });
  const client = restClient(ws, TEST);
  const requests = {
    pause: (number: string) => client.PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/pause', { ...path(number), body: {} }),
    advance: (number: string, periodEnd: number) => client.POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { ...path(number), body: { to: periodEnd + 60 } }),
    update: (number: string) => client.PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/update', { ...path(number), body: { items: [{ unitPrice: 500 }] } }),
    charge: (number: string) => client.POST('/v0/subscriptions/{subscriptionIdOrNumber}/charge', { ...path(number), body: { items: [{ unitPrice: 300 }] } }),
    card: (number: string) => client.POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method', { ...path(number), body: { testCard: VISA } }),
    endTrial: (number: string) => client.POST('/v0/subscriptions/{subscriptionIdOrNumber}/end-trial', { ...path(number), body: {} }),
  };
  const answers = await Promise.all(
    Object.entries(requests).map(async ([name, send]) => {
      const { status, body } = await checkout(name === 'endTrial' ? trial : monthly);
      if (status !== 200) throw new Error(`checkout answered ${status}: ${JSON.stringify(body)}`);
      const { order } = body.data as { order: { number: string; subscription: { currentPeriodEnd: number } } };
      const { response, data } = await send(order.number, order.subscription.currentPeriodEnd);
      return { name, status: response.status, subscription: (data as { data?: { subscription?: { status: string } } } | undefined)?.data?.subscription };
    }),
  );
  expect(answers.map(({ name, status }) => [name, status])).toEqual(Object.keys(requests).map((name) => [name, 200]));
  const status = Object.fromEntries(answers.map(({ name, subscription }) => [name, subscription?.status]));
  expect(status).toEqual({ pause: 'paused', advance: 'active', update: 'active', charge: 'active', card: 'active', endTrial: 'active' });
}, SLOW);
