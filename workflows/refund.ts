import { ActivityFailure, ApplicationFailure, proxyLocalActivities, type RetryPolicy } from '@temporalio/workflow';

import type { PartToRefund, RefundActivities } from '../src/refunds/activities.js';
import type { RefundResource } from '../src/refunds/resource.js';

/** The failure type of refundPart past the key window (src/refunds/activities.ts). */
const KEY_WINDOW_PASSED = 'ProcessorKeyWindowPassed';

export interface RefundInput {
  refundId: string;
  /** Its parts the processor has not answered yet, one per payment (known when the refund is created). */
  parts: PartToRefund[];
  /**
   * The end of the processor's idempotency key window (the refund's creation plus
   * PROCESSOR_KEY_WINDOW_SECONDS, epoch ms): no processor call after it. Absent in workflows
   * started before it existed (unbounded then).
   */
  notAfterMs?: number;
}

/**
 * One refund (workflow id from its business key: refund/<workspace>/<order>/key/<idempotencyKey>
 * or refund/<workspace>/<order>/body/<fingerprint>/<23-hour bucket>): each part is refunded at its
 * payment's processor and booked. Returns the refund as its last part left it (the HTTP call
 * answers with it without reading it again): status pending when the processor settles it later
 * (its webhook books the outcome), requires_attention for a part the processor never answered
 * within its key's window.
 */
export async function refundWorkflow(input: RefundInput): Promise<RefundResource> {
  // Only transient failures reach the retry policy: a processor's refusal is an answer (failed).
  // Past a minute between tries the SDK waits on a durable timer instead of in the workflow task.
  const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' };
  // A local activity: the whole refund is one workflow task, no task queue round trip. A worker
  // lost before the task completes makes the next one run it again: the processor call is keyed
  // (refundIdempotencyKey), so the processor answers with the same refund, and the bookkeeping is
  // idempotent. Its tries end with the key's window (schedule-to-close, and the activity's own
  // check of notAfterMs): a try after the processor forgot the key could refund a second time.
  const notAfterMs = input.notAfterMs ?? null;
  const window = notAfterMs === null ? {} : { scheduleToCloseTimeout: Math.max(notAfterMs - Date.now(), 1) };
  const { refundPart } = proxyLocalActivities<RefundActivities>({ startToCloseTimeout: '1 minute', retry, ...window });
  const { holdPartForAttention } = proxyLocalActivities<RefundActivities>({ startToCloseTimeout: '1 minute', retry });
  let refund: RefundResource | undefined;
  for (const part of input.parts) {
    try {
      refund = await refundPart(part, notAfterMs);
    } catch (error) {
      // The window's end: the schedule-to-close timeout (an ActivityFailure), or the activity's
      // own check (a local activity's non-retryable failure comes unwrapped).
      const windowPassed = error instanceof ActivityFailure || (error instanceof ApplicationFailure && error.type === KEY_WINDOW_PASSED);
      if (notAfterMs === null || !windowPassed) throw error;
      refund = await holdPartForAttention(part);
    }
  }
  return refund!;
}
