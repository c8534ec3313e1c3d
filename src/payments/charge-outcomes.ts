// What the processor's last word on a charge does to our records: the charge row takes the
// status and the payment its transition, in one transaction. Shared by the payment workflow's
// activity and by the webhook path when the workflow is gone, so both apply it the same way; the
// transitions are idempotent, so a redelivered event changes nothing.
import type { Charge, Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import { markPaymentCancelled, markPaymentFailed, markPaymentPaid, recordCharge } from './transitions.js';

/** A charge's final outcome as the processor reports it (a ProcessorEvent without its envelope). */
export type ChargeOutcome =
  | { type: 'charge.succeeded'; chargeId: string }
  | { type: 'charge.failed'; chargeId: string; failureCode: string; failureMessage: string }
  | { type: 'charge.cancelled'; chargeId: string };

const CHARGE_STATUS = { 'charge.succeeded': 'succeeded', 'charge.failed': 'failed', 'charge.cancelled': 'cancelled' } as const;

export async function applyChargeOutcome(prisma: PrismaClient, paymentId: string, outcome: ChargeOutcome): Promise<PaymentStatus> {
  return prisma.$transaction(async (tx) => {
    const failure = outcome.type === 'charge.failed' ? { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage } : {};
    const status = CHARGE_STATUS[outcome.type];
    const named = await tx.charge.updateMany({ where: { paymentId, processorChargeId: outcome.chargeId }, data: { status, ...failure } });
    if (named.count === 0) await recordUnansweredCharge(tx, paymentId, { processorChargeId: outcome.chargeId, status, ...failure });
    const processorChargeId = outcome.chargeId;
    if (outcome.type === 'charge.succeeded') return (await markPaymentPaid(tx, paymentId, { processorChargeId })).payment.status;
    if (outcome.type === 'charge.failed') return (await markPaymentFailed(tx, paymentId, { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId })).payment.status;
    return (await markPaymentCancelled(tx, paymentId)).payment.status;
  });
}

/**
 * A charge whose answer never reached us (the process died between the processor's answer and
 * recording it), known first from its event: recorded as the payment's next attempt, the one that
 * was waiting for that answer (attempts are recorded in order, each after its answer). A retried
 * checkout that gets the answer again writes the same row.
 */
async function recordUnansweredCharge(tx: Prisma.TransactionClient, paymentId: string, charge: { processorChargeId: string; status: 'succeeded' | 'failed' | 'cancelled'; failureCode?: string; failureMessage?: string }) {
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { processor: true, amount: true, currency: true, _count: { select: { charges: true } } } });
  if (!payment.processor) return;
  await recordCharge(tx, paymentId, payment._count.charges, { ...charge, processor: payment.processor, amount: payment.amount, currency: payment.currency });
}

/**
 * The payment as the checkout's recorded charge leaves it: a final charge's outcome applied (its
 * status returned), PENDING while the charge is. Shared by the checkout's answer and the workflow.
 */
export async function applyRecordedCharge(prisma: PrismaClient, paymentId: string, charge: Charge): Promise<PaymentStatus> {
  const chargeId = charge.processorChargeId ?? '';
  if (charge.status === 'succeeded') return applyChargeOutcome(prisma, paymentId, { type: 'charge.succeeded', chargeId });
  if (charge.status === 'cancelled') return applyChargeOutcome(prisma, paymentId, { type: 'charge.cancelled', chargeId });
  if (charge.status === 'failed') {
    return applyChargeOutcome(prisma, paymentId, { type: 'charge.failed', chargeId, failureCode: charge.failureCode ?? 'failed', failureMessage: charge.failureMessage ?? 'The payment failed' });
  }
  return 'PENDING';
}
