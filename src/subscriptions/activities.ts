// The subscription workflow's activities (workflows/subscription.ts). Each is safe to run again:
// the records change under the subscription's row lock and idempotently (./service.ts), and a
// renewal's charge is keyed by (subscription, period, attempt), so a retried activity or a worker
// killed after the processor answered gets the same charge back, never a second one.
import type { ActivityDependencies } from '../domain-module.js';
import { paymentExpiryMsFromEnv, processorKeyWindowMsFromEnv, createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor, InvalidChargeState, ProcessorError } from '../payments/index.js';
import { chargeSavedMethod, chargeThroughPaymentWorkflow } from './off-session.js';
import { applyLateRenewalOutcome, markAttemptRequiresAttention } from './renewal-outcomes.js';
import { bookOneOffCharge, createOneOffPayment, finishPlanChange, startPlanChange } from './off-period-payments.js';
import {
  beginPeriods, bookAttempt, endAtPeriodEnd, lifecycleState, recordClock, renewalChargeKey, startRenewal, type AttemptOutcome, type ChargeTimings,
  type LifecycleCommand, type PlanItem,
} from './service.js';
import { applyCommand } from './commands.js';
import { ValidationFailed } from '../core/errors.js';
import { crashPoint } from '../core/faults.js';
import { ApplicationFailure } from '@temporalio/activity';

