// The processor's answer for one part of a refund, applied to our books in one transaction (the
// order's row locked, as refunds are created under it):
//   pending    the processor settles it later (counted by the workspace's settling limit);
//   succeeded  the fee's share comes back, the payment and the order become PARTIALLY_REFUNDED or
//              REFUNDED, payment_refunded (user and customer) is recorded, the hooks run (./refund-hooks.ts);
//   failed     the money and units go back on the books (refundable again, the payment's status
//              restored, also after an earlier success), refund_failed is recorded;
//   requires_attention  no answer came within the processor's idempotency key window (the
//              workflow gives up asking): the money and units stay reserved, nothing is asked
//              again, refund_requires_attention is recorded; the processor's word (its webhook, the
//              reconciliation) still settles it as succeeded or failed.
// Idempotent: the same answer twice (a retried activity, a redelivered webhook) changes nothing.
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { OrderStatus, PaymentStatus, RefundStatus } from '../generated/prisma/enums.js';
import { recordEvent } from '../events/event-service.js';
import { FEE_RULE, feeRuleOf, type FeeRule, loadOrderForEvent, paymentRowInclude } from '../orders/index.js';
import { paymentEventData } from '../payments/index.js';
import { feeToReturn } from './plan.js';
import { notifyRefundPartSucceeded } from './refund-hooks.js';
import { refundResource } from './resource.js';
import { refundRowInclude, type RefundRow } from './service.js';

type Tx = Prisma.TransactionClient;

export interface PartOutcome {
  processorRefundId: string | null;
  status: 'pending' | 'succeeded' | 'failed' | 'requires_attention';
  failureCode?: string;
  failureMessage?: string;
}

/** The NOTIFY channel a booked part is announced on, its refund's id as the payload. */
export const REFUND_BOOKED_CHANNEL = 'refund_booked';

const PAID_STATES: readonly PaymentStatus[] = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'];

