// A payment's state changes, for the processor's confirmations and the payment workflow. Each
// runs in the caller's transaction and records its event there. They are idempotent: the same
// confirmation twice (a retried activity, a redelivered processor webhook) changes nothing and
// records nothing the second time; concurrent ones serialise on the payment's row, and only the
// first changes it. A change that cannot happen (a PAID payment back to FAILED) throws
// PaymentTransitionRefused.
//
//   PENDING -> PAID | FAILED | CANCELLED | EXPIRED      (refunds: PAID -> PARTIALLY_REFUNDED | REFUNDED)
//
// The first payment of an order moves the order from PENDING with it, and a subscription's
// first payment starts it with its first period (incomplete -> active or trialing;
// subscription_created) or ends it before it started (incomplete -> incomplete_expired).
import { Prisma } from '../generated/prisma/client.js';
import type { OrderStatus, PaymentStatus } from '../generated/prisma/enums.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import type { Scope } from '../core/scope.js';
import { uuidv7 } from '../core/uuid.js';
import { recordEvent } from '../events/event-service.js';
import { loadOrderForEvent, releaseOrderReservations, paymentRowInclude, type PaymentRow } from '../orders/index.js';
import { paymentEventData } from './events.js';
import { runRenewalPaidSteps } from './renewal-paid-hook.js';
import { subscriptionPayments } from './first-payment-hook.js';
import { notifyPaymentPaidInTransaction } from './transaction-hooks.js';

type Tx = Prisma.TransactionClient;

/** The payment is in a state the requested change cannot leave (400 if it reaches the API). */
export class PaymentTransitionRefused extends ValidationFailed {
  constructor(
    readonly paymentId: string,
    readonly from: PaymentStatus,
    readonly to: PaymentStatus,
  ) {
    super(`Payment ${paymentId} is ${from}; it cannot become ${to}`);
  }
}

interface Transition {
  to: PaymentStatus;
  /** Statuses in which the change already happened: asking again changes nothing. */
  done: readonly PaymentStatus[];
  event: string;
  /** What the order of a first payment becomes. */
  order: OrderStatus;
}

