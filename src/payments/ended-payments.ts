// A charge's outcome for a payment whose workflow no longer decides it, and the money a payment
// took after it ended otherwise (stranded): the webhook path (./processor-callbacks.ts) and the
// payment workflow's last activity (./activities.ts) apply it the same way; the subscriptions give
// back a renewal's charge its payment does not keep through it too. The refunds domain registers
// the handler that gives stranded money back.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import { applyChargeOutcome, type ChargeOutcome, type PaymentOutcomeState } from './charge-outcomes.js';
import { notifyPaymentPaid } from './payment-hooks.js';
import { PaymentTransitionRefused } from './transitions.js';

const log = logger.child({ component: 'ended-payments' });

/** A payment's end without its money: a success for it is money stranded. */
export const ENDED_OTHERWISE: readonly PaymentStatus[] = ['EXPIRED', 'CANCELLED', 'FAILED'];

/** Money the processor took for a payment that had already ended otherwise (EXPIRED, CANCELLED, FAILED). */
export interface StrandedCharge {
  paymentId: string;
  chargeId: string;
  amount: number;
}
export type StrandedChargeHandler = (prisma: PrismaClient, temporal: TemporalConnection, charge: StrandedCharge) => Promise<void>;
const strandedChargeHandlers: StrandedChargeHandler[] = [];

/** A late success (a PayPal approval after expiry, a charge whose answer was lost) goes to the handlers registered here (the refunds give it back). */
export function onStrandedCharge(handler: StrandedChargeHandler): void {
  strandedChargeHandlers.push(handler);
}

/** Money the processor took that no payment of ours keeps goes back (the handlers: the refunds, once per payment and charge). */
export async function giveBackStrandedCharge(deps: { prisma: PrismaClient; temporal: TemporalConnection }, charge: StrandedCharge): Promise<void> {
  for (const handler of strandedChargeHandlers) await handler(deps.prisma, deps.temporal, charge);
}

/**
 * A charge's outcome applied without the payment's workflow deciding it: the workflow is gone, the
 * payment has ended, or the workflow heard of it only as it expired the payment. For a payment that
 * ended otherwise the transition is refused; a success's money moved all the same and goes back
 * (the stranded-charge handlers: the refunds, once per payment and charge). `known.amount` is what
 * the processor took when its event says; else the recorded charge's, else the payment's.
 * `known.seen`: the payment as the caller just read it.
 */
export async function applyOutcomeWithoutWorkflow(
  deps: { prisma: PrismaClient; temporal: TemporalConnection },
  paymentId: string,
  outcome: ChargeOutcome,
  known: { amount?: number; eventId?: string; seen?: PaymentOutcomeState } = {},
): Promise<void> {
  const { prisma } = deps;
  try {
    const applied = await applyChargeOutcome(prisma, paymentId, outcome, { seen: known.seen });
    if (applied.status === 'PAID') await notifyPaymentPaid(deps, applied);
  } catch (error) {
    // The payment already ended otherwise (a cancelled charge of an EXPIRED payment): nothing to change.
    if (!(error instanceof PaymentTransitionRefused)) throw error;
    log.warn({ paymentId, chargeId: outcome.chargeId, eventId: known.eventId, type: outcome.type }, 'processor event for a payment that already ended otherwise');
    // Money moved all the same: it must go back.
    if (outcome.type === 'charge.succeeded') {
      const amount = known.amount ?? (await chargedAmount(prisma, paymentId, outcome.chargeId));
      await giveBackStrandedCharge(deps, { paymentId, chargeId: outcome.chargeId, amount });
    }
  }
}

/** What the processor took for a charge whose event did not say: the recorded charge's amount, else the payment's. */
async function chargedAmount(prisma: PrismaClient, paymentId: string, processorChargeId: string): Promise<number> {
  const charge = await prisma.charge.findFirst({ where: { paymentId, processorChargeId }, select: { amount: true } });
  return charge?.amount ?? (await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { amount: true } })).amount;
}