const paymentStatusFor = (succeeded: number, amount: number): PaymentStatus => (succeeded === 0 ? 'PAID' : succeeded >= amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED');

/** Applies the answer; returns the refund as it is afterwards. */
export async function applyPartOutcome(prisma: PrismaClient, partId: string, outcome: PartOutcome, rule: FeeRule = FEE_RULE, now = new Date()): Promise<RefundRow> {
  return prisma.$transaction(async (tx) => {
    // The order's row, reached through the part: every refund of the order serialises on it. The
    // same statement tells a request waiting for this refund (./flow.ts) to read it: NOTIFY is
    // sent when this transaction commits, so it never reports a change that was rolled back. The
    // refund is read after the lock, by a statement of its own: this one's snapshot predates the
    // wait and would show the part as it was before another booking of it (a webhook) committed.
    await tx.$executeRaw`SELECT pg_notify(${REFUND_BOOKED_CHANNEL}, r.id::text) FROM "Order" o JOIN "Refund" r ON r."orderId" = o.id JOIN "RefundPart" p ON p."refundId" = r.id WHERE p.id = ${partId}::uuid FOR UPDATE OF o`;
    // The part's refund with all its parts and their payments: their only read (what the booking changes is worked out from it).
    const before = await tx.refund.findFirstOrThrow({ where: { parts: { some: { id: partId } } }, include: bookingInclude });
    const part = before.parts.find((p) => p.id === partId)!;
    const processorRefundId = outcome.processorRefundId ?? part.processorRefundId;
    // An open part takes the processor's answer, also one requiring attention; a succeeded part
    // only a later failure. Requiring attention is only for a part the processor never answered.
    const moves =
      outcome.status === 'requires_attention'
        ? part.status === 'pending' && part.processorRefundId === null
        : part.status === 'pending' || part.status === 'requires_attention' || (part.status === 'succeeded' && outcome.status === 'failed');
    if (!moves || (part.status === outcome.status && part.processorRefundId === processorRefundId)) return asRefundRow(before);
    // A stranded charge's refund (source expired_payment) gives back money its payment never kept:
    // it came after the payment ended, or beside the charge that paid a renewal. Only its part moves.
    const offBooks = before.source !== 'api';
    const booking = outcome.status === 'succeeded' ? succeed(part, rule, offBooks) : outcome.status === 'failed' ? fail(part, offBooks) : { feeRefunded: part.feeRefunded, payment: null, orderFeeDelta: null };
    const changedPart: Part = { ...asPart(part), status: outcome.status, processorRefundId, feeRefunded: booking.feeRefunded, updatedAt: now };
    const settled = settleRefund(asRefundRow(before), changedPart, outcome, now);
    const written = await writeBooking(tx, { part: changedPart, refund: settled, payment: booking.payment, orderFeeDelta: booking.orderFeeDelta, now });
    const refund = { ...settled, order: { status: written.orderStatus ?? before.order.status } };
    if (outcome.status === 'failed') await restoreUnits(tx, refund.orderId);
    if (outcome.status === 'pending') return refund;
    // After the refund's own status, so the event shows the refund as it now is.
    const { refundParts: _refundParts, ...readPayment } = part.payment;
    const payment = { ...readPayment, ...written.payment };
    const { order, items } = await loadOrderForEvent(tx, payment.orderId);
    const data = { ...paymentEventData(payment, order, items), refund: refundResource(refund) };
    await recordEvent(tx, { workspaceId: payment.workspaceId, livemode: payment.livemode }, EVENT_OF[outcome.status], data);
    // Money the payment kept comes back: its correction (a credit note) commits with the booking.
    if (outcome.status === 'succeeded' && !offBooks) await notifyRefundPartSucceeded(tx, partId, now);
    return refund;
  });
}

/** The event a booked answer records. */
const EVENT_OF = { succeeded: 'payment_refunded', failed: 'refund_failed', requires_attention: 'refund_requires_attention' } as const;

type Part = Prisma.RefundPartGetPayload<object>;

/** A refund as booking reads it: each part with its payment, as the event shows it, and what that payment's succeeded parts gave back. */
const bookingInclude = {
  ...refundRowInclude,
  parts: {
    ...refundRowInclude.parts,
    include: { payment: { include: { ...paymentRowInclude, refundParts: { where: { status: 'succeeded' }, select: { amount: true, feeRefunded: true } } } } },
  },
} satisfies Prisma.RefundInclude;
type PartToBook = Prisma.RefundGetPayload<{ include: typeof bookingInclude }>['parts'][number];

const asPart = ({ payment: _payment, ...part }: Part & { payment?: unknown }): Part => part;

/** The refund without the payments booking read with its parts. */
const asRefundRow = (refund: Omit<RefundRow, 'parts'> & { parts: Array<Part & { payment?: unknown }> }): RefundRow => ({ ...refund, parts: refund.parts.map(asPart) });

/** What a payment's booking changes: its fee and refunded amount by these, its status (null: as it is). */
interface PaymentChange {
  id: string;
  feeDelta: number;
  refundedAmountDelta: number;
  status: PaymentStatus | null;
}

/** What booking a part changes beside the part's status: the fee it gives back, its payment, the order's fee (null: the order is not touched). */
interface Booking {
  feeRefunded: number;
  payment: PaymentChange | null;
  orderFeeDelta: number | null;
}

/** A succeeded part: the fee comes back by the payment's own rule (`rule` for payments made before it was kept). */
function succeed(part: PartToBook, rule: FeeRule, offBooks: boolean): Booking {
  if (offBooks) return { feeRefunded: part.feeRefunded, payment: null, orderFeeDelta: null };
  const { refundParts, ...payment } = part.payment;
  const before = refundParts.reduce((total, p) => ({ amount: total.amount + p.amount, feeRefunded: total.feeRefunded + p.feeRefunded }), { amount: 0, feeRefunded: 0 });
  const fee = feeToReturn({ ...payment, feeRefunded: before.feeRefunded }, before.amount + part.amount, feeRuleOf(payment, rule));
  const status = paymentStatusFor(before.amount + part.amount, payment.amount);
  return { feeRefunded: fee, payment: { id: payment.id, feeDelta: -fee, refundedAmountDelta: 0, status }, orderFeeDelta: orderFeeDelta(payment, -fee) };
}

/**
 * What a payment's fee change moves the order's fee by: the order's value and fee are its
 * purchase's, its first payment's (a subscription's renewals are payments of their own, with
 * their own fees), so a later payment's refund leaves the order's fee as it is.
 */
const orderFeeDelta = (payment: { sequence: number }, delta: number) => (payment.sequence === 1 ? delta : 0);

/** A failed part: its money back on the books, also after an earlier success (its fee charged again). */
function fail(part: PartToBook, offBooks: boolean): Booking {
  if (offBooks) return { feeRefunded: 0, payment: null, orderFeeDelta: null };
  const { refundParts, ...payment } = part.payment;
  // What the payment's other succeeded parts gave back (this one is among them when it had succeeded).
  const succeeded = refundParts.reduce((sum, p) => sum + p.amount, 0) - (part.status === 'succeeded' ? part.amount : 0);
  // Only restored from a refund status: a payment or order set otherwise keeps its status.
  const status = PAID_STATES.includes(payment.status) ? paymentStatusFor(succeeded, payment.amount) : null;
  return {
    feeRefunded: 0,
    payment: { id: payment.id, feeDelta: part.feeRefunded, refundedAmountDelta: -Math.min(part.amount, payment.refundedAmount), status },
    orderFeeDelta: orderFeeDelta(payment, part.feeRefunded),
  };
}

/**
 * The refund's status from its parts (`changed` as booked now): failed when every part failed
 * (its units go back), pending while one is, then requires_attention while one does,
 * partially_failed when some failed and the others succeeded (never "succeeded" for less money
 * than its amount), succeeded otherwise; the fee given back is the parts' sum. A pending answer
 * starts the refund's settling time (the workspace's settling limit counts it).
 */
function settleRefund(read: RefundRow, changed: Part, outcome: PartOutcome, now: Date): RefundRow {
  const parts = read.parts.map((p) => (p.id === changed.id ? changed : p));
  const statuses = parts.map((p) => p.status);
  const status: RefundStatus = statuses.every((s) => s === 'failed')
    ? 'failed'
    : statuses.some((s) => s === 'pending')
      ? 'pending'
      : statuses.some((s) => s === 'requires_attention')
        ? 'requires_attention'
        : statuses.some((s) => s === 'failed')
          ? 'partially_failed'
          : 'succeeded';
  const failure =
    outcome.status === 'failed' || outcome.status === 'requires_attention'
      ? { failureCode: outcome.failureCode ?? 'refund_failed', failureMessage: outcome.failureMessage ?? 'The processor failed the refund' }
      : {};
  const settlingSince = outcome.status === 'pending' ? (read.settlingSince ?? now) : read.settlingSince;
  return { ...read, parts, status, feeRefunded: parts.reduce((sum, p) => sum + p.feeRefunded, 0), ...failure, settlingSince, updatedAt: now };
}

/**
 * The payments an order's refund status follows (`s`, a payment row): paid, with money in them (a
 * payment of 0, a trial's first, has nothing to refund and stays PAID). The order is REFUNDED when
 * there are some and all of them are (ALL_REFUNDED, over them).
 */
const COUNTED_PAYMENT = Prisma.sql`s.amount > 0 AND s.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')`;
const ALL_REFUNDED = Prisma.sql`count(*) > 0 AND bool_and(s.status = 'REFUNDED')`;

/**
 * A booking's writes in one statement: the part and the refund as settled, the payment's change,
 * and, unless `orderFeeDelta` is null, the order's fee and status, which follows its paid payments (with this payment's new
 * status; COUNTED_PAYMENT): REFUNDED when all are, PARTIALLY_REFUNDED when some money came back, PAID otherwise.
 * After a refund, every unit of the order is refunded once the whole order is (also when partial
 * amounts got there). After a failed one, only an order that is REFUNDED or PARTIALLY_REFUNDED
 * now changes status: one set otherwise by PATCH update keeps it. Returns the order's status
 * after it (null: not touched) and the payment's changed columns.
 */
async function writeBooking(
  tx: Tx,
  { part, refund, payment, orderFeeDelta, now }: { part: Part; refund: RefundRow; payment: PaymentChange | null; orderFeeDelta: number | null; now: Date },
): Promise<{ orderStatus: OrderStatus | null; payment: { fee: number; refundedAmount: number; status: PaymentStatus; updatedAt: Date } | null }> {
  // The order is booked after a part succeeded (refunded) or failed (given back).
  const orderId = orderFeeDelta === null ? null : refund.orderId;
  const refunded = part.status === 'succeeded';
  const paymentId = payment?.id ?? null;
  const [written] = await tx.$queryRaw<Array<{ orderStatus: OrderStatus | null; fee: number | null; refundedAmount: number | null; paymentStatus: PaymentStatus | null }>>`
    WITH part AS (
      UPDATE "RefundPart" SET status = ${part.status}::"RefundStatus", "processorRefundId" = ${part.processorRefundId}, "feeRefunded" = ${part.feeRefunded}, "updatedAt" = ${now}
      WHERE id = ${part.id}::uuid
    ), refund AS (
      UPDATE "Refund" SET status = ${refund.status}::"RefundStatus", "feeRefunded" = ${refund.feeRefunded}, "failureCode" = ${refund.failureCode},
        "failureMessage" = ${refund.failureMessage}, "settlingSince" = ${refund.settlingSince}, "updatedAt" = ${now}
      WHERE id = ${refund.id}::uuid
    ), payment AS (
      UPDATE "Payment" SET fee = fee + ${payment?.feeDelta ?? 0}, "refundedAmount" = "refundedAmount" + ${payment?.refundedAmountDelta ?? 0},
        status = COALESCE(${payment?.status ?? null}::"PaymentStatus", status), "updatedAt" = ${now}
      WHERE id = ${paymentId}::uuid
      RETURNING fee, "refundedAmount", status
    ), paid AS (
      SELECT CASE WHEN ${ALL_REFUNDED} THEN 'REFUNDED' WHEN bool_or(s.status <> 'PAID') THEN 'PARTIALLY_REFUNDED' ELSE 'PAID' END::"OrderStatus" AS status
      FROM (SELECT COALESCE((SELECT status FROM payment WHERE p.id = ${paymentId}::uuid), p.status) AS status, p.amount FROM "Payment" p WHERE p."orderId" = ${orderId}::uuid) s
      WHERE ${COUNTED_PAYMENT}
    ), units AS (
      UPDATE "OrderItem" SET "refundedQuantity" = quantity
      WHERE "orderId" = ${orderId}::uuid AND ${refunded} AND (SELECT status FROM paid) = 'REFUNDED'
    ), "order" AS (
      UPDATE "Order" o SET fee = o.fee + ${orderFeeDelta ?? 0}, "updatedAt" = ${now},
        status = CASE WHEN ${refunded} OR o.status IN ('REFUNDED', 'PARTIALLY_REFUNDED') THEN (SELECT status FROM paid) ELSE o.status END
      WHERE o.id = ${orderId}::uuid
      RETURNING o.status
    )
    SELECT (SELECT status::text FROM "order") AS "orderStatus", p.fee, p."refundedAmount", p.status::text AS "paymentStatus"
    FROM (SELECT 1) one LEFT JOIN payment p ON true`;
  const changed = written!.paymentStatus === null ? null : { fee: written!.fee!, refundedAmount: written!.refundedAmount!, status: written!.paymentStatus, updatedAt: now };
  return { orderStatus: written!.orderStatus, payment: changed };
}

/**
 * After a failure, in the transaction that booked it (after the refund's own status): unless every
 * paid payment of the order is still refunded, each item counts the units of the order's refunds
 * that did not fail, no more. A failed refund's units come back, and so do the units a refund that
 * reached REFUNDED marked (every unit of the order) when it or another later fails: downloads and
 * keys work again while the merchant keeps the money. A part failing in a refund whose other part
 * succeeded (partially_failed) keeps the refund's units refunded.
 */
async function restoreUnits(tx: Tx, orderId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "OrderItem" i SET "refundedQuantity" = LEAST(i.quantity, COALESCE((
      SELECT sum((e->>'quantity')::int) FROM "Refund" r CROSS JOIN LATERAL jsonb_array_elements(r.items) e
      WHERE r."orderId" = i."orderId" AND r.status NOT IN ('failed', 'canceled') AND e->>'id' = i.id::text), 0))
    WHERE i."orderId" = ${orderId}::uuid
      AND NOT (SELECT ${ALL_REFUNDED} FROM "Payment" s WHERE s."orderId" = ${orderId}::uuid AND ${COUNTED_PAYMENT})`;
}

/**
 * A subscription's renewal paid, in its transaction: it pays for every unit of the order again for
 * its period, so none stays refunded (downloads and keys work again), and an order its refunds had
 * left REFUNDED is PARTIALLY_REFUNDED (refunding a subscription's payments does not end it, as
 * with Stripe's refunded invoices).
 */
export async function reopenRenewedOrder(tx: Tx, orderId: string): Promise<void> {
  await tx.order.updateMany({ where: { id: orderId, status: 'REFUNDED' }, data: { status: 'PARTIALLY_REFUNDED' } });
  await tx.orderItem.updateMany({ where: { orderId, refundedQuantity: { gt: 0 } }, data: { refundedQuantity: 0 } });
}

/** The part a processor's refund id names (its webhooks), or null when the refund is not ours. */
export const partOfProcessorRefund = (prisma: PrismaClient, processor: 'sandbox' | 'stripe', processorRefundId: string) =>
  prisma.refundPart.findUnique({ where: { processor_processorRefundId: { processor, processorRefundId } }, select: { id: true } });
