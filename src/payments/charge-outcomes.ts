// What the processor's last word on a charge does to our records: the charge row takes the
// status and the payment its transition, in one transaction. Shared by the payment workflow's
// activity and by the webhook path when the workflow is gone, so both apply it the same way; the
// transitions are idempotent, so a redelivered event changes nothing.
import type { Charge, PrismaClient } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import { markPaymentCancelled, markPaymentFailed, markPaymentPaid } from './transitions.js';

/** A charge's final outcome as the processor reports it (a ProcessorEvent without its envelope). */
export type ChargeOutcome =
  | { type: 'charge.succeeded'; chargeId: string }
  | { type: 'charge.failed'; chargeId: string; failureCode: string; failureMessage: string }
  | { type: 'charge.cancelled'; chargeId: string };

const CHARGE_STATUS = { 'charge.succeeded': 'succeeded', 'charge.failed': 'failed', 'charge.cancelled': 'cancelled' } as const;

export async function applyChargeOutcome(prisma: PrismaClient, paymentId: string, outcome: ChargeOutcome): Promise<PaymentStatus> {
  return prisma.$transaction(async (tx) => {
    const failure = outcome.type === 'charge.failed' ? { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage } : {};
    await tx.charge.updateMany({ where: { paymentId, processorChargeId: outcome.chargeId }, data: { status: CHARGE_STATUS[outcome.type], ...failure } });
    const processorChargeId = outcome.chargeId;
    if (outcome.type === 'charge.succeeded') return (await markPaymentPaid(tx, paymentId, { processorChargeId })).payment.status;
    if (outcome.type === 'charge.failed') return (await markPaymentFailed(tx, paymentId, { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId })).payment.status;
    return (await markPaymentCancelled(tx, paymentId)).payment.status;
  });
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
