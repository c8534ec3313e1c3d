import { proxyActivities } from '@temporalio/workflow';

import type { RefundActivities } from '../src/refunds/activities.js';

export interface RefundInput {
  refundId: string;
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
  const { refundAtProcessor } = proxyActivities<RefundActivities>({ startToCloseTimeout: '1 minute', retry });
  // Database work only: a worker lost in the middle is noticed (and the bookkeeping retried) soon.
  const { refundPartsToAsk, recordRefundOutcome } = proxyActivities<RefundActivities>({ startToCloseTimeout: '20 seconds', retry });
  const { partIds, status } = await refundPartsToAsk(input.refundId);
  let last: string = status;
  for (const partId of partIds) {
    const outcome = await refundAtProcessor(partId);
    last = await recordRefundOutcome(partId, outcome);
  }
  return last;
}