const TO_PAID: Transition = { to: 'PAID', done: ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'], event: 'payment_success', order: 'PAID' };
const TO_FAILED: Transition = { to: 'FAILED', done: ['FAILED'], event: 'payment_failed', order: 'FAILED' };
const TO_CANCELLED: Transition = { to: 'CANCELLED', done: ['CANCELLED'], event: 'payment_cancelled', order: 'CANCELLED' };
const TO_EXPIRED: Transition = { to: 'EXPIRED', done: ['EXPIRED'], event: 'payment_expired', order: 'EXPIRED' };
// A subscription renewal that dunning gave up on; its last failed attempt is this payment_failed.
const TO_UNPAID: Transition = { to: 'UNPAID', done: ['UNPAID'], event: 'payment_failed', order: 'FAILED' };

const OUTCOME_TRANSITIONS = { PAID: TO_PAID, FAILED: TO_FAILED, CANCELLED: TO_CANCELLED };
/** Whether a payment in `status` has been moved to `to` already: asking for it again changes nothing. */
export const transitionDone = (status: PaymentStatus, to: keyof typeof OUTCOME_TRANSITIONS) => OUTCOME_TRANSITIONS[to].done.includes(status);

export interface TransitionResult {
  /** false when the payment was already there: nothing was written. */
  changed: boolean;
  payment: PaymentRow;
}

const scopeOfRow = (row: { workspaceId: string; livemode: boolean }): Scope => ({ workspaceId: row.workspaceId, livemode: row.livemode });

/** What an outcome writes on a payment besides its status. */
interface OutcomeColumns {
  paidAt?: Date;
  processorChargeId?: string;
  failureCode?: string | null;
  failureMessage?: string | null;
}

/**
 * Every column of the payment as Prisma reads it (enums as text), with its order's and
 * subscription's numbers (paymentRowInclude): the row an UPDATE … RETURNING wrote, in the
 * statement that wrote it (test/payment-transition-row.test.ts compares it with Prisma's read).
 */
const PAYMENT_ROW_RETURNING = Prisma.sql`p.id, p."workspaceId", p.livemode, p."orderId", p.sequence, p.number, p.status::text AS status, p.amount, p.tax, p.fee,
  p."feeBasisPoints", p."feeFixed", p.currency, p.processor::text AS processor, p."methodType"::text AS "methodType", p."processorChargeId", p."failureCode",
  p."failureMessage", p."refundedAmount", p.disputed, p."planChange", p."cancelRequestedAt", p."expiresAt", p."paidAt", p."userId", p."subscriptionId",
  p."subscriptionPeriod", p."createdAt", p."updatedAt", (SELECT o.number FROM "Order" o WHERE o.id = p."orderId") AS "orderNumber",
  (SELECT s.number FROM "Subscription" s WHERE s.id = p."subscriptionId") AS "subscriptionNumber"`;

/**
 * Writes `columns` (and `status`, when given) on the payment if it is PENDING, in one statement
 * with the read of the row it wrote (Prisma took two: an updateMany, then a findUnique); null when
 * it is not PENDING. Of concurrent callers, the first takes the row lock and changes it; the others
 * then find it changed.
 */
async function updatePendingPayment(tx: Tx, paymentId: string, columns: OutcomeColumns & { status?: PaymentStatus }): Promise<PaymentRow | null> {
  const now = new Date();
  const sets = [Prisma.sql`"updatedAt" = ${now}`];
  if (columns.status) sets.push(Prisma.sql`status = ${columns.status}::"PaymentStatus"`);
  if (columns.paidAt) sets.push(Prisma.sql`"paidAt" = ${columns.paidAt}`);
  if (columns.processorChargeId) sets.push(Prisma.sql`"processorChargeId" = ${columns.processorChargeId}`);
  if (columns.failureCode !== undefined) sets.push(Prisma.sql`"failureCode" = ${columns.failureCode}`);
  if (columns.failureMessage !== undefined) sets.push(Prisma.sql`"failureMessage" = ${columns.failureMessage}`);
  const [row] = await tx.$queryRaw<(Omit<PaymentRow, 'order' | 'subscription'> & { orderNumber: string; subscriptionNumber: string | null })[]>`
    UPDATE "Payment" p SET ${Prisma.join(sets, ', ')} WHERE p.id = ${paymentId}::uuid AND p.status = 'PENDING' RETURNING ${PAYMENT_ROW_RETURNING}`;
  if (!row) return null;
  const { orderNumber, subscriptionNumber, ...payment } = row;
  return { ...payment, order: { number: orderNumber }, subscription: subscriptionNumber === null ? null : { number: subscriptionNumber } };
}

async function transition(tx: Tx, paymentId: string, t: Transition, columns: OutcomeColumns = {}): Promise<TransitionResult> {
  const now = new Date();
  const payment = await updatePendingPayment(tx, paymentId, { ...columns, status: t.to });
  if (!payment) {
    const current = await tx.payment.findUnique({ where: { id: paymentId }, include: paymentRowInclude });
    if (!current) throw new NotFound('Payment');
    if (t.done.includes(current.status)) return { changed: false, payment: current };
    throw new PaymentTransitionRefused(paymentId, current.status, t.to);
  }
  const scope = scopeOfRow(payment);
  let started = false;
  if (payment.sequence === 1) {
    const orderData: Prisma.OrderUpdateManyMutationInput = { status: t.order };
    if (t.order === 'PAID') orderData.paidAt = payment.paidAt ?? now;
    if (t.order === 'CANCELLED') orderData.cancelledAt = now;
    // A cancelled order stays cancelled even when a charge still went through.
    await tx.order.updateMany({ where: { id: payment.orderId, status: 'PENDING' }, data: orderData });
    if (payment.subscriptionId) started = await subscriptionPayments().settle(tx, { subscriptionId: payment.subscriptionId, orderId: payment.orderId, paid: t.to === 'PAID', now });
    // Ended unpaid: the checkout's reservations (offers' soldItems, the discount's use) go back.
    if (t.to !== 'PAID') await releaseOrderReservations(tx, payment.orderId);
  } else if (t.to === 'PAID') {
    await runRenewalPaidSteps(tx, payment.orderId);
  }
  const { order, items } = await loadOrderForEvent(tx, payment.orderId);
  await recordEvent(tx, scope, t.event, paymentEventData(payment, order, items));
  if (t.to === 'PAID') await notifyPaymentPaidInTransaction(tx, paymentId);
  if (started && order.subscription) await subscriptionPayments().started(tx, scope, { order: { ...order, subscription: order.subscription }, items });
  return { changed: true, payment };
}

/** The processor confirmed the money: PAID (payment_success). */
export function markPaymentPaid(tx: Tx, paymentId: string, confirmation: { processorChargeId?: string | null; paidAt?: Date } = {}) {
  return transition(tx, paymentId, TO_PAID, {
    paidAt: confirmation.paidAt ?? new Date(),
    ...(confirmation.processorChargeId ? { processorChargeId: confirmation.processorChargeId } : {}),
    failureCode: null,
    failureMessage: null,
  });
}

/** The charge was declined or failed for good: FAILED (payment_failed) with the processor's reason. */
export function markPaymentFailed(tx: Tx, paymentId: string, failure: { failureCode: string; failureMessage: string; processorChargeId?: string | null }) {
  return transition(tx, paymentId, TO_FAILED, {
    failureCode: failure.failureCode,
    failureMessage: failure.failureMessage,
    ...(failure.processorChargeId ? { processorChargeId: failure.processorChargeId } : {}),
  });
}

/** A renewal's last attempt failed (or a hard decline ended its dunning): UNPAID (payment_failed) with the processor's reason. */
export function markPaymentUnpaid(tx: Tx, paymentId: string, failure: { failureCode: string; failureMessage: string; processorChargeId?: string | null }) {
  return transition(tx, paymentId, TO_UNPAID, {
    failureCode: failure.failureCode,
    failureMessage: failure.failureMessage,
    ...(failure.processorChargeId ? { processorChargeId: failure.processorChargeId } : {}),
  });
}

/**
 * A renewal's attempt failed and dunning will retry it: the payment stays PENDING with the
 * reason, and payment_failed is recorded for the attempt. Idempotent per attempt: the caller
 * records the attempt's charge as failed in the same transaction and calls this only when it was
 * not failed before.
 */
export async function recordRetryingPaymentFailure(tx: Tx, paymentId: string, failure: { failureCode: string; failureMessage: string; processorChargeId?: string | null }) {
  const payment = await updatePendingPayment(tx, paymentId, {
    failureCode: failure.failureCode,
    failureMessage: failure.failureMessage,
    ...(failure.processorChargeId ? { processorChargeId: failure.processorChargeId } : {}),
  });
  if (!payment) return;
  const { order, items } = await loadOrderForEvent(tx, payment.orderId);
  await recordEvent(tx, scopeOfRow(payment), 'payment_failed', paymentEventData(payment, order, items));
}

/** The processor confirmed a cancellation: CANCELLED (payment_cancelled). */
export const markPaymentCancelled = (tx: Tx, paymentId: string) => transition(tx, paymentId, TO_CANCELLED);

/** Never confirmed in time (the payment workflow's timeout): EXPIRED (payment_expired). */
export const markPaymentExpired = (tx: Tx, paymentId: string) => transition(tx, paymentId, TO_EXPIRED);

/** The processor reports a dispute on the payment's charge: the payment and its order are disputed for good (the filter's "active or past"). */
export async function markPaymentDisputed(tx: Tx, paymentId: string): Promise<{ changed: boolean }> {
  const { count } = await tx.payment.updateMany({ where: { id: paymentId, disputed: false }, data: { disputed: true } });
  if (count === 0) {
    if (!(await tx.payment.findUnique({ where: { id: paymentId }, select: { id: true } }))) throw new NotFound('Payment');
    return { changed: false };
  }
  const { orderId } = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { orderId: true } });
  await tx.order.update({ where: { id: orderId }, data: { disputed: true } });
  return { changed: true };
}

