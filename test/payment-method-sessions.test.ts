// Payment-method sessions through HTTP on the suite's server (PostgreSQL, Temporal, the sandbox):
// POST /v0/subscriptions/{id}/paymentMethodSession and its rules (contract, Errors rule 4), and
// the hosted page's completion route; every answer checked against the OpenAPI document.
import { randomUUID } from 'node:crypto';

import { lookUpSession, hashToken } from '../src/payment-method-sessions/service.js';
import { newWorkspace, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { card, payCheckout, orderBody } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { advance, cancel, DECLINES_OFF_SESSION, lifecycle, paymentsOf, seconds, subscribe, subscriptionElement, subscriptionWorkflowId, TEST, VISA } from './support/subscriptions.js';
import { acceptedUpdates } from './support/workflows.js';

const SLOW = 120_000;
const LIVE: KeyChoice = { mode: 'live' };

export const mint = (ws: Workspace, id: string, key: KeyChoice = TEST) =>
  restClient(ws, key).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: id } }, body: {} });

export const complete = (subscriptionId: string, sessionToken: string, number = VISA) =>
  buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId, sessionToken } }, body: { card: card(number) } });

let ws: Workspace;
let monthly: string;

beforeAll(async () => {
  ws = await newWorkspace('Payment-method sessions', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
  monthly = await subscriptionElement(ws, 900);
}, SLOW);

describe('minting', () => {
  test('an active subscription: sessionToken, expiresAt 15 minutes on, the hosted page url; only the hash is stored', async () => {
    const { subscription } = await subscribe(ws, monthly);
    const before = Math.floor(Date.now() / 1000);
    const session = await ok(mint(ws, subscription.number));
    const after = Math.floor(Date.now() / 1000);
    expect(session.sessionToken).toMatch(/^pms_[A-Za-z0-9_-]{43}$/);
    expect(session.expiresAt).toBeGreaterThanOrEqual(before + 900);
    expect(session.expiresAt).toBeLessThanOrEqual(after + 900);
    expect(session.url).toMatch(new RegExp(`/payment-method/${subscription.id}/${session.sessionToken}$`));
    const rows = await salesDb().paymentMethodSession.findMany({ where: { subscriptionId: subscription.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tokenHash: hashToken(session.sessionToken), usedAt: null, livemode: false, workspaceId: ws.workspaceId });
    expect(JSON.stringify(rows)).not.toContain(session.sessionToken);
  }, SLOW);

  test('allowed in active, trialing, past_due, unpaid and paused; 400 when cancelled or not started', async () => {
    const trial = await subscriptionElement(ws, 900, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 1 });
    const trialing = (await subscribe(ws, trial)).subscription;
    expect(trialing.status).toBe('trialing');
    await ok(mint(ws, trialing.number));

    const pastDue = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    const due = seconds(pastDue.subscription.currentPeriodEnd!);
    expect((await ok(advance(ws, pastDue.order.number, due + 60))).subscription.status).toBe('past_due');
    await ok(mint(ws, pastDue.order.number));
    expect((await ok(advance(ws, pastDue.order.number, due + 22 * 86_400))).subscription.status).toBe('unpaid');
    await ok(mint(ws, pastDue.order.number));

    const paused = await subscribe(ws, monthly);
    expect((await ok(lifecycle(ws, 'pause', paused.order.number))).subscription.status).toBe('paused');
    await ok(mint(ws, paused.order.number));

    const cancelled = await subscribe(ws, monthly);
    await ok(cancel(ws, cancelled.order.number));
    const refused = await failure(mint(ws, cancelled.order.number));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/cancelled/);

    // A first payment waiting for 3-D Secure: the subscription is incomplete.
    const pending = await payCheckout(monthly, orderBody({ card: card('4000002760003184') }), randomUUID());
    expect(pending.status).toBe(200);
    const incomplete = await failure(mint(ws, pending.body.data.order.number));
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.error.message).toMatch(/incomplete/);
  }, 4 * SLOW);

  test('403 when the workspace has embeddedPaymentMethodUpdate off (the default)', async () => {
    const off = await newWorkspace('Sessions off', ['testMode=true']);
    const { subscription } = await subscribe(off, await subscriptionElement(off, 500));
    const refused = await failure(mint(off, subscription.number));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/not enabled/);
    await setWorkspace(off.workspaceId, 'embeddedPaymentMethodUpdate=true');
    await ok(mint(off, subscription.number));
  }, SLOW);

  test("404 for an unknown number, a #number, another workspace's and the other mode's subscription; 401 without the secret key", async () => {
    const { subscription } = await subscribe(ws, monthly);
    expect((await failure(mint(ws, '999999999'))).status).toBe(404);
    expect((await failure(mint(ws, `#${subscription.number}`))).status).toBe(404);
    expect((await failure(mint(ws, subscription.number, LIVE))).status).toBe(404);
    const other = await newWorkspace('Other tenant', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
    expect((await failure(mint(other, subscription.number))).status).toBe(404);
    expect((await failure(mint(ws, subscription.number, { mode: 'test', write: false }))).status).toBe(401);
    expect(await salesDb().paymentMethodSession.count({ where: { subscriptionId: subscription.id } })).toBe(0);
  }, SLOW);

  test('429 above 10 sessions an hour per subscription, with Retry-After; another subscription is not held up', async () => {
    const first = await subscribe(ws, monthly);
    const second = await subscribe(ws, monthly);
    for (let i = 0; i < 10; i++) await ok(mint(ws, first.order.number));
    const { response, error } = await mint(ws, first.order.number);
    expect(response.status).toBe(429);
    expect((error as { error: { message: string } }).error.message).toMatch(/10 payment-method sessions an hour per subscription/);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    await ok(mint(ws, second.order.number));
  }, SLOW);
});

