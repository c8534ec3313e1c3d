import { chargeIdempotencyKey } from '../src/payments/processors/processor.js';
import { newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { UpdateSubscriptionDocument } from './generated/graphql/graphql.js';
import { graphqlClient, restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { newBuyer, newCatalogue, salesDb } from './support/sales.js';
import { advance, cancel, DAY, DECLINES_OFF_SESSION, lifecycle, paymentsOf, replaceCard, seconds, subscribe, subscriptionEvents, TEST } from './support/subscriptions.js';

// Subscription create and update (plan changes) through real HTTP, PostgreSQL, the Temporal dev
// server and the sandbox processor: the items' aliases and precedence, proration checked to the
// minor unit, the next renewal priced from the new items (and the upcoming payment equal to it),
// a downgrade's credit, every error rule and tenant isolation. Answers are checked against the
// OpenAPI document by the typed client.

const SLOW = 180_000;

let ws: Workspace;
let other: Workspace;
/** Monthly offers of 900 and 2000, a weekly one, a one-time one; each sold by its own checkout element. */
let basic: Awaited<ReturnType<typeof offer>>;
let pro: Awaited<ReturnType<typeof offer>>;
let weekly: Awaited<ReturnType<typeof offer>>;
let oneTime: Awaited<ReturnType<typeof offer>>;

async function offer(workspace: Workspace, price: number, terms: Record<string, unknown>) {
  const catalogue = await newCatalogue(workspace, price, TEST, terms);
  const { checkoutElement } = await ok(restClient(workspace, TEST).POST('/v0/elements/checkout/create', { body: { offersIds: [catalogue.offer.id] } }));
  return { offerId: catalogue.offer.id as string, productId: catalogue.product.id as string, element: checkoutElement.id as string };
}

beforeAll(async () => {
  [ws, other] = await Promise.all([newWorkspace('Subscription plans', ['testMode=true']), newWorkspace('Subscription plans elsewhere', ['testMode=true'])]);
  [basic, pro, weekly, oneTime] = await Promise.all([
    offer(ws, 900, { recurringInterval: 'month' }),
    offer(ws, 2000, { recurringInterval: 'month' }),
    offer(ws, 500, { recurringInterval: 'week' }),
    offer(ws, 700, {}),
  ]);
}, SLOW);

type Item = { offerId?: string; unitPrice?: number; value?: number; price?: number; quantity?: number };

const update = (id: string, items: Item[], workspace = ws, key: KeyChoice = TEST) =>
  restClient(workspace, key).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/update', { params: { path: { subscriptionIdOrNumber: id } }, body: { items } });
const create = (userId: string, items: Item[], workspace = ws, key: KeyChoice = TEST) => restClient(workspace, key).POST('/v0/subscriptions/create', { body: { userId, items } });
const details = async (id: string) => (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}', { params: { path: { subscriptionIdOrNumber: id } } }))).subscription;
const upcoming = async (id: string) =>
  (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}/upcoming-payment', { params: { path: { subscriptionIdOrNumber: id } } }))).upcomingPayment;
const row = (id: string) => salesDb().subscription.findUniqueOrThrow({ where: { id } });

/** The documented proration (Stripe's create_prorations): the remaining share of each period price, rounded, new minus old. */
const share = (amount: number, remaining: number, length: number) => Math.round((amount * remaining) / length);

describe('update: items, aliases and precedence', () => {
  test('unitPrice wins over value and price, value over price; each alias alone; several items; the offer defaults to the first item\'s; the renewal and upcoming payment price from them', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    // At the very start of the period almost the whole period is prorated: keep the price even.
    const { subscription: same } = await ok(update(order.number, [{ unitPrice: 900, value: 1, price: 2 }]));
    expect(same).toMatchObject({ id: order.number, amount: 900 });
    const cases: [Item, number][] = [
      [{}, 900],
      [{ value: 800, price: 3 }, 800],
      [{ price: 700 }, 700],
      [{ value: 650 }, 650],
      [{ unitPrice: 600, price: 5 }, 600],
    ];
    for (const [item, unitPrice] of cases) {
      await ok(update(order.number, [item]));
      expect((await details(order.number)).planItems).toEqual([{ offerId: basic.offerId, productId: basic.productId, unitPrice, quantity: 1 }]);
    }
    const { subscription: several, payment } = await ok(update(order.number, [{ offerId: basic.offerId, unitPrice: 200, quantity: 2 }, { offerId: pro.offerId, value: 150 }]));
    expect(several.amount).toBe(550);
    expect(payment).toBeNull();
    expect((await details(order.number)).planItems).toEqual([
      { offerId: basic.offerId, productId: basic.productId, unitPrice: 200, quantity: 2 },
      { offerId: pro.offerId, productId: pro.productId, unitPrice: 150, quantity: 1 },
    ]);
    // Every change was a downgrade or even: no payment, the credit kept for the renewals.
    expect((await paymentsOf(subscription.id)).map((p) => p.number)).toEqual([order.number]);
    const credit = (await row(subscription.id)).credit;
    const next = await upcoming(order.number);
    expect(credit).toBeGreaterThan(0);
    expect(next).toMatchObject({ subtotal: 550, credit: Math.min(credit, 550), amount: 550 - Math.min(credit, 550) });
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    const renewal = (await paymentsOf(subscription.id)).at(-1)!;
    expect(renewal).toMatchObject({ number: `${order.number}-2`, status: 'PAID', amount: next!.amount, planChange: false });
    // subscription_updated per applied change.
    expect((await subscriptionEvents(ws, order.number)).filter((e) => e.type === 'subscription_updated')).toHaveLength(cases.length + 2);
  }, SLOW);
});

describe('plan change with proration', () => {
  test('an upgrade 10 days in: a PAID plan-change payment of exactly the remaining share of 2000 less that of 900; the next renewal charges 2000; payment cancel refuses it', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    const start = subscription.currentPeriodStart!.getTime();
    const end = subscription.currentPeriodEnd!.getTime();
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodStart!) + 10 * DAY));
    const { subscription: changed, payment } = await ok(update(order.number, [{ offerId: pro.offerId }]));
    expect(changed).toMatchObject({ amount: 2000, status: 'active' });
    // The change's moment on the subscription's clock is the payment's creation (stored to the millisecond).
    const stored = await salesDb().payment.findUniqueOrThrow({ where: { id: payment!.id } });
    const exactRemaining = end - stored.createdAt.getTime();
    expect(payment).toMatchObject({ number: `${order.number}-2`, status: 'PAID', planChange: true, amount: share(2000, exactRemaining, end - start) - share(900, exactRemaining, end - start), tax: 0 });
    expect(payment!.amount).toBeGreaterThan(700);
    expect(stored.subscriptionPeriod).toBeNull();
    // One charge at the processor, keyed by the payment (its payment workflow's first attempt).
    const charges = await salesDb().sandboxCharge.findMany({ where: { paymentId: payment!.id } });
    expect(charges.map((c) => [c.amount, c.idempotencyKey])).toEqual([[payment!.amount, chargeIdempotencyKey(payment!.id, 0)]]);

    const cancelPayment = await failure(restClient(ws, TEST).PATCH('/v0/payments/{paymentId}/cancel', { params: { path: { paymentId: payment!.id } }, body: {} }));
    expect(cancelPayment.status).toBe(400);

    const next = await upcoming(order.number);
    expect(next).toMatchObject({ amount: 2000, subtotal: 2000, credit: 0, date: seconds(subscription.currentPeriodEnd!) });
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    const renewal = (await paymentsOf(subscription.id)).at(-1)!;
    expect(renewal).toMatchObject({ number: `${order.number}-3`, status: 'PAID', amount: 2000, subscriptionPeriod: 2 });
  }, SLOW);

  test('with DE VAT 19%: the plan-change payment prorates the taxed prices and books the prorated tax', async () => {
    const { order, subscription } = await subscribe(ws, basic.element, { billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    const start = subscription.currentPeriodStart!.getTime();
    const end = subscription.currentPeriodEnd!.getTime();
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodStart!) + 20 * DAY));
    const { payment } = await ok(update(order.number, [{ offerId: pro.offerId }]));
    const at = (await salesDb().payment.findUniqueOrThrow({ where: { id: payment!.id } })).createdAt.getTime();
    const [left, length] = [end - at, end - start];
    expect(payment).toMatchObject({ status: 'PAID', planChange: true, amount: share(2380, left, length) - share(1071, left, length), tax: share(380, left, length) - share(171, left, length) });
    expect((await upcoming(order.number))).toMatchObject({ amount: 2380, tax: 380 });
  }, SLOW);

  test('a downgrade: no payment; its credit (the remaining share of 900 less that of 300) is taken off the next renewals until used up, the upcoming payment showing each', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    const start = subscription.currentPeriodStart!.getTime();
    const end = subscription.currentPeriodEnd!.getTime();
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodStart!) + 5 * DAY));
    const before = Date.now();
    const { subscription: changed, payment } = await ok(update(order.number, [{ unitPrice: 300 }]));
    expect(payment).toBeNull();
    expect(changed.amount).toBe(300);
    const after = Date.now();
    const { credit, clockOffsetMs } = await row(subscription.id);
    // The change ran at the subscription's clock between the request and the answer.
    const creditAt = (realMs: number) => {
      const remaining = end - (realMs + Number(clockOffsetMs));
      return share(900, remaining, end - start) - share(300, remaining, end - start);
    };
    expect(credit).toBeGreaterThanOrEqual(creditAt(after));
    expect(credit).toBeLessThanOrEqual(creditAt(before));
    expect(credit).toBeGreaterThan(300);

    expect(await upcoming(order.number)).toMatchObject({ subtotal: 300, credit: 300, amount: 0 });
    const second = await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    expect(await upcoming(order.number)).toMatchObject({ subtotal: 300, credit: credit - 300, amount: 600 - credit });
    await ok(advance(ws, order.number, second.subscription.currentPeriodEnd! + 60));
    const renewals = (await paymentsOf(subscription.id)).slice(1);
    expect(renewals.map((p) => [p.status, p.amount])).toEqual([['PAID', 0], ['PAID', 600 - credit]]);
    expect((await row(subscription.id)).credit).toBe(0);
    expect((await upcoming(order.number))!.amount).toBe(300);
  }, SLOW);

  test('a declined plan-change charge: the payment FAILED, the items and amount unchanged', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    await ok(replaceCard(ws, order.number, DECLINES_OFF_SESSION));
    const { subscription: after, payment } = await ok(update(order.number, [{ offerId: pro.offerId }]));
    expect(payment).toMatchObject({ status: 'FAILED', planChange: true, failureCode: 'generic_decline' });
    expect(after).toMatchObject({ amount: 900, status: 'active' });
    expect((await details(order.number)).planItems).toEqual([{ offerId: basic.offerId, productId: basic.productId, unitPrice: 900, quantity: 1 }]);
    expect((await row(subscription.id)).items).toBeNull();
  }, SLOW);

  test('while trialing: the change applies free (nothing was paid), the trial end charges the new items', async () => {
    const trial = await offer(ws, 900, { recurringInterval: 'month', trialInterval: 'week' });
    const { order, subscription } = await subscribe(ws, trial.element);
    const { subscription: changed, payment } = await ok(update(order.number, [{ offerId: trial.offerId, unitPrice: 1500 }]));
    expect(payment).toBeNull();
    expect(changed).toMatchObject({ status: 'trialing', amount: 1500 });
    expect((await row(subscription.id)).credit).toBe(0);
    await ok(advance(ws, order.number, seconds(subscription.trialEndsAt!) + 60));
    expect((await paymentsOf(subscription.id)).at(-1)).toMatchObject({ status: 'PAID', amount: 1500 });
  }, SLOW);
});

