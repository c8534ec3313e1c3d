import { randomUUID } from 'node:crypto';

import { newWorkspace, type Workspace } from './support/api.js';
import { card, orderBody, payCheckout } from './support/checkout.js';
import { restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { advance, DAY, paymentsOf, seconds, subscribe, subscriptionElement, TEST, VISA } from './support/subscriptions.js';

// Trials (the card saved by a zero-amount setup at the processor, charged when the trial ends),
// end-trial, and the upcoming payment computed by the code that charges it, through HTTP.

const SLOW = 180_000;

let ws: Workspace;
let trial: string;
let monthly: string;

beforeAll(async () => {
  ws = await newWorkspace('Subscription trials', ['testMode=true']);
  [trial, monthly] = await Promise.all([
    subscriptionElement(ws, 900, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 2 }),
    subscriptionElement(ws, 1000),
  ]);
}, SLOW);

const upcoming = async (id: string, key = TEST) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}/upcoming-payment', { params: { path: { subscriptionIdOrNumber: id } } }))).upcomingPayment;
const endTrial = (id: string) => restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/end-trial', { params: { path: { subscriptionIdOrNumber: id } }, body: {} });

describe('trials', () => {
  test('checkout saves the card without charging (order and payment of 0), trialing for 2 weeks; at the trial end the first period is charged and it is active', async () => {
    const { order, subscription } = await subscribe(ws, trial);
    expect(order.value).toBe(0);
    expect(subscription).toMatchObject({ status: 'trialing', amount: 900, paymentMethodRef: expect.stringMatching(/^pm_sbx_/) });
    expect(subscription.trialEndsAt!.getTime() - subscription.currentPeriodStart!.getTime()).toBe(14 * DAY * 1000);
    expect(subscription.currentPeriodEnd).toEqual(subscription.trialEndsAt);
    const [first] = await paymentsOf(subscription.id);
    expect(first).toMatchObject({ status: 'PAID', amount: 0 });
    // No money moved at the processor.
    expect(await salesDb().sandboxCharge.count({ where: { paymentId: first!.id } })).toBe(0);

    const next = await upcoming(order.number);
    expect(next).toMatchObject({ object: 'upcoming_payment', subscriptionId: order.number, amount: 900, subtotal: 900, tax: 0, discount: 0, currency: 'USD', retry: false });
    expect(next!.date).toBe(seconds(subscription.trialEndsAt!));

    const { subscription: active } = await ok(advance(ws, order.number, seconds(subscription.trialEndsAt!) + 60));
    expect(active).toMatchObject({ status: 'active', currentPeriodStart: seconds(subscription.trialEndsAt!) });
    const [, charged] = await paymentsOf(subscription.id);
    expect(charged).toMatchObject({ status: 'PAID', amount: next!.amount, number: `${order.number}-2` });
    // A month from the trial's end.
    expect(active.currentPeriodEnd! - active.currentPeriodStart!).toBeGreaterThanOrEqual(28 * DAY);
  }, SLOW);

  test('end-trial: charged now and active in the answer; not trialing is 400', async () => {
    const { order, subscription } = await subscribe(ws, trial);
    const { subscription: ended } = await ok(endTrial(order.number));
    expect(ended).toMatchObject({ status: 'active' });
    expect(ended.trialEndsAt).toBeLessThan(seconds(subscription.trialEndsAt!));
    expect((await paymentsOf(subscription.id)).map((p) => [p.status, p.amount])).toEqual([['PAID', 0], ['PAID', 900]]);
    expect((await failure(endTrial(order.number))).status).toBe(400);
    expect((await failure(endTrial(`#${order.number}`))).status).toBe(404);
  }, SLOW);

  test('a declined card at a trial checkout: 402, nothing saved, the subscription never starts', async () => {
    const { status, body } = await payCheckout(trial, orderBody({ card: card('4000000000000002') }), randomUUID());
    expect(status).toBe(402);
    expect(body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    const order = await salesDb().order.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, checkoutId: trial }, orderBy: { createdAt: 'desc' }, include: { subscription: true } });
    expect(order.subscription).toMatchObject({ status: 'incomplete_expired', paymentMethodRef: null });
  }, SLOW);
});

