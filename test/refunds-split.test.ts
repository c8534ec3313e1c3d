import { randomUUID } from 'node:crypto';

import '../src/refunds/module.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { markPaymentPaid, recordCharge } from '../src/payments/transitions.js';
import { applyPartOutcome } from '../src/refunds/bookkeeping.js';
import { findRefund, requestRefund } from '../src/refunds/service.js';
import { newWorkspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { restClient } from './support/client.js';
import { deliverSandboxWebhooks, getOrder, getPayment, refund, refundable, REFUND_FAILS, TEST } from './support/refunds.js';
import { ok } from './support/responses.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';
import { advance, replaceCard, seconds, subscribe, subscriptionElement } from './support/subscriptions.js';

// A refund split over two payments of an order (a subscription's renewal) where the processor
// refunds one share and fails the other: the refund is partially_failed, never succeeded for less
// money than its amount; the failed share is refundable again, the succeeded one stays refunded.
// End to end through HTTP, the refund workflow and the sandbox; and the bookkeeping fed each
// outcome by hand, in the order the workflow cannot choose.

test('end to end: a renewal charged on a card whose refunds fail, a full refund over HTTP is partially_failed once its processor event arrives', async () => {
  const ws = await newWorkspace('Refund split end to end', ['testMode=true']);
  const { order, subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
  // The renewal is charged on the card whose refunds the sandbox accepts, then fails.
  await ok(replaceCard(ws, order.number, REFUND_FAILS));
  expect((await ok(advance(ws, order.number, seconds(subscription.currentPeriodEnd!) + 60))).subscription.status).toBe('active');
  const { payments } = await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/payments/list', { params: { query: { subscriptionNumber: order.number, orderDirection: 'ASC' } } }));
  const [first, renewal] = payments;
  expect(payments.map((p) => [p.number, p.status, p.amount])).toEqual([[order.number, 'PAID', 900], [`${order.number}-2`, 'PAID', 900]]);

  const requested = await ok(refund(ws, order.id, { idempotencyKey: 'split-end-to-end' }));
  expect(requested).toMatchObject({ status: 'pending', amount: 1800 });
  // The sandbox's refund.failed event about the renewal's charge, delivered as its relay would.
  expect(await deliverSandboxWebhooks([renewal!.processorChargeId!])).toBeGreaterThan(0);
  const shown = await eventually(() => getOrder(ws, order.id), (o) => o.refunds.some((r) => r.refundId === requested.refundId && r.status !== 'pending'));
  expect(shown.refunds).toEqual([expect.objectContaining({ refundId: requested.refundId, status: 'partially_failed', amount: 1800, failureCode: 'expired_or_canceled_card' })]);
  expect(shown.status).toBe('PARTIALLY_REFUNDED');
  expect([await getPayment(ws, first!.id), await getPayment(ws, renewal!.id)].map((p) => [p.status, p.refundedAmount])).toEqual([['REFUNDED', 900], ['PAID', 0]]);
  // The failed share's money is refundable again; the succeeded share's is not.
  expect((await ok(refundable(ws, order.id))).refundable.amount).toBe(900);
  expect(await eventsAbout(ws, 'payment_refunded', 'payment', first!.id)).toHaveLength(1);
  expect(await eventsAbout(ws, 'refund_failed', 'payment', renewal!.id)).toHaveLength(1);
}, 180_000);

test('one share succeeded, the other failed: partially_failed, the failed money back on the books', async () => {
  const ws = await newWorkspace('Refund split', ['testMode=true']);
  const { order, payment: first } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } }, { mode: 'test' });
  const second = await salesDb().payment.create({
    data: { workspaceId: first.workspaceId, livemode: first.livemode, orderId: order.id, sequence: first.sequence + 1, number: `${first.number}-renewal`, amount: first.amount, currency: first.currency, processor: 'sandbox', methodType: 'card' },
  });
  const sandbox = new SandboxProcessor({ prisma: salesDb() });
  const chargeIds: string[] = [];
  for (const payment of [first, second]) {
    // Charges the sandbox holds, so that the books agree with the processor's (test/support/invariants.ts).
    const { chargeId } = await sandbox.createCharge({
      paymentId: payment.id, idempotencyKey: `split-${randomUUID()}`, amount: payment.amount, currency: payment.currency, method: 'card',
      card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' }, email: 'split@example.com', livemode: false,
    });
    chargeIds.push(chargeId);
    await salesDb().$transaction(async (tx) => {
      await recordCharge(tx, payment.id, 0, { processor: 'sandbox', processorChargeId: chargeId, status: 'succeeded', amount: payment.amount, currency: 'USD' });
      await markPaymentPaid(tx, payment.id, { processorChargeId: chargeId });
    });
  }
  const deps = { prisma: salesDb(), processor: new SandboxProcessor({ prisma: salesDb() }), now: () => new Date() };
  const { refund } = await requestRefund(deps, { workspaceId: ws.workspaceId, livemode: false }, { refundsEnabled: true }, order.id, { idempotencyKey: 'split' });
  expect(refund.parts).toHaveLength(2);
  const partOf = (paymentId: string) => refund.parts.find((p) => p.paymentId === paymentId)!;

  const { refundId: processorRefundId } = await sandbox.refund({ chargeId: chargeIds[1]!, amount: second.amount, idempotencyKey: `split-${randomUUID()}` });
  expect((await applyPartOutcome(salesDb(), partOf(second.id).id, { processorRefundId, status: 'succeeded' })).status).toBe('pending');
  const settled = await applyPartOutcome(salesDb(), partOf(first.id).id, { processorRefundId: null, status: 'failed', failureCode: 'expired_or_canceled_card', failureMessage: 'The card was canceled' });
  // The refund the bookkeeping returns (the workflow's result, the HTTP answer) is the row as stored.
  expect(settled).toEqual(await findRefund(salesDb(), refund.id));

  expect(settled).toMatchObject({
    status: 'partially_failed',
    amount: first.amount + second.amount,
    failureCode: 'expired_or_canceled_card',
    order: { status: 'PARTIALLY_REFUNDED' },
  });
  const payments = await salesDb().payment.findMany({ where: { orderId: order.id }, orderBy: { sequence: 'asc' } });
  expect(payments.map((p) => [p.status, p.refundedAmount])).toEqual([['PAID', 0], ['REFUNDED', second.amount]]);
  expect(await eventsAbout(ws, 'payment_refunded', 'payment', second.id)).toHaveLength(1);
  expect(await eventsAbout(ws, 'refund_failed', 'payment', first.id)).toHaveLength(1);
  // The same answers again (a retried activity, a redelivered webhook) change nothing.
  expect(await applyPartOutcome(salesDb(), partOf(first.id).id, { processorRefundId: null, status: 'failed' })).toEqual(settled);
});