describe('update: errors', () => {
  test('400 for items the rules refuse, a state that cannot change; 404 for #number, unknown and other workspaces; read keys refused; nothing changed', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    const elsewhere = await offer(other, 900, { recurringInterval: 'month' });
    const refusals: Item[][] = [
      [],
      Array.from({ length: 21 }, () => ({ unitPrice: 1 })),
      [{ unitPrice: -1 }],
      [{ unitPrice: 0 }],
      [{ unitPrice: 1.5 }],
      [{ unitPrice: 100, quantity: 0 }],
      [{ unitPrice: 100, quantity: 10_001 }],
      [{ offerId: weekly.offerId }],
      [{ offerId: oneTime.offerId }],
      [{ offerId: elsewhere.offerId }],
      [{ offerId: '00000000-0000-4000-8000-000000000000' }],
      [{ offerId: 'not-a-uuid' }],
    ];
    for (const items of refusals) {
      const answer = await failure(update(order.number, items));
      expect([items, answer.status]).toEqual([items, 400]);
      expect(answer.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    }
    expect((await failure(update(`#${order.number}`, [{ unitPrice: 100 }]))).status).toBe(404);
    expect((await failure(update('0000000000UNKNOWN', [{ unitPrice: 100 }]))).status).toBe(404);
    expect((await failure(update(order.number, [{ unitPrice: 100 }], other))).status).toBe(404);
    expect((await failure(update(order.number, [{ unitPrice: 100 }], ws, { mode: 'live' }))).status).toBe(404);
    expect((await failure(update(order.number, [{ unitPrice: 100 }], ws, { ...TEST, write: false }))).status).toBe(401);
    expect((await failure(update('bad id!', [{ unitPrice: 100 }]))).status).toBe(400);
    await ok(lifecycle(ws, 'pause', order.number));
    expect(await failure(update(order.number, [{ unitPrice: 100 }]))).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/paused/) } } });
    await ok(cancel(ws, order.number));
    expect((await failure(update(order.number, [{ unitPrice: 100 }]))).status).toBe(400);
    expect(await row(subscription.id)).toMatchObject({ items: null, credit: 0, amount: 900 });
    expect(await paymentsOf(subscription.id)).toHaveLength(1);
  }, SLOW);
});