describe('upcoming payment', () => {
  test('equals the charge that follows, tax per period at the billing address (DE VAT 19%); null once a cancel is scheduled', async () => {
    const { order, subscription } = await subscribe(ws, monthly, { billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    const next = await upcoming(order.number);
    expect(next).toMatchObject({ amount: 1190, subtotal: 1000, tax: 190, taxInclusive: false, date: seconds(subscription.currentPeriodEnd!) });
    expect(next!.taxes).toEqual([{ type: 'VAT', rate: 0.19, jurisdiction: 'DE', amount: 190 }]);
    await ok(advance(ws, order.number, next!.date + 60));
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'PAID', amount: next!.amount, tax: next!.tax });
    await ok(restClient(ws, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { params: { path: { subscriptionIdOrNumber: order.number } }, body: { cancelAtIntervalEnd: true } }));
    expect(await upcoming(order.number)).toBeNull();
  }, SLOW);

  test('read keys suffice; #number, other workspaces and malformed ids are 404/404/400', async () => {
    const { order } = await subscribe(ws, monthly, { cardNumber: VISA });
    expect(await upcoming(order.number)).toMatchObject({ amount: 1000 });
    const other = await newWorkspace('Upcoming elsewhere', ['testMode=true']);
    const get = (w: Workspace, id: string) => restClient(w, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}/upcoming-payment', { params: { path: { subscriptionIdOrNumber: id } } });
    expect((await failure(get(ws, `#${order.number}`))).status).toBe(404);
    expect((await failure(get(other, order.number))).status).toBe(404);
    expect((await failure(get(ws, 'x!'))).status).toBe(400);
  }, SLOW);
});

describe('charge with items', () => {
  const charge = (id: string, items: Record<string, unknown>[]) =>
    restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/charge', { params: { path: { subscriptionIdOrNumber: id } }, body: { items: items as never } });

  test('several items; unitPrice wins over value, value over price; a payment {number}-{n} PAID on the saved card', async () => {
    const { order, subscription } = await subscribe(ws, monthly);
    const { payment, subscription: after } = await ok(
      charge(order.number, [
        { unitPrice: 100, value: 999, price: 999, quantity: 2 },
        { value: 50, price: 999 },
        { price: 7, quantity: 3 },
      ]),
    );
    expect(payment).toMatchObject({ object: 'payment', number: `${order.number}-2`, status: 'PAID', amount: 2 * 100 + 50 + 3 * 7, subscriptionId: order.number });
    expect(after.status).toBe('active');
    expect(await salesDb().sandboxCharge.count({ where: { paymentId: payment.id } })).toBe(1);
    // The renewals keep their own price and numbering.
    await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60));
    expect((await paymentsOf(subscription.id)).map((p) => [p.number, p.amount])).toEqual([[order.number, 1000], [`${order.number}-2`, 271], [`${order.number}-3`, 1000]]);
  }, SLOW);

  test('errors: no price 400, bad quantity 400, empty 400, cancelled 400, #number 404; a declining card gives a FAILED payment', async () => {
    const { order } = await subscribe(ws, monthly);
    expect((await failure(charge(order.number, [{ quantity: 1 }]))).status).toBe(400);
    expect((await failure(charge(order.number, [{ unitPrice: 10, quantity: 0 }]))).status).toBe(400);
    expect((await failure(charge(order.number, []))).status).toBe(400);
    expect((await failure(charge(`#${order.number}`, [{ unitPrice: 10 }]))).status).toBe(404);
    await ok(restClient(ws, TEST).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method', { params: { path: { subscriptionIdOrNumber: order.number } }, body: { testCard: '4000000000000341' } }));
    expect((await ok(charge(order.number, [{ unitPrice: 10 }]))).payment).toMatchObject({ status: 'FAILED', failureCode: 'generic_decline' });
    await ok(restClient(ws, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { params: { path: { subscriptionIdOrNumber: order.number } }, body: {} }));
    expect((await failure(charge(order.number, [{ unitPrice: 10 }]))).status).toBe(400);
  }, SLOW);
});
