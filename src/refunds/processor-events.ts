// The processor's refund events, mapped to our refund part by the processor's refund id:
// refund.failed puts the money back on the books, charge.refunded confirms a pending refund.
// An event for a refund we do not know yet while a part of that charge still waits for the
// processor's answer is thrown back (the webhook is redelivered once the answer is recorded);
// others (refunds made in the processor's dashboard) are ignored.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { RefundEventHandler } from '../payments/processor-callbacks.js';
import { applyPartOutcome, partOfProcessorRefund } from './bookkeeping.js';

export class RefundNotRecordedYet extends Error {}

export const handleRefundEvent: RefundEventHandler = async (prisma: PrismaClient, event) => {
  if (!event.refundId) return;
  const part = await partOfProcessorRefund(prisma, event.processor, event.refundId);
  if (!part) {
    const waiting = await prisma.refundPart.count({ where: { processor: event.processor, processorChargeId: event.chargeId, status: 'pending', processorRefundId: null } });
    if (waiting > 0) throw new RefundNotRecordedYet(`Refund ${event.refundId} of charge ${event.chargeId} is not recorded yet`);
    return;
  }
  if (event.type === 'refund.failed') {
    await applyPartOutcome(prisma, part.id, { processorRefundId: event.refundId, status: 'failed', failureCode: event.failureCode, failureMessage: `The processor failed the refund (${event.failureCode})` });
  } else {
    await applyPartOutcome(prisma, part.id, { processorRefundId: event.refundId, status: 'succeeded' });
  }
};
