// A subscription's charges that no attempt of its workflow waits for any more: the processor's
// late word on them, and an attempt the processor never answered within its idempotency key's
// window. Called by the workflow's activities (./activities.ts) and, once the subscription ended
// and its workflow books nothing more, by the renewal routing (./requests.ts).
import type { PrismaClient } from '../generated/prisma/client.js';
import { recordEvent } from '../events/event-service.js';
import { logger } from '../logger.js';
import { loadOrderForEvent, paymentRowInclude } from '../orders/index.js';
import { giveBackStrandedCharge, paymentEventData, recordCharge } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import { bookAttempt, change, lock, type AttemptOutcome } from './service.js';

const log = logger.child({ component: 'subscriptions' });

/** A subscription that ended books no charge any more. */
const ENDED = ['cancelled', 'incomplete', 'incomplete_expired'];

/** The reason an attempt requires attention, on its charge and its payment. */
const NO_ANSWER = {
  failureCode: 'processor_no_answer',
  failureMessage: "The processor did not answer within its idempotency key's window: whether it charged is unknown, and nothing is charged again for this attempt",
};

/**
 * The processor's word on a charge of the subscription's payment `paymentId` that no attempt
 * waits for (its event came late, or after the subscription ended):
 *  - the attempt it answers is still open (pending, or requiring attention) and the payment still
 *    to be paid on a live subscription: it is that attempt's outcome (bookAttempt: a success pays
 *    the renewal, a failure goes on with dunning);
 *  - a success our books do not keep (its attempt was booked failed when its pending wait gave
 *    up, the renewal was paid by another attempt, cancelled or given up, the subscription ended):
 *    the money goes back as any stranded charge's (an `expired_payment` refund, once per charge),
 *    so that one period never keeps two charges;
 *  - anything else (a redelivery, a failure of an attempt already booked) changes nothing.
 */
export async function applyLateRenewalOutcome(deps: { prisma: PrismaClient; temporal: TemporalConnection }, paymentId: string, outcome: AttemptOutcome, clockMs: number): Promise<void> {
  const { chargeId } = outcome;
  if (!chargeId) return;
  const decided = await deps.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Payment" WHERE id = ${paymentId}::uuid FOR UPDATE`;
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { charges: true, subscription: { select: { status: true } } } });
    // The attempt it answers: the one with its charge id, else one whose charge id we never learnt (it requires attention).
    const answered = payment.charges.find((c) => c.processorChargeId === chargeId) ?? payment.charges.find((c) => c.status === 'requires_attention' && c.processorChargeId === null);
    if (answered?.status === 'succeeded') return null;
    const live = payment.subscription !== null && !ENDED.includes(payment.subscription.status);
    if (answered && (answered.status === 'pending' || answered.status === 'requires_attention') && payment.status === 'PENDING' && live) {
      // The renewal's payment is created at its due time (the subscription's clock).
      return { kind: 'book' as const, attempt: answered.attempt, dueMs: payment.createdAt.getTime() };
    }
    // Unknown to our books while the payment is still open: the attempt in flight books it when its call returns.
    if (outcome.status !== 'succeeded' || (!answered && payment.status === 'PENDING')) return null;
    return { kind: 'giveBack' as const, amount: answered?.amount ?? payment.amount };
  });
  if (decided?.kind === 'book') await bookAttempt(deps.prisma, paymentId, decided.attempt, outcome, clockMs, decided.dueMs);
  if (decided?.kind === 'giveBack') {
    log.warn({ paymentId, chargeId, amount: decided.amount }, 'a renewal charge its payment does not keep succeeded: it goes back');
    await giveBackStrandedCharge(deps, { paymentId, chargeId, amount: decided.amount });
  }
}

/**
 * Attempt `attempt` of the payment got no answer from the processor within its key's window: its
 * charge `requires_attention` (with the charge id if a pending one was recorded), the payment stays
 * PENDING with the reason, a renewal's subscription is `past_due` with no retry planned (a charge
 * under a new key could be the period's second), and `payment_requires_attention` is recorded with
 * an error log for the operator. The processor's word on it, when it comes (its event, an
 * operator's replay), decides it (applyLateRenewalOutcome); a payment-method replacement or a
 * cancel still apply. Idempotent: an attempt answered or marked already is left as it is.
 */
export async function markAttemptRequiresAttention(prisma: PrismaClient, paymentId: string, attempt: number): Promise<void> {
  const marked = await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Payment" WHERE id = ${paymentId}::uuid FOR UPDATE`;
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    const before = await tx.charge.findUnique({ where: { paymentId_attempt: { paymentId, attempt } } });
    if (payment.status !== 'PENDING' || (before && before.status !== 'pending')) return null;
    const charge = { processor: payment.processor!, amount: payment.amount, currency: payment.currency, processorChargeId: before?.processorChargeId ?? null };
    await recordCharge(tx, paymentId, attempt, { ...charge, status: 'requires_attention', ...NO_ANSWER });
    const updated = await tx.payment.update({ where: { id: paymentId }, data: NO_ANSWER, include: paymentRowInclude });
    if (payment.subscriptionPeriod !== null) {
      const s = await lock(tx, payment.subscriptionId!);
      if (!ENDED.includes(s.status)) await change(tx, s, { status: 'past_due', nextRetryAt: null });
    }
    const { order, items } = await loadOrderForEvent(tx, payment.orderId);
    await recordEvent(tx, { workspaceId: payment.workspaceId, livemode: payment.livemode }, 'payment_requires_attention', paymentEventData(updated, order, items));
    return charge;
  });
  if (marked) log.error({ paymentId, attempt, processor: marked.processor, processorChargeId: marked.processorChargeId, amount: marked.amount }, NO_ANSWER.failureMessage);
}
