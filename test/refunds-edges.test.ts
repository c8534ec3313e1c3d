import { newWorkspace, type Workspace } from './support/api.js';
import { orderBody, payCheckout } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { getOrder, paidOrder, refund, refundable, refundUnits, sellingElement, TEST } from './support/refunds.js';
import { newCatalogue, salesDb } from './support/sales.js';
import { advance, paymentsOf, seconds, subscribe, subscriptionElement } from './support/subscriptions.js';

// Refunds at the edges of their input, through the suite's server (real HTTP, PostgreSQL, the
// Temporal dev server with the workflow id limit of SQL persistence, the sandbox processor).

const SLOW = 120_000;

let ws: Workspace;
let inclusive: Workspace;

beforeAll(async () => {
  [ws, inclusive] = await Promise.all([newWorkspace('Refund edges', ['testMode=true']), newWorkspace('Refund edges, prices with tax', ['testMode=true', 'pricesIncludeTax=true'])]);
}, SLOW);

test('prices with tax (a German buyer): two items refunded one after the other each return exactly their line; together what was paid', async () => {
  const catalogues = [await newCatalogue(inclusive, 1190, TEST, { currency: 'EUR' }), await newCatalogue(inclusive, 2380, TEST, { currency: 'EUR' })];
  const { checkoutElement } = await ok(restClient(inclusive, TEST).POST('/v0/elements/checkout/create', { body: { offersIds: catalogues.map((c) => c.offer.id) } }));
  const paid = await payCheckout(checkoutElement.id, orderBody({ billingDetails: { countryCode: 'DE', postalCode: '10115' } }));
  expect(paid.status).toBe(200);
  const { order } = paid.body.data;
  // 19% within each price: 1190 holds 190 of VAT, 2380 holds 380.
  expect(order).toMatchObject({ status: 'PAID', value: 3570, tax: 570, taxInclusive: true });
  const items = (await getOrder(inclusive, order.id)).items;
  const [first, second] = catalogues.map((c) => items.find((i) => i.offerId === c.offer.id)!);
  expect((await ok(refundable(inclusive, order.id))).refundable.items).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: first!.id, amount: 1190 }), expect.objectContaining({ id: second!.id, amount: 2380 })]),
  );

  const one = await refundUnits(inclusive, order.id, [{ id: first!.id, quantity: 1 }]);
  expect(one).toMatchObject({ amount: 1190, status: 'succeeded' });
  expect((await ok(refundable(inclusive, order.id))).refundable).toMatchObject({ amount: 2380, items: expect.arrayContaining([expect.objectContaining({ id: second!.id, amount: 2380 })]) });
  const two = await refundUnits(inclusive, order.id, [{ id: second!.id, quantity: 1 }]);
  expect(two).toMatchObject({ amount: 2380, status: 'succeeded' });

  expect(one.amount + two.amount).toBe(order.value);
  expect(await getOrder(inclusive, order.id)).toMatchObject({ status: 'REFUNDED' });
  const refunded = await salesDb().sandboxRefund.findMany({ where: { charge: { paymentId: paid.body.data.payment.id } } });
  expect(refunded.map((r) => r.amount).sort((a, b) => a - b)).toEqual([1190, 2380]);
}, SLOW);

test('a refund with a 255-character idempotencyKey: its workflow id fits the limit, the refund succeeds and replays', async () => {
  const { order } = await paidOrder((await sellingElement(ws)).id);
  const idempotencyKey = `${order.id}/`.padEnd(255, 'k');
  const result = await ok(refund(ws, order.id, { amount: 400, idempotencyKey }));
  expect(result).toMatchObject({ status: 'succeeded', amount: 400, replayed: false });
  expect(result.workflowId.length).toBeLessThanOrEqual(255);
  expect(await ok(refund(ws, order.id, { amount: 400, idempotencyKey }))).toMatchObject({ refundId: result.refundId, replayed: true });
}, SLOW);

test("a subscription order refunded after a trial: REFUNDED; the order's fee is its first payment's (0), not less; each payment gives back its own fee", async () => {
  const { order, subscription } = await subscribe(ws, await subscriptionElement(ws, 900, { recurringInterval: 'month', trialInterval: 'week' }));
  expect(order).toMatchObject({ value: 0, fee: 0 });
  expect((await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60))).subscription.status).toBe('active');
  const [first, renewal] = await paymentsOf(subscription.id);
  expect([first!.amount, renewal!.amount, renewal!.status]).toEqual([0, 900, 'PAID']);
  expect(renewal!.fee).toBeGreaterThan(0);

  expect(await refundUnits(ws, order.id)).toMatchObject({ amount: 900, status: 'succeeded' });
  // Every payment with money in it is refunded: the order is REFUNDED (the trial's payment of 0 stays PAID, nothing to give back).
  expect(await getOrder(ws, order.id)).toMatchObject({ status: 'REFUNDED', fee: 0 });
  expect((await salesDb().payment.findUniqueOrThrow({ where: { id: first!.id } })).status).toBe('PAID');
  // The renewal gives back the share of its own fee its rule returns (the fixed part is kept).
  const refunded = await salesDb().payment.findUniqueOrThrow({ where: { id: renewal!.id }, include: { refundParts: true } });
  expect(refunded.status).toBe('REFUNDED');
  expect(refunded.fee).toBe(renewal!.fee - refunded.refundParts.reduce((sum, part) => sum + part.feeRefunded, 0));
  expect(refunded.fee).toBeGreaterThanOrEqual(0);
}, SLOW);
