// The subscription workflow's activities (workflows/subscription.ts). Each is safe to run again:
// the records change under the subscription's row lock and idempotently (./service.ts), and a
// renewal's charge is keyed by (subscription, period, attempt), so a retried activity or a worker
// killed after the processor answered gets the same charge back, never a second one.
import type { ActivityDependencies } from '../domain-module.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv, processorFor } from '../payments/processors/index.js';
import { ProcessorError } from '../payments/processors/processor.js';
import { applyCommand, beginPeriods, bookAttempt, bookOneOffCharge, createOneOffPayment, endAtPeriodEnd, lifecycleState, recordClock, renewalChargeKey, startRenewal, type AttemptOutcome, type LifecycleCommand } from './service.js';
import { ValidationFailed } from '../core/errors.js';
import { ApplicationFailure } from '@temporalio/activity';

export function createSubscriptionActivities({ prisma }: ActivityDependencies) {
  const configured = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });

  return {
    beginSubscription: (subscriptionId: string) => beginPeriods(prisma, subscriptionId),
    loadSubscription: (subscriptionId: string) => lifecycleState(prisma, subscriptionId),
    startRenewal: (subscriptionId: string, period: number, dueMs: number) => startRenewal(prisma, subscriptionId, period, dueMs),
    endAtPeriodEnd: (subscriptionId: string, clockMs: number) => endAtPeriodEnd(prisma, subscriptionId, clockMs),
    recordClock: (subscriptionId: string, clockOffsetMs: number) => recordClock(prisma, subscriptionId, clockOffsetMs),

    /** A request: its new state, or a non-retryable failure with the reason the API answers 400 with. */
    async applySubscriptionCommand(subscriptionId: string, command: LifecycleCommand, clockMs: number) {
      try {
        return await applyCommand(prisma, subscriptionId, command, clockMs);
      } catch (error) {
        if (error instanceof ValidationFailed) throw ApplicationFailure.create({ type: 'ValidationFailed', message: error.message, nonRetryable: true });
        throw error;
      }
    },

    /**
     * Charges attempt `attempt` of a renewal off-session on the saved method and books the
     * outcome (pending: the processor's event decides it later). Transient processor failures
     * throw and are retried; a refusal is the attempt's failure.
     */
    async chargeRenewal(paymentId: string, attempt: number, clockMs: number, dueMs: number): Promise<AttemptOutcome> {
      const outcome = await chargeOffSession(paymentId, (s, period) => renewalChargeKey(s, period!, attempt), attempt);
      await bookAttempt(prisma, paymentId, attempt, outcome, clockMs, dueMs);
      return outcome;
    },

    /** A one-off charge (POST .../charge): created, charged off-session once (keyed by the payment), booked PAID or FAILED. */
    async chargeOnce(subscriptionId: string, paymentId: string, amount: number, clockMs: number): Promise<void> {
      try {
        await createOneOffPayment(prisma, subscriptionId, paymentId, amount, clockMs);
      } catch (error) {
        if (error instanceof ValidationFailed) throw ApplicationFailure.create({ type: 'ValidationFailed', message: error.message, nonRetryable: true });
        throw error;
      }
      const outcome = await chargeOffSession(paymentId, () => `subscription/${subscriptionId}/charge/${paymentId}`, 0);
      await bookOneOffCharge(prisma, paymentId, outcome, clockMs);
    },

    /** The processor's later word on a pending attempt (its event, routed by charge id). */
    async bookRenewalOutcome(paymentId: string, attempt: number, outcome: AttemptOutcome, clockMs: number, dueMs: number): Promise<void> {
      await bookAttempt(prisma, paymentId, attempt, outcome, clockMs, dueMs);
    },
  };

  /** Charges the payment off-session on the subscription's saved method; a refusal is a failed outcome, a transient failure throws (retried). */
  async function chargeOffSession(paymentId: string, keyOf: (subscriptionId: string, period: number | null) => string, attempt: number): Promise<AttemptOutcome> {
      const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { subscription: true, user: { select: { email: true } } } });
      const s = payment.subscription!;
      let outcome: AttemptOutcome;
      const processor = payment.processor ? processorFor(payment.processor, configured, { prisma }) : null;
      if (payment.amount === 0) {
        outcome = { status: 'succeeded', chargeId: null };
      } else if (!processor || !s.paymentMethodRef) {
        outcome = { status: 'failed', chargeId: null, failureCode: 'payment_method_not_found', failureMessage: 'The subscription has no saved payment method to charge' };
      } else {
        try {
          const result = await processor.createCharge({
            paymentId,
            idempotencyKey: keyOf(s.id, payment.subscriptionPeriod),
            amount: payment.amount,
            currency: payment.currency,
            method: 'card',
            savedPaymentMethod: s.paymentMethodRef,
            email: payment.user?.email ?? '',
            livemode: payment.livemode,
            metadata: { orderId: payment.orderId },
          });
          outcome =
            result.status === 'failed'
              ? { status: 'failed', chargeId: result.chargeId, failureCode: result.failureCode ?? 'generic_decline', failureMessage: result.failureMessage ?? 'The payment failed.' }
              : { status: result.status, chargeId: result.chargeId };
        } catch (error) {
          if (!(error instanceof ProcessorError) || error.retryable) throw error;
          outcome = { status: 'failed', chargeId: null, failureCode: error.code, failureMessage: error.message };
        }
      }
      if (outcome.status === 'pending') {
        await prisma.charge.upsert({
          where: { paymentId_attempt: { paymentId, attempt } },
          create: { paymentId, attempt, processor: payment.processor!, processorChargeId: outcome.chargeId, status: 'pending', amount: payment.amount, currency: payment.currency },
          update: {},
        });
      }
      return outcome;
  }
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