export function createSubscriptionActivities({ prisma, temporal }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });
  // Handed to each run with the state it starts from (the workflow cannot read the environment).
  const timings: ChargeTimings = { pendingChargeMs: paymentExpiryMsFromEnv(), chargeWindowMs: processorKeyWindowMsFromEnv() };

  /** A renewal attempt's processor key: (subscription, period, attempt). */
  const renewalKey = async (paymentId: string, attempt: number) => {
    const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { subscriptionId: true, subscriptionPeriod: true } });
    return renewalChargeKey(payment.subscriptionId!, payment.subscriptionPeriod!, attempt);
  };
  const chargeOffSession = (paymentId: string, idempotencyKey: string, attempt: number) => chargeSavedMethod(prisma, configured, paymentId, idempotencyKey, attempt);

  return {
    beginSubscription: async (subscriptionId: string) => ({ ...(await beginPeriods(prisma, subscriptionId)), timings }),
    loadSubscription: async (subscriptionId: string) => ({ ...(await lifecycleState(prisma, subscriptionId)), timings }),
    startRenewal: (subscriptionId: string, period: number, dueMs: number) => startRenewal(prisma, subscriptionId, period, dueMs),
    endAtPeriodEnd: (subscriptionId: string, clockMs: number) => endAtPeriodEnd(prisma, subscriptionId, clockMs),
    recordClock: (subscriptionId: string, clockOffsetMs: number) => recordClock(prisma, subscriptionId, clockOffsetMs),

    /** Request `commandId` (its update's id), once: its new state, or a non-retryable failure with the reason the API answers 400 with. */
    async applySubscriptionCommand(subscriptionId: string, commandId: string, command: LifecycleCommand, clockMs: number) {
      const state = await refusalsAsFailures(() => applyCommand(prisma, subscriptionId, commandId, command, clockMs));
      crashPoint('subscription-command-applied');
      return state;
    },

    /**
     * Charges attempt `attempt` of a renewal off-session on the saved method and books the
     * outcome (pending: the processor's event decides it later). Transient processor failures
     * throw and are retried; a refusal is the attempt's failure.
     */
    async chargeRenewal(paymentId: string, attempt: number, clockMs: number, dueMs: number, deadlineMs: number): Promise<AttemptOutcome> {
      const idempotencyKey = await renewalKey(paymentId, attempt);
      beforeDeadline(deadlineMs);
      const outcome = await chargeOffSession(paymentId, idempotencyKey, attempt);
      await bookAttempt(prisma, paymentId, attempt, outcome, clockMs, dueMs);
      return outcome;
    },

    /** A one-off charge (POST .../charge): created, charged off-session once (keyed by the payment), booked PAID or FAILED. */
    async chargeOnce(subscriptionId: string, paymentId: string, amount: number, clockMs: number, deadlineMs: number): Promise<void> {
      await refusalsAsFailures(() => createOneOffPayment(prisma, subscriptionId, paymentId, amount, clockMs));
      beforeDeadline(deadlineMs);
      const outcome = await chargeOffSession(paymentId, `subscription/${subscriptionId}/charge/${paymentId}`, 0);
      await bookOneOffCharge(prisma, paymentId, outcome, clockMs);
    },

    /**
     * A plan change (PATCH .../update with items): prorated; an upgrade's plan-change payment is
     * charged off-session through its payment workflow, as a checkout's (keyed by the payment),
     * and the change applies when it is PAID. The processor unreachable: the request fails
     * TemporarilyUnavailable (503) at once rather than holding the subscription's workflow; the
     * payment stays PENDING under its payment workflow (which expires it), and the same change
     * sent again (the same Idempotency-Key) charges it under the same key.
     */
    async changeItems(subscriptionId: string, changeId: string, items: PlanItem[], clockMs: number): Promise<void> {
      const { paymentId } = await refusalsAsFailures(() => startPlanChange(prisma, subscriptionId, changeId, items, clockMs));
      if (!paymentId) return;
      try {
        await chargeThroughPaymentWorkflow({ prisma, temporal, processor: configured }, paymentId);
      } catch (error) {
        if (error instanceof ProcessorError) throw ApplicationFailure.create({ type: 'TemporarilyUnavailable', message: 'The payment processor is unavailable; retry with the same Idempotency-Key', nonRetryable: true });
        throw error;
      }
      await finishPlanChange(prisma, subscriptionId, changeId, items, clockMs);
    },

    /** The processor's later word on a pending attempt (its event, routed by charge id). */
    async bookRenewalOutcome(paymentId: string, attempt: number, outcome: AttemptOutcome, clockMs: number, dueMs: number): Promise<void> {
      await bookAttempt(prisma, paymentId, attempt, outcome, clockMs, dueMs);
    },

    /**
     * A pending attempt waited long enough: cancelled at the processor (true), or it cannot be
     * cancelled there (true: the attempt is booked failed all the same, and a success that comes
     * later goes back). False when the charge is no longer pending: it settled, and its event decides.
     */
    async cancelRenewalCharge(paymentId: string, attempt: number): Promise<boolean> {
      const charge = await prisma.charge.findUniqueOrThrow({ where: { paymentId_attempt: { paymentId, attempt } } });
      const processor = processorFor(charge.processor, configured, { prisma });
      if (!processor || !charge.processorChargeId) return true;
      try {
        await processor.cancelCharge(charge.processorChargeId);
        return true;
      } catch (error) {
        if (error instanceof InvalidChargeState) return false;
        if (error instanceof ProcessorError && !error.retryable) return true;
        throw error;
      }
    },

    applyLateRenewalOutcome: (paymentId: string, outcome: AttemptOutcome, clockMs: number) => applyLateRenewalOutcome({ prisma, temporal }, paymentId, outcome, clockMs),
    markAttemptRequiresAttention: (paymentId: string, attempt: number) => markAttemptRequiresAttention(prisma, paymentId, attempt),
  };
}

/** Past its attempt's deadline (its key's window, from the workflow) the processor is not called: a retry after a worker's restart included. */
export function beforeDeadline(deadlineMs: number): void {
  if (Date.now() > deadlineMs) {
    throw ApplicationFailure.create({ type: 'ChargeWindowPassed', message: "The processor's idempotency key window passed: it is not called again under that key", nonRetryable: true });
  }
}

/** A refusal (ValidationFailed) fails the activity for good, with the reason the API answers 400 with. */
async function refusalsAsFailures<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ValidationFailed) throw ApplicationFailure.create({ type: 'ValidationFailed', message: error.message, nonRetryable: true });
    throw error;
  }
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
