// What the processor says of one of its refunds, applied to our refund part: from its webhooks
// (Stripe's refund.created|updated|failed, the sandbox's charge.refunded and refund.failed) and from
// the reconciliation with the processor's list of refunds, through applyProcessorRefundStatus.
// succeeded books the part, failed and canceled put the money back on the books, pending records
// the processor's refund id. The part is found by the processor's refund id, else by our ids in
// the processor refund's metadata (an answer that came before the refund activity recorded it). A
// refund of one of our charges that we do not know yet while a part of that charge still waits for
// the processor's answer is thrown back (the webhook is redelivered once the answer is recorded);
// others (refunds made in the processor's dashboard) are ignored.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { RefundEventHandler, ProcessorName } from '../payments/index.js';
import { isUuid } from '../core/uuid.js';
import { applyPartOutcome, partOfProcessorRefund } from './bookkeeping.js';
import type { RefundRow } from './service.js';

export class RefundNotRecordedYet extends Error {}

/** One refund as the processor reports it. */
export interface ProcessorRefundStatus {
  processor: ProcessorName;
  processorRefundId: string;
  /** The processor's charge it refunds (our Charge's processorChargeId). */
  chargeId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  failureCode?: string | null;
  /** Our refund's and payment's ids, when the processor's refund carries them in its metadata. */
  refundId?: string | null;
  paymentId?: string | null;
}

/**
 * The part a processor's refund is: by its id, else by the metadata we set on it (then only a
 * part of the same charge that has no processor refund yet: a second one is not that part's).
 */
async function partOf(prisma: PrismaClient, refund: ProcessorRefundStatus): Promise<{ id: string } | null> {
  const known = await partOfProcessorRefund(prisma, refund.processor, refund.processorRefundId);
  if (known || !refund.refundId || !refund.paymentId || !isUuid(refund.refundId) || !isUuid(refund.paymentId)) return known;
  return prisma.refundPart.findFirst({
    where: { refundId: refund.refundId, paymentId: refund.paymentId, processor: refund.processor, processorChargeId: refund.chargeId, processorRefundId: null },
    select: { id: true },
  });
}

/**
 * Applies the processor's word on one of its refunds to our books, through the same bookkeeping as
 * the refund's workflow (idempotent: the same status twice changes nothing). Returns the refund as
 * it is afterwards, or null when the processor's refund is none of ours.
 */
export async function applyProcessorRefundStatus(prisma: PrismaClient, refund: ProcessorRefundStatus): Promise<RefundRow | null> {
  const part = await partOf(prisma, refund);
  if (!part) {
    const waiting = await prisma.refundPart.count({ where: { processor: refund.processor, processorChargeId: refund.chargeId, status: 'pending', processorRefundId: null } });
    if (waiting > 0) throw new RefundNotRecordedYet(`Refund ${refund.processorRefundId} of charge ${refund.chargeId} is not recorded yet`);
    return null;
  }
  const { processorRefundId } = refund;
  if (refund.status === 'failed' || refund.status === 'canceled') {
    const failureCode = refund.failureCode ?? refund.status;
    return applyPartOutcome(prisma, part.id, { processorRefundId, status: 'failed', failureCode, failureMessage: `The processor failed the refund (${failureCode})` });
  }
  return applyPartOutcome(prisma, part.id, { processorRefundId, status: refund.status });
}

export const handleRefundEvent: RefundEventHandler = async (prisma: PrismaClient, event) => {
  if (!event.refundId) return;
  const ours = { processor: event.processor, processorRefundId: event.refundId, chargeId: event.chargeId, refundId: event.ourRefundId ?? null, paymentId: event.paymentId };
  if (event.type === 'refund.failed') await applyProcessorRefundStatus(prisma, { ...ours, status: 'failed', failureCode: event.failureCode });
  else await applyProcessorRefundStatus(prisma, { ...ours, status: 'succeeded' });
};