describe('GraphQL', () => {
  test('updateSubscription: the same change as REST (the deprecated value alias), errors as BAD_REQUEST and NOT_FOUND', async () => {
    const { order } = await subscribe(ws, basic.element);
    const mutate = graphqlClient(ws, TEST);
    const changed = await mutate(UpdateSubscriptionDocument, { subscriptionIdOrNumber: order.number, items: [{ value: 400, price: 1 }] });
    expect(changed).toEqual({ status: 200, data: { updateSubscription: { subscription: { id: order.number, amount: 400 }, payment: null } } });
    const upgraded = await mutate(UpdateSubscriptionDocument, { subscriptionIdOrNumber: order.number, items: [{ offerId: pro.offerId }] });
    expect(upgraded.data?.updateSubscription.payment).toMatchObject({ number: `${order.number}-2`, status: 'PAID', planChange: true });
    expect((await mutate(UpdateSubscriptionDocument, { subscriptionIdOrNumber: order.number, items: [] })).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect((await mutate(UpdateSubscriptionDocument, { subscriptionIdOrNumber: `#${order.number}`, items: [{ unitPrice: 1 }] })).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  }, SLOW);
});

describe('create', () => {
  test('for a buyer with a saved card: charged now on it (PAID, active), its workflow renews it; items with aliases and precedence', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    const { subscription, payment } = await ok(create(userId, [{ offerId: pro.offerId, unitPrice: 1800, value: 1, price: 2 }, { offerId: basic.offerId, value: 100, price: 5, quantity: 2 }, { offerId: basic.offerId, price: 50 }]));
    expect(subscription).toMatchObject({ object: 'subscription', status: 'active', amount: 2050, userId, recurringInterval: 'month' });
    expect(payment).toMatchObject({ number: subscription.id, status: 'PAID', amount: 2050, planChange: false });
    expect(subscription.currentPeriodEnd! - subscription.currentPeriodStart!).toBeGreaterThanOrEqual(28 * DAY);
    const stored = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscription.id } });
    expect(stored.paymentMethodRef).toBe(first.paymentMethodRef);
    const charges = await salesDb().sandboxCharge.findMany({ where: { paymentId: payment!.id } });
    expect(charges.map((c) => [c.amount, c.idempotencyKey])).toEqual([[2050, chargeIdempotencyKey(payment!.id, 0)]]);
    // Its order shows the items as given.
    const order = await salesDb().order.findFirstOrThrow({ where: { subscriptionId: stored.id }, include: { items: { orderBy: { position: 'asc' } } } });
    expect(order.items.map((i) => [i.offerId, i.unitPrice, i.quantity])).toEqual([[pro.offerId, 1800, 1], [basic.offerId, 100, 2], [basic.offerId, 50, 1]]);
    expect((await subscriptionEvents(ws, subscription.id)).map((e) => e.type)).toEqual(['subscription_created']);
    // Its workflow runs: the renewal a month on.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && !(await upcoming(subscription.id)); ) await new Promise((r) => setTimeout(r, 100));
    await ok(advance(ws, subscription.id, subscription.currentPeriodEnd! + 60));
    expect((await paymentsOf(stored.id)).map((p) => [p.number, p.status, p.amount])).toEqual([[subscription.id, 'PAID', 2050], [`${subscription.id}-2`, 'PAID', 2050]]);
  }, SLOW);

  test('a trial offer: nothing charged now (a payment of 0, PAID), trialing; its end charges the items on the saved card', async () => {
    const trial = await offer(ws, 1200, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 2 });
    const { subscription: first } = await subscribe(ws, basic.element);
    const { subscription, payment } = await ok(create(first.userId!, [{ offerId: trial.offerId }]));
    expect(subscription).toMatchObject({ status: 'trialing', amount: 1200 });
    expect(payment).toMatchObject({ status: 'PAID', amount: 0 });
    expect(subscription.trialEndsAt! - subscription.currentPeriodStart!).toBe(14 * DAY);
    expect(await salesDb().sandboxCharge.count({ where: { paymentId: payment!.id } })).toBe(0);
    await ok(advance(ws, subscription.id, subscription.trialEndsAt! + 60));
    const stored = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscription.id } });
    expect(stored.status).toBe('active');
    expect((await paymentsOf(stored.id)).map((p) => [p.status, p.amount])).toEqual([['PAID', 0], ['PAID', 1200]]);
  }, SLOW);

  test('a declined saved card: the payment FAILED and the subscription incomplete_expired, in the answer', async () => {
    const { order, subscription: first } = await subscribe(ws, basic.element);
    await ok(replaceCard(ws, order.number, DECLINES_OFF_SESSION));
    const { subscription, payment } = await ok(create(first.userId!, [{ offerId: basic.offerId }]));
    expect(subscription.status).toBe('incomplete_expired');
    expect(payment).toMatchObject({ status: 'FAILED', failureCode: 'generic_decline' });
  }, SLOW);

  test('400 for a buyer without a saved card, items the rules refuse, offers on other terms; 404 for unknown, archived and other workspaces\' buyers; read keys refused', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    const cardless = await newBuyer(ws, undefined, TEST);
    const before = await salesDb().subscription.count({ where: { workspaceId: ws.workspaceId } });
    expect(await failure(create(cardless.id, [{ offerId: basic.offerId }]))).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringMatching(/saved card/) } } });
    const refusals: Item[][] = [[], [{ unitPrice: 100 }], [{ offerId: basic.offerId }, { offerId: weekly.offerId }], [{ offerId: oneTime.offerId }], [{ offerId: basic.offerId, value: -5 }], [{ offerId: 'x' }]];
    for (const items of refusals) expect([items, (await failure(create(userId, items))).status]).toEqual([items, 400]);
    expect((await failure(create('not-a-uuid', [{ offerId: basic.offerId }]))).status).toBe(400);
    expect((await failure(create('00000000-0000-4000-8000-000000000000', [{ offerId: basic.offerId }]))).status).toBe(404);
    expect((await failure(create(userId, [{ offerId: basic.offerId }], other))).status).toBe(404);
    expect((await failure(create(userId, [{ offerId: basic.offerId }], ws, { mode: 'live' }))).status).toBe(404);
    expect((await failure(create(userId, [{ offerId: basic.offerId }], ws, { ...TEST, write: false }))).status).toBe(401);
    await ok(restClient(ws, TEST).PATCH('/v0/users/{userId}/archive', { params: { path: { userId } }, body: {} }));
    expect((await failure(create(userId, [{ offerId: basic.offerId }]))).status).toBe(404);
    expect(await salesDb().subscription.count({ where: { workspaceId: ws.workspaceId } })).toBe(before);
  }, SLOW);
});
