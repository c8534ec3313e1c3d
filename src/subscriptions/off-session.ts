// Charging a subscription's saved payment method off-session: renewals, one-off charges, plan
// changes (the workflow's activities) and the first period of a subscription created by the API.
import type { PrismaClient } from '../generated/prisma/client.js';
import { processorFor } from '../payments/processors/index.js';
import { ProcessorError, type PaymentProcessor } from '../payments/processors/processor.js';
import type { AttemptOutcome } from './service.js';

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
