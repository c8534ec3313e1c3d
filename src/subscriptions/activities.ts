// The subscription workflow's activities (workflows/subscription.ts). Each is safe to run again:
// the records change under the subscription's row lock and idempotently (./service.ts), and a
// renewal's charge is keyed by (subscription, period, attempt), so a retried activity or a worker
// killed after the processor answered gets the same charge back, never a second one.
import type { ActivityDependencies } from '../domain-module.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from '../payments/processors/index.js';
import { ProcessorError } from '../payments/processors/processor.js';
import { chargeSavedMethod, chargeThroughPaymentWorkflow } from './off-session.js';
import {
  applyCommand, beginPeriods, bookAttempt, bookOneOffCharge, createOneOffPayment, endAtPeriodEnd, finishPlanChange, lifecycleState, recordClock, renewalChargeKey,
  startPlanChange, startRenewal, type AttemptOutcome, type LifecycleCommand, type PlanItem,
} from './service.js';
import { ValidationFailed } from '../core/errors.js';
import { ApplicationFailure } from '@temporalio/activity';

export function createSubscriptionActivities({ prisma, temporal }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  /** A renewal attempt's processor key: (subscription, period, attempt). */
  const renewalKey = async (paymentId: string, attempt: number) => {
    const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { subscriptionId: true, subscriptionPeriod: true } });
    return renewalChargeKey(payment.subscriptionId!, payment.subscriptionPeriod!, attempt);
  };
  const chargeOffSession = (paymentId: string, idempotencyKey: string, attempt: number) => chargeSavedMethod(prisma, configured, paymentId, idempotencyKey, attempt);

  return {
    beginSubscription: (subscriptionId: string) => beginPeriods(prisma, subscriptionId),
    loadSubscription: (subscriptionId: string) => lifecycleState(prisma, subscriptionId),
    startRenewal: (subscriptionId: string, period: number, dueMs: number) => startRenewal(prisma, subscriptionId, period, dueMs),
    endAtPeriodEnd: (subscriptionId: string, clockMs: number) => endAtPeriodEnd(prisma, subscriptionId, clockMs),
    recordClock: (subscriptionId: string, clockOffsetMs: number) => recordClock(prisma, subscriptionId, clockOffsetMs),

    /** A request: its new state, or a non-retryable failure with the reason the API answers 400 with. */
    async applySubscriptionCommand(subscriptionId: string, command: LifecycleCommand, clockMs: number) {
      return refusalsAsFailures(() => applyCommand(prisma, subscriptionId, command, clockMs));
    },

    /**
     * Charges attempt `attempt` of a renewal off-session on the saved method and books the
     * outcome (pending: the processor's event decides it later). Transient processor failures
     * throw and are retried; a refusal is the attempt's failure.
     */
    async chargeRenewal(paymentId: string, attempt: number, clockMs: number, dueMs: number): Promise<AttemptOutcome> {
      const outcome = await chargeOffSession(paymentId, await renewalKey(paymentId, attempt), attempt);
      await bookAttempt(prisma, paymentId, attempt, outcome, clockMs, dueMs);
      return outcome;
    },

    /** A one-off charge (POST .../charge): created, charged off-session once (keyed by the payment), booked PAID or FAILED. */
    async chargeOnce(subscriptionId: string, paymentId: string, amount: number, clockMs: number): Promise<void> {
      await refusalsAsFailures(() => createOneOffPayment(prisma, subscriptionId, paymentId, amount, clockMs));
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
  };
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
