// The refund workflow's activities (workflows/refund.ts). The processor call is keyed by the
// refund (refundIdempotencyKey), so a retried activity or a worker killed after the processor
// answered gets the same processor refund back, never a second one; the bookkeeping is
// idempotent (./bookkeeping.ts).
import type { ActivityDependencies } from '../domain-module.js';
import type { RefundStatus } from '../generated/prisma/enums.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor } from '../payments/processors/index.js';
import { ProcessorError } from '../payments/processors/processor.js';
import { applyPartOutcome, type PartOutcome } from './bookkeeping.js';

/** The processor's idempotency key of a refund's share of one payment. */
export const refundIdempotencyKey = (refundId: string, paymentId: string) => `refund/${refundId}/${paymentId}`;

export function createRefundActivities({ prisma }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  return {
    /**
     * Refunds one part at the payment's own processor. An error that retrying cannot fix (a
     * refused request, a charge that cannot be refunded, a processor not configured here) is the
     * answer `failed` with its reason; a transient one fails the activity, which is retried.
     */
    async refundAtProcessor(partId: string): Promise<PartOutcome> {
      const part = await prisma.refundPart.findUniqueOrThrow({ where: { id: partId } });
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
    },

    async recordRefundOutcome(partId: string, outcome: PartOutcome): Promise<RefundStatus> {
      return applyPartOutcome(prisma, partId, outcome);
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
