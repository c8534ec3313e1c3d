// The payment workflow's activities (workflows/payment.ts). Each is safe to run again: the
// transitions are idempotent and the processor calls either change nothing twice (cancel) or
// are keyed by our records.
import { ApplicationFailure } from '@temporalio/activity';

import type { ActivityDependencies } from '../domain-module.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import { applyChargeOutcome, applyRecordedCharge, type ChargeOutcome } from './charge-outcomes.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from './processors/index.js';
import { InvalidChargeState, ProcessorError } from './processors/processor.js';
import { notifyPaymentPaid } from './payment-hooks.js';
import { applyOutcomeWithoutWorkflow } from './ended-payments.js';
import { markPaymentExpired } from './transitions.js';

export function createPaymentActivities({ prisma, temporal }: ActivityDependencies) {
  const processor = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  /** The attempt's charge as the checkout recorded it; null while it is not made (the workflow starts first). */
  async function chargeOf(paymentId: string, attempt: number) {
    return prisma.charge.findUnique({ where: { paymentId_attempt: { paymentId, attempt } } });
  }

  return {
    /** Applies the checkout's charge result: PAID, FAILED, or PENDING to wait for the processor. */
    async recordChargeResult(paymentId: string, attempt: number): Promise<{ status: PaymentStatus; cancelRequested: boolean }> {
      // The status (the answer when no charge is recorded yet), a cancel requested before the
      // workflow could receive the signal, and what the paid hooks are told.
      const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { id: true, status: true, cancelRequestedAt: true, sequence: true, subscriptionId: true } });
      // Paid already (the checkout applied its charge's answer before the workflow came to it, as it
      // mostly does): nothing to apply again.
      const charge = payment.status === 'PAID' ? null : await chargeOf(paymentId, attempt);
      const status = charge ? await applyRecordedCharge(prisma, paymentId, charge) : payment.status;
      // Whoever reacts to a paid payment (a subscription's start) hears of it here, retried with the activity until it has.
      if (status === 'PAID') await notifyPaymentPaid({ prisma, temporal }, payment);
      return { status, cancelRequested: payment.cancelRequestedAt !== null };
    },

    async applyChargeOutcome(paymentId: string, outcome: ChargeOutcome): Promise<PaymentStatus> {
      const applied = await applyChargeOutcome(prisma, paymentId, outcome);
      if (applied.status === 'PAID') await notifyPaymentPaid({ prisma, temporal }, applied);
      return applied.status;
    },

    /**
     * An outcome signalled while the expiry ran (the signal found the payment still PENDING): the
     * payment expired all the same, so it is applied as to an ended payment, and a success's money,
     * which moved, goes back (./ended-payments.ts).
     */
    async applyLateChargeOutcome(paymentId: string, outcome: ChargeOutcome): Promise<void> {
      await applyOutcomeWithoutWorkflow({ prisma, temporal }, paymentId, outcome);
    },

    /**
     * Asks the processor to cancel the pending charge; false when it is no longer pending (it
     * settled or failed meanwhile: that event is on its way and decides the payment).
     */
    async cancelCharge(paymentId: string, attempt: number): Promise<boolean> {
      const charge = await chargeOf(paymentId, attempt);
      // No charge yet: nothing to cancel at the processor; asked again once it is recorded.
      if (!charge?.processorChargeId) return false;
      try {
        await processor.cancelCharge(charge.processorChargeId);
        return true;
      } catch (error) {
        if (error instanceof InvalidChargeState) return false;
        // Retrying cannot fix it (Stripe's 401/403, a refused request): the workflow gives up the cancel.
        if (error instanceof ProcessorError && !error.retryable) throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
        throw error;
      }
    },

    /**
     * The wait is over: cancel the charge at the processor first, so that no money moves for a
     * payment we call EXPIRED, then expire it. PENDING when the charge could no longer be
     * cancelled (its outcome is on its way). A method the processor cannot cancel (PayPal) expires
     * all the same: its reservations must not stay held forever; a late approval then finds the
     * payment EXPIRED (logged by the callbacks), as Stripe's expired sessions do.
     */
    async expirePayment(paymentId: string, attempt: number): Promise<PaymentStatus> {
      // Decided meanwhile without the workflow hearing of it (a checkout that failed the payment after a processor error).
      const { status } = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { status: true } });
      if (status !== 'PENDING') return status;
      const charge = await chargeOf(paymentId, attempt);
      // Without a recorded charge (never made, or its answer lost) there is nothing of ours to cancel.
      if (charge?.processorChargeId) {
        try {
          await processor.cancelCharge(charge.processorChargeId);
        } catch (error) {
          if (error instanceof InvalidChargeState) return 'PENDING';
          // Not cancellable from here (PayPal; our credentials refused): expire all the same, a late success is refunded.
          if (!(error instanceof ProcessorError) || error.retryable) throw error;
        }
      }
      return prisma.$transaction(async (tx) => (await markPaymentExpired(tx, paymentId)).payment.status);
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
