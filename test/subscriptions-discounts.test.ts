import { randomUUID } from 'node:crypto';

import { newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { advance, paymentsOf, subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

// Discount durations on subscriptions (Stripe's coupon durations: once, repeating N months,
// forever) through HTTP: each renewal charges the items with the checkout's discount while its
// duration covers the period, taxed on the discounted price, and the upcoming payment shows the
// same figure before each renewal.

const SLOW = 180_000;

let ws: Workspace;
let monthly: string;

beforeAll(async () => {
  ws = await newWorkspace('Subscription discounts', ['testMode=true']);
  monthly = await subscriptionElement(ws, 1000);
}, SLOW);

type Duration = { duration?: 'once' | 'repeating' | 'forever'; durationInMonths?: number };

const newDiscount = (body: { amount: number; amountType: 'percentage' | 'fixed' } & Duration) =>
  restClient(ws, TEST).POST('/v0/discounts/create', { body: { type: 'code', discountCode: `SUB${randomUUID().slice(0, 8)}`, ...body } });
const upcoming = async (id: string) =>
  (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}/upcoming-payment', { params: { path: { subscriptionIdOrNumber: id } } }))).upcomingPayment!;

/** Renews `count` times, checking before each that the upcoming payment is what the renewal then charges; the charged amounts. */
async function renewals(number: string, subscriptionId: string, count: number) {
  const charged: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const next = await upcoming(number);
    await ok(advance(ws, number, next.date + 60));
    const renewal = (await paymentsOf(subscriptionId)).at(-1)!;
    expect(renewal).toMatchObject({ status: 'PAID', amount: next.amount, tax: next.tax });
    charged.push(renewal.amount);
  }
  return charged;
}

describe('discount durations on renewals', () => {
  test('forever, 10%: every renewal 900, the upcoming payment showing subtotal 1000 and discount 100', async () => {
    const { discount } = await ok(newDiscount({ amount: 10, amountType: 'percentage', duration: 'forever' }));
    expect(discount).toMatchObject({ duration: 'forever', durationInMonths: null });
    const { order, subscription } = await subscribe(ws, monthly, { discountCode: discount.discountCode! });
    expect(order.value).toBe(900);
    expect(await upcoming(order.number)).toMatchObject({ subtotal: 1000, discount: 100, tax: 0, amount: 900 });
    expect(await renewals(order.number, subscription.id, 3)).toEqual([900, 900, 900]);
  }, SLOW);

  test('repeating 2 months, 250 off: the checkout and the renewal starting within 2 months discounted, then the full price', async () => {
    const { discount } = await ok(newDiscount({ amount: 250, amountType: 'fixed', duration: 'repeating', durationInMonths: 2 }));
    const { order, subscription } = await subscribe(ws, monthly, { discountCode: discount.discountCode! });
    expect(order.value).toBe(750);
    expect(await upcoming(order.number)).toMatchObject({ subtotal: 1000, discount: 250, amount: 750 });
    expect(await renewals(order.number, subscription.id, 3)).toEqual([750, 1000, 1000]);
    expect(await upcoming(order.number)).toMatchObject({ discount: 0, amount: 1000 });
  }, SLOW);

  test('once (the default): the checkout only', async () => {
    const { discount } = await ok(newDiscount({ amount: 50, amountType: 'percentage' }));
    expect(discount).toMatchObject({ duration: 'once', durationInMonths: null });
    const { order, subscription } = await subscribe(ws, monthly, { discountCode: discount.discountCode! });
    expect(order.value).toBe(500);
    expect(await renewals(order.number, subscription.id, 2)).toEqual([1000, 1000]);
  }, SLOW);

  test('once on a trial: the first paid period is discounted whether the trial ends on its own or by end-trial, the upcoming payment agreeing; the next is not', async () => {
    const trial = await subscriptionElement(ws, 1000, { recurringInterval: 'month', trialInterval: 'week' });
    const { discount } = await ok(newDiscount({ amount: 30, amountType: 'percentage' }));
    // The trial ends on its own (its end charged by the test clock's advance).
    const natural = await subscribe(ws, trial, { discountCode: discount.discountCode! });
    expect(natural.order.value).toBe(0);
    expect(await upcoming(natural.order.number)).toMatchObject({ subtotal: 1000, discount: 300, amount: 700 });
    expect(await renewals(natural.order.number, natural.subscription.id, 2)).toEqual([700, 1000]);
    // The trial ended early by end-trial: the same first paid period, the same discount.
    const early = await subscribe(ws, trial, { discountCode: discount.discountCode! });
    await ok(restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/end-trial', { params: { path: { subscriptionIdOrNumber: early.order.number } }, body: {} }));
    expect((await paymentsOf(early.subscription.id)).map((p) => p.amount)).toEqual([0, 700]);
    expect(await upcoming(early.order.number)).toMatchObject({ discount: 0, amount: 1000 });
    expect(await renewals(early.order.number, early.subscription.id, 1)).toEqual([1000]);
  }, SLOW);

  test('taxed on the discounted price (DE VAT 19%), and applied to the items after a plan change', async () => {
    const { discount } = await ok(newDiscount({ amount: 10, amountType: 'percentage', duration: 'forever' }));
    const { order, subscription } = await subscribe(ws, monthly, { discountCode: discount.discountCode!, billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    expect(await upcoming(order.number)).toMatchObject({ subtotal: 1000, discount: 100, tax: 171, amount: 1071 });
    expect(await renewals(order.number, subscription.id, 1)).toEqual([1071]);
    await ok(restClient(ws, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/update', { params: { path: { subscriptionIdOrNumber: order.number } }, body: { items: [{ unitPrice: 2000 }] } }));
    expect(await upcoming(order.number)).toMatchObject({ subtotal: 2000, discount: 200, tax: 342, amount: 2142 });
    expect(await renewals(order.number, subscription.id, 1)).toEqual([2142]);
  }, SLOW);
});

describe('the discount API', () => {
  test('duration and durationInMonths: repeating needs 1..120 months, the others take none; changing away from repeating drops the months', async () => {
    for (const body of [{ duration: 'repeating' }, { duration: 'repeating', durationInMonths: 0 }, { duration: 'repeating', durationInMonths: 121 }, { duration: 'once', durationInMonths: 3 }, { durationInMonths: 3 }] as Duration[]) {
      expect([body, (await failure(newDiscount({ amount: 10, amountType: 'percentage', ...body }))).status]).toEqual([body, 400]);
    }
    const { discount } = await ok(newDiscount({ amount: 10, amountType: 'percentage', duration: 'repeating', durationInMonths: 120 }));
    expect(discount).toMatchObject({ duration: 'repeating', durationInMonths: 120 });
    const update = (body: Duration) => restClient(ws, TEST).PATCH('/v0/discounts/{discountId}/update', { params: { path: { discountId: discount.id } }, body });
    expect((await ok(update({ durationInMonths: 6 }))).discount).toMatchObject({ duration: 'repeating', durationInMonths: 6 });
    expect((await ok(update({ duration: 'forever' }))).discount).toMatchObject({ duration: 'forever', durationInMonths: null });
    expect((await failure(update({ duration: 'repeating' }))).status).toBe(400);
    expect((await ok(update({ duration: 'repeating', durationInMonths: 1 }))).discount).toMatchObject({ duration: 'repeating', durationInMonths: 1 });
  }, SLOW);
});
