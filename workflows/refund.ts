import { proxyLocalActivities, type RetryPolicy } from '@temporalio/workflow';

import type { PartToRefund, RefundActivities } from '../src/refunds/activities.js';
import type { RefundResource } from '../src/refunds/resource.js';

export interface RefundInput {
  refundId: string;
  /** Its parts the processor has not answered yet, one per payment (known when the refund is created). */
  parts: PartToRefund[];
}

/**
 * One refund (workflow id from its business key: refund/<workspace>/<order>/key/<idempotencyKey>
 * or refund/<workspace>/<order>/body/<fingerprint>/<23-hour bucket>): each part is refunded at its
 * payment's processor and booked. Returns the refund as its last part left it (the HTTP call
 * answers with it without reading it again): status pending when the processor settles it later
 * (its webhook books the outcome).
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundResource> {
  // Only transient failures reach the retry policy: a processor's refusal is an answer (failed).
  // Past a minute between tries the SDK waits on a durable timer instead of in the workflow task.
  const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
  // A local activity: the whole refund is one workflow task, no task queue round trip. A worker
  // lost before the task completes makes the next one run it again: the processor call is keyed
  // (refundIdempotencyKey), so the processor answers with the same refund, and the bookkeeping is
  // idempotent.
  const { refundPart } = proxyLocalActivities<RefundActivities>({ startToCloseTimeout: '1 minute', retry });
  let refund: RefundResource | undefined;
  for (const part of input.parts) refund = await refundPart(part);
  return refund!;
}
