import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';

import type { RefundActivities } from '../src/refunds/activities.js';

export interface RefundInput {
  refundId: string;
  /** Its parts the processor has not answered yet, one per payment (known when the refund is created). */
  partIds: string[];
}

/**
 * One refund (workflow id from its business key: refund/<workspace>/<order>/key/<idempotencyKey>
 * or refund/<workspace>/<order>/body/<fingerprint>/<23-hour bucket>): each part is refunded at its
 * payment's processor, then booked. Returns the refund's status: pending when the processor
 * settles it later (its webhook books the outcome).
 */
export async function refundWorkflow(input: RefundInput): Promise<string> {
  // Only transient failures reach the retry policy: a processor's refusal is an answer (failed).
  const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
  // The processor call: an activity of its own, retried for as long as the processor is down.
  const { refundAtProcessor } = proxyActivities<RefundActivities>({ startToCloseTimeout: '1 minute', retry });
  // The bookkeeping is database work in one transaction: a local activity (no task queue round
  // trip), run again by the next worker if this one is lost, idempotent.
  const { recordRefundOutcome } = proxyLocalActivities<RefundActivities>({ startToCloseTimeout: '20 seconds', retry });
  let status = 'pending';
  for (const partId of input.partIds) {
    const outcome = await refundAtProcessor(partId);
    status = await recordRefundOutcome(partId, outcome);
  }
  return status;
}
