// The refund workflow's activity (workflows/refund.ts): one part refunded at its payment's
// processor and booked, in one activity. The processor call is keyed by the refund
// (refundIdempotencyKey), so a retried activity or a worker killed after the processor answered
// gets the same processor refund back, never a second one; the bookkeeping is idempotent
// (./bookkeeping.ts). Both in one activity: a retry after a failed bookkeeping asks the processor
// again, which answers with the same refund.
import type { ActivityDependencies } from '../domain-module.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor } from '../payments/processors/index.js';
import { ProcessorError, type PaymentProcessor, type ProcessorName } from '../payments/processors/processor.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { applyPartOutcome, type PartOutcome } from './bookkeeping.js';
import { refundResource, type RefundResource } from './resource.js';

/** The processor's idempotency key of a refund's share of one payment. */
export const refundIdempotencyKey = (refundId: string, paymentId: string) => `refund/${refundId}/${paymentId}`;

/** What the processor is asked for one part of a refund (the workflow's input carries it: no read of the part before the call). */
export interface PartToRefund {
  partId: string;
  refundId: string;
  paymentId: string;
  processor: ProcessorName;
  processorChargeId: string;
  amount: number;
}

/**
 * Refunds one part at the payment's own processor. An error that retrying cannot fix (a refused
 * request, a charge that cannot be refunded, a processor not configured here) is the answer
 * `failed` with its reason; a transient one is thrown (the activity is retried).
 */
async function refundAtProcessor(prisma: PrismaClient, configured: PaymentProcessor, part: PartToRefund): Promise<PartOutcome> {
  const processor = processorFor(part.processor, configured, { prisma });
  if (!processor) return { processorRefundId: null, status: 'failed', failureCode: 'processor_not_configured', failureMessage: `The ${part.processor} processor is not configured here` };
  try {
    const result = await processor.refund({
      chargeId: part.processorChargeId,
      amount: part.amount,
      idempotencyKey: refundIdempotencyKey(part.refundId, part.paymentId),
      metadata: { refundId: part.refundId, paymentId: part.paymentId },
    });
    return { processorRefundId: result.refundId, status: result.status };
  } catch (error) {
    if (error instanceof ProcessorError && !error.retryable) return { processorRefundId: null, status: 'failed', failureCode: error.code, failureMessage: error.message };
    throw error;
  }
}

export function createRefundActivities({ prisma }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  return {
    /** One part refunded at its processor and its answer booked: the refund as it is afterwards. */
    async refundPart(part: PartToRefund): Promise<RefundResource> {
      const outcome = await refundAtProcessor(prisma, configured, part);
      return refundResource(await applyPartOutcome(prisma, part.partId, outcome));
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
