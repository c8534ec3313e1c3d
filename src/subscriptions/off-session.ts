// Charging a subscription's saved payment method off-session: renewals and one-off charges (the
// workflow's activities, booked by the subscription's records), and the payments the payment
// workflow owns as a checkout's: the first period of a subscription created by the API and a plan
// change's payment.
import type { PrismaClient } from '../generated/prisma/client.js';
import { applyRecordedCharge, startPayment, processorFor, ProcessorError, type PaymentProcessor, markPaymentFailed, PaymentTransitionRefused, recordChargeIfAbsent, type RecordedCharge } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { AttemptOutcome } from './service.js';

/**
 * Charges a PENDING payment not charged yet on its subscription's saved method through the
 * payment workflow (startPayment: the workflow starts before the charge, so a charge whose answer
 * never came is still settled: expired, or paid by its processor event) and applies an immediate
 * outcome so the caller's answer shows it. A refusal before any charge existed (no saved card)
 * fails the payment. A transient processor failure throws (ProcessorError, retryable): the
 * payment stays PENDING under its workflow, and calling this again charges under the same key.
 */
export async function chargeThroughPaymentWorkflow(deps: { prisma: PrismaClient; temporal: TemporalConnection; processor: PaymentProcessor }, paymentId: string): Promise<void> {
  const { prisma } = deps;
  const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { charges: { where: { attempt: 0 } }, subscription: true } });
  // The charge as this call recorded it, else (a retried call) as an earlier one did.
  let recorded: RecordedCharge | null = null;
  if (payment.status === 'PENDING' && payment.charges.length === 0) {
    // The processor that saved the card, whatever PAYMENT_PROCESSOR says today (as renewals).
    const processor = payment.processor ? processorFor(payment.processor, deps.processor, { prisma }) : null;
    const refused = (failure: { failureCode: string; failureMessage: string }) => prisma.$transaction((tx) => markPaymentFailed(tx, paymentId, failure));
    if (!processor) {
      await refused({ failureCode: 'payment_method_not_found', failureMessage: 'The subscription has no saved payment method this deployment can charge' });
    } else {
      try {
        recorded = (await startPayment(prisma, deps.temporal, processor, { paymentId, savedPaymentMethod: payment.subscription?.paymentMethodRef ?? undefined })).charge;
      } catch (error) {
        if (!(error instanceof ProcessorError) || error.retryable) throw error;
        await refused({ failureCode: error.code, failureMessage: error.message });
      }
    }
  }
  const charge = recorded ?? (await prisma.charge.findUnique({ where: { paymentId_attempt: { paymentId, attempt: 0 } } }));
  if (!charge) return;
  try {
    await applyRecordedCharge(prisma, paymentId, charge);
  } catch (error) {
    // The workflow (or a webhook) moved it first: its outcome stands.
    if (!(error instanceof PaymentTransitionRefused)) throw error;
  }
}

/**
 * Charges the payment off-session on its subscription's saved method under `idempotencyKey`; a
 * refusal is a failed outcome, a transient failure throws (the caller retries with the same key,
 * so the processor answers with the charge it may already have made). A pending charge is
 * recorded as the payment's attempt `attempt`, for its later event.
 */
export async function chargeSavedMethod(prisma: PrismaClient, configured: PaymentProcessor, paymentId: string, idempotencyKey: string, attempt: number): Promise<AttemptOutcome> {
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
        idempotencyKey,
        amount: payment.amount,
        currency: payment.currency,
        method: 'card',
        savedPaymentMethod: s.paymentMethodRef,
        email: payment.user?.email ?? '',
        livemode: payment.livemode,
        metadata: { orderId: payment.orderId },
        // The workflow's activity retries it, within the key's window (workflows/subscription.ts).
        oneCallPerTry: true,
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
    await recordChargeIfAbsent(prisma, paymentId, attempt, { processor: payment.processor!, processorChargeId: outcome.chargeId, status: 'pending', amount: payment.amount, currency: payment.currency });
  }
  return outcome;
}
