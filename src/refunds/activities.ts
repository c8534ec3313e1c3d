// The refund workflow's activity (workflows/refund.ts): one part refunded at its payment's
// processor and booked, in one activity. The processor call is keyed by the refund
// (refundIdempotencyKey), so a retried activity or a worker killed after the processor answered
// gets the same processor refund back, never a second one; the bookkeeping is idempotent
// (./bookkeeping.ts). Both in one activity: a retry after a failed bookkeeping asks the processor
// again, which answers with the same refund.
import { ApplicationFailure } from '@temporalio/activity';

import type { ActivityDependencies } from '../domain-module.js';
import { logger } from '../logger.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor, ProcessorError, type PaymentProcessor } from '../payments/index.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { applyPartOutcome, type PartOutcome } from './bookkeeping.js';
import { refundResource, type RefundResource } from './resource.js';
import type { PartToRefund } from './service.js';

export type { PartToRefund } from './service.js';

const log = logger.child({ component: 'refunds' });

/** The processor's idempotency key of a refund's share of one payment. */
export const refundIdempotencyKey = (refundId: string, paymentId: string) => `refund/${refundId}/${paymentId}`;

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

/** Why a part requires attention (its failureCode and failureMessage, as a renewal attempt's). */
const NO_ANSWER = {
  failureCode: 'processor_no_answer',
  failureMessage: "The processor did not answer within its idempotency key's window: whether it refunded is unknown, and nothing is asked again for this refund",
};

/**
 * Past the refund's key window (`notAfterMs`, from the workflow's input) the processor is not
 * called, a retry after a worker's restart included: under an expired key a call could refund twice.
 */
function beforeKeyWindowEnds(notAfterMs: number | null): void {
  if (notAfterMs !== null && Date.now() > notAfterMs) {
    throw ApplicationFailure.create({ type: 'ProcessorKeyWindowPassed', message: "The processor's idempotency key window passed: it is not called again under that key", nonRetryable: true });
  }
}

export function createRefundActivities({ prisma }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  return {
    /** One part refunded at its processor and its answer booked: the refund as it is afterwards. */
    async refundPart(part: PartToRefund, notAfterMs: number | null = null): Promise<RefundResource> {
      beforeKeyWindowEnds(notAfterMs);
      const outcome = await refundAtProcessor(prisma, configured, part);
      return refundResource(await applyPartOutcome(prisma, part.partId, outcome));
    },

    /** A part whose processor never answered within the key's window: requires attention (money and units stay reserved). */
    async holdPartForAttention(part: PartToRefund): Promise<RefundResource> {
      log.error({ refundId: part.refundId, paymentId: part.paymentId, processor: part.processor, chargeId: part.processorChargeId }, "refund part requires attention: the processor did not answer within its idempotency key's window");
      return refundResource(await applyPartOutcome(prisma, part.partId, { processorRefundId: null, status: 'requires_attention', ...NO_ANSWER }));
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