export interface ChargeRecord {
  processor: 'sandbox' | 'stripe';
  processorChargeId?: string | null;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'requires_attention';
  amount: number;
  currency: string;
  failureCode?: string | null;
  failureMessage?: string | null;
  cardBrand?: string | null;
  cardLast4?: string | null;
  disputeStatus?: string | null;
}

/**
 * Records attempt `attempt` at the processor for a payment unless it is recorded already (by a
 * concurrent caller too); whether this call recorded it. ON CONFLICT without a target: Prisma's
 * upsert (ON CONFLICT (paymentId, attempt)) guards only that index, and two callers inserting the
 * same charge at once then collide on the other (processor, processorChargeId), which PostgreSQL
 * reports as a unique violation. DO NOTHING waits for whichever commits first, on either index.
 */
export async function recordChargeIfAbsent(tx: Tx, paymentId: string, attempt: number, charge: ChargeRecord): Promise<boolean> {
  const now = new Date();
  const inserted = await tx.$executeRaw`
    INSERT INTO "Charge" (id, "paymentId", attempt, processor, "processorChargeId", status, amount, currency, "failureCode", "failureMessage", "cardBrand", "cardLast4", "disputeStatus", "createdAt", "updatedAt")
    VALUES (${uuidv7(now.getTime())}::uuid, ${paymentId}::uuid, ${attempt}, ${charge.processor}::"PaymentProcessor", ${charge.processorChargeId ?? null}, ${charge.status}::"ChargeStatus",
      ${charge.amount}, ${charge.currency}, ${charge.failureCode ?? null}, ${charge.failureMessage ?? null}, ${charge.cardBrand ?? null}, ${charge.cardLast4 ?? null}, ${charge.disputeStatus ?? null}, ${now}, ${now})
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}

/**
 * Records (or brings up to date) attempt `attempt` at the processor for a payment; a retried
 * activity, or a concurrent caller (a checkout and its retry charging the same payment), writes
 * the same row: the update, a statement of its own, sees the row a concurrent caller committed.
 */
export async function recordCharge(tx: Tx, paymentId: string, attempt: number, charge: ChargeRecord): Promise<void> {
  if (!(await recordChargeIfAbsent(tx, paymentId, attempt, charge))) await tx.charge.update({ where: { paymentId_attempt: { paymentId, attempt } }, data: charge });
}
