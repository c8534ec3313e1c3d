import { randomUUID } from 'node:crypto';

import '../src/refunds/module.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { markPaymentPaid, recordCharge } from '../src/payments/transitions.js';
import { applyPartOutcome } from '../src/refunds/bookkeeping.js';
import { findRefund, requestRefund } from '../src/refunds/service.js';
import { newWorkspace } from './support/api.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';

// A refund split over two payments of an order (a subscription's renewal) where the processor
// refunds one share and fails the other: the refund is partially_failed, never succeeded for less
// money than its amount; the failed share is refundable again, the succeeded one stays refunded.
// The bookkeeping applied as the workflow applies it, on the suite's database.

test('one share succeeded, the other failed: partially_failed, the failed money back on the books', async () => {
  const ws = await newWorkspace('Refund split', ['testMode=true']);
  const { order, payment: first } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } }, { mode: 'test' });
  const second = await salesDb().payment.create({
    data: { workspaceId: first.workspaceId, livemode: first.livemode, orderId: order.id, sequence: first.sequence + 1, number: `${first.number}-renewal`, amount: first.amount, currency: first.currency, processor: 'sandbox', methodType: 'card' },
  });
  for (const payment of [first, second]) {
    const chargeId = `ch_${randomUUID()}`;
    await salesDb().$transaction(async (tx) => {
      await recordCharge(tx, payment.id, 0, { processor: 'sandbox', processorChargeId: chargeId, status: 'succeeded', amount: payment.amount, currency: 'USD' });
      await markPaymentPaid(tx, payment.id, { processorChargeId: chargeId });
    });
  }
  const deps = { prisma: salesDb(), processor: new SandboxProcessor({ prisma: salesDb() }), now: () => new Date() };
  const { refund } = await requestRefund(deps, { workspaceId: ws.workspaceId, livemode: false }, { refundsEnabled: true }, order.id, { idempotencyKey: 'split' });
  expect(refund.parts).toHaveLength(2);
  const partOf = (paymentId: string) => refund.parts.find((p) => p.paymentId === paymentId)!;

  expect((await applyPartOutcome(salesDb(), partOf(second.id).id, { processorRefundId: 're_ok', status: 'succeeded' })).status).toBe('pending');
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
