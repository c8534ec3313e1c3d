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
import type { Prisma } from '../generated/prisma/client.js';
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

async function transition(tx: Tx, paymentId: string, t: Transition, data: Prisma.PaymentUpdateManyMutationInput = {}): Promise<TransitionResult> {
  const now = new Date();
  // Conditional on PENDING: of concurrent callers, the first takes the row lock and changes it;
  // the others then find it changed and fall through to the checks below.
  const { count } = await tx.payment.updateMany({ where: { id: paymentId, status: 'PENDING' }, data: { ...data, status: t.to } });
  if (count === 0) {
    const current = await tx.payment.findUnique({ where: { id: paymentId }, include: paymentRowInclude });
    if (!current) throw new NotFound('Payment');
    if (t.done.includes(current.status)) return { changed: false, payment: current };
    throw new PaymentTransitionRefused(paymentId, current.status, t.to);
  }
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, include: paymentRowInclude });
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
  const { count } = await tx.payment.updateMany({
    where: { id: paymentId, status: 'PENDING' },
    data: { failureCode: failure.failureCode, failureMessage: failure.failureMessage, ...(failure.processorChargeId ? { processorChargeId: failure.processorChargeId } : {}) },
  });
  if (count === 0) return;
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, include: paymentRowInclude });
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