describe('the token', () => {
  test("single use: completing replaces the saved card through the subscriptions hook; the token is then refused, and refused for another subscription", async () => {
    const { subscription } = await subscribe(ws, monthly);
    const other = await subscribe(ws, monthly);
    const { sessionToken } = await ok(mint(ws, subscription.number));
    // Another subscription's token: unknown to it.
    expect((await failure(complete(other.subscription.id, sessionToken))).status).toBe(404);
    const done = await ok(complete(subscription.id, sessionToken));
    expect(done).toEqual({ status: 'active', paymentMethod: { brand: 'visa', last4: '4242' }, nextAction: null });
    const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } });
    expect(row.paymentMethodRef).not.toBe(subscription.paymentMethodRef);
    expect(row.paymentMethodRef).toMatch(/^pm_sbx_/);
    const again = await failure(complete(subscription.id, sessionToken));
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/used already/);
    expect((await salesDb().paymentMethodSession.findFirstOrThrow({ where: { tokenHash: hashToken(sessionToken) } })).usedAt).not.toBeNull();
    // Made-up tokens and ids.
    expect((await failure(complete(subscription.id, `pms_${'A'.repeat(43)}`))).status).toBe(404);
    expect((await failure(complete(randomUUID(), sessionToken))).status).toBe(404);
  }, SLOW);

  test('ten parallel completions of one session: one 200 and one card replacement; the others refused (used, or over the attempt budget)', async () => {
    const { subscription } = await subscribe(ws, monthly);
    const { sessionToken } = await ok(mint(ws, subscription.number));
    // Two brands of succeeding cards: the saved card tells whose completion replaced it.
    const numbers = Array.from({ length: 10 }, (_, i) => [VISA, '5555555555554444'][i % 2]!);
    const answers = await Promise.all(
      numbers.map(async (number) => {
        const { data, error, response } = await complete(subscription.id, sessionToken, number);
        return { status: response.status, data: data?.data, message: (error as { error?: { message: string } } | undefined)?.error?.message };
      }),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    // Refused before the processor (used already, or past the session's 5 card attempts) or after it (the session retired meanwhile).
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect([
        [400, 'This payment-method session was used already; ask for a new link'],
        [429, 'At most 5 card attempts per payment-method session; mint a fresh session'],
      ]).toContainEqual([refused.status, refused.message?.replace(/; retry in \d+ s$/, '')]);
    }
    const replacements = await acceptedUpdates(subscriptionWorkflowId(ws, subscription.number), 'command');
    expect(replacements.filter(([command]) => (command as { type: string }).type === 'paymentMethodReplaced')).toHaveLength(1);
    const saved = await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } });
    expect(saved.paymentMethodRef).not.toBe(subscription.paymentMethodRef);
    const card = await salesDb().sandboxPaymentMethod.findUniqueOrThrow({ where: { id: saved.paymentMethodRef! } });
    expect({ brand: card.brand, last4: card.last4 }).toEqual(won[0]!.data!.paymentMethod);
  }, SLOW);

  test('a declined card is 402 and leaves the token open; another card then completes', async () => {
    const { subscription } = await subscribe(ws, monthly);
    const { sessionToken } = await ok(mint(ws, subscription.number));
    const declined = await failure(complete(subscription.id, sessionToken, '4000000000000002'));
    expect(declined.status).toBe(402);
    expect(declined.body.error.message).toMatch(/declined/);
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).paymentMethodRef).toBe(subscription.paymentMethodRef);
    expect((await ok(complete(subscription.id, sessionToken))).status).toBe('active');
  }, SLOW);

  test('refused after expiry: 15 minutes on an injected clock, and through HTTP once the time has passed', async () => {
    const { subscription } = await subscribe(ws, monthly);
    const { sessionToken, expiresAt } = await ok(mint(ws, subscription.number));
    const at = (s: number) => new Date(s * 1000);
    expect((await lookUpSession(salesDb(), subscription.id, sessionToken, at(expiresAt - 1))).state).toBe('open');
    expect((await lookUpSession(salesDb(), subscription.id, sessionToken, at(expiresAt))).state).toBe('expired');
    // The stored expiry moved to the past, as the clock would have it: the route refuses it.
    await salesDb().paymentMethodSession.update({ where: { tokenHash: hashToken(sessionToken) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await failure(complete(subscription.id, sessionToken));
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toMatch(/expired/);
  }, SLOW);

  test('past_due: completing retries the renewal at once; the subscription is active again and the renewal PAID', async () => {
    const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
    const due = seconds(subscription.currentPeriodEnd!);
    expect((await ok(advance(ws, order.number, due + 60))).subscription.status).toBe('past_due');
    const { sessionToken } = await ok(mint(ws, order.number));
    expect(await ok(complete(subscription.id, sessionToken))).toMatchObject({ status: 'active' });
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'PAID' });
    expect(renewal!.charges.map((c) => c.status)).toEqual(['failed', 'succeeded']);
  }, SLOW);

  test('a subscription cancelled after minting: the token is refused (400)', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const { sessionToken } = await ok(mint(ws, order.number));
    await ok(cancel(ws, order.number));
    const refused = await failure(complete(subscription.id, sessionToken));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/cancelled/);
  }, SLOW);
});
