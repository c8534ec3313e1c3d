import { ActivityFailure, condition, defineSignal, proxyActivities, setHandler, type RetryPolicy } from '@temporalio/workflow';

import type { PaymentActivities } from '../src/payments/activities.js';
import type { ChargeOutcome } from '../src/payments/charge-outcomes.js';

export interface PaymentInput {
  paymentId: string;
  /** The charge attempt the checkout made (chargeIdempotencyKey(paymentId, attempt)). */
  attempt: number;
  /** How long a pending charge may wait for the processor; in the input so that replays see the value the run started with. */
  expireAfterMs: number;
}

/** The processor's final word on the charge (handleProcessorEvents). */
export const processorEventSignal = defineSignal<[ChargeOutcome]>('processorEvent');
/** PATCH /v0/payments/{id}/cancel was accepted: ask the processor, then wait for its confirmation. */
export const cancelRequestedSignal = defineSignal('cancelRequested');
/** The checkout recorded the charge it made (startPayment starts this workflow before charging). */
export const chargeRecordedSignal = defineSignal('chargeRecorded');

// The processor's errors that retrying cannot fix, and a transition our records refuse. Only
// ProcessorUnavailable (and infrastructure errors: database, a lost worker) is retried.
const NON_RETRYABLE = ['CardDeclined', 'ProcessorAuthenticationFailed', 'InvalidProcessorRequest', 'InvalidChargeState', 'ChargeNotFound', 'OperationNotSupported', 'PaymentTransitionRefused', 'NotFound'];

/**
 * One payment (workflow id payment-<paymentId>): records the checkout's charge result and, while
 * the charge is pending, waits for the processor's confirmation, a cancel request or the timeout.
 * It starts before the charge is made, so that a payment whose charge never happens (the
 * processor unreachable, the process gone) still expires and gives its reservations back; the
 * checkout signals chargeRecorded once it has recorded the charge. Returns the payment's status
 * when the workflow ends.
 */
export async function paymentWorkflow(input: PaymentInput): Promise<string> {
  const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: NON_RETRYABLE };
  // The bookkeeping steps are one short transaction each: a worker lost during one makes the
  // server wait out this timeout before another worker retries it, so it is short. The steps that
  // call the processor wait for its answer (the Stripe SDK's requests time out at 20 s).
  const bookkeeping = proxyActivities<PaymentActivities>({ startToCloseTimeout: '20 seconds', retry });
  const atProcessor = proxyActivities<PaymentActivities>({ startToCloseTimeout: '1 minute', retry });
  const { paymentId, attempt } = input;
  let outcome: ChargeOutcome | undefined;
  let cancelWanted = false;
  let cancelAsked = false;
  let chargeRecorded = false;
  // Registered before the first await: a confirmation that arrives while the result is being recorded is kept.
  setHandler(processorEventSignal, (event) => {
    outcome ??= event;
  });
  setHandler(cancelRequestedSignal, () => {
    cancelWanted = true;
  });
  setHandler(chargeRecordedSignal, () => {
    chargeRecorded = true;
  });
  // Workflow time is deterministic: replays compute the same deadline.
  let deadline: number | undefined = Date.now() + input.expireAfterMs;

  const { status, cancelRequested } = await bookkeeping.recordChargeResult(paymentId, attempt);
  if (status !== 'PENDING') return status;
  cancelWanted ||= cancelRequested;
  for (;;) {
    const wanted = () => outcome !== undefined || chargeRecorded || (cancelWanted && !cancelAsked);
    const woke = deadline === undefined ? (await condition(wanted), true) : await condition(wanted, Math.max(deadline - Date.now(), 0));
    if (outcome) return bookkeeping.applyChargeOutcome(paymentId, outcome);
    if (chargeRecorded) {
      chargeRecorded = false;
      const recorded = await bookkeeping.recordChargeResult(paymentId, attempt);
      if (recorded.status !== 'PENDING') return recorded.status;
      // A cancel asked before the charge existed had nothing to cancel: ask again now.
      cancelAsked = false;
      cancelWanted ||= recorded.cancelRequested;
      continue;
    }
    if (woke) {
      cancelAsked = true;
      // Stays PENDING until the processor confirms the cancellation (or reports that the charge settled first).
      try {
        await atProcessor.cancelCharge(paymentId, attempt);
      } catch (error) {
        // The processor refused the cancel for good (credentials, request): the charge's outcome or the timeout decides.
        if (!(error instanceof ActivityFailure)) throw error;
      }
      continue;
    }
    const expired = await atProcessor.expirePayment(paymentId, attempt);
    if (expired !== 'PENDING') {
      // The processor's word signalled while the expiry ran was not read above: a success means
      // the money moved for an expired payment, and it goes back.
      if (outcome) await bookkeeping.applyLateChargeOutcome(paymentId, outcome);
      return expired;
    }
    // The charge settled as we gave up: its event decides the payment.
    deadline = undefined;
  }
}
