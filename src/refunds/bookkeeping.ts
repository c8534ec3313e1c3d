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
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { OrderStatus, PaymentStatus, RefundStatus } from '../generated/prisma/enums.js';
import { recordEvent } from '../events/event-service.js';
import { FEE_RULE, feeRuleOf, type FeeRule, loadOrderForEvent, paymentRowInclude, type PaymentRow } from '../orders/index.js';
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
    // The part's refund with all its parts and their payments: their only read (settleRefund works on it).
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
    if (outcome.status === 'pending') {
      const pending = await tx.refundPart.update({ where: { id: partId }, data: { status: 'pending', processorRefundId } });
      await tx.refund.updateMany({ where: { id: before.id, settlingSince: null }, data: { settlingSince: now } });
      return settleRefund(tx, before, { part: pending, orderStatus: before.order.status }, outcome);
    }
    // A stranded charge's refund (source expired_payment) gives back money its payment never kept:
    // it came after the payment ended, or beside the charge that paid a renewal. Only its part moves.
    const offBooks = before.source !== 'api';
    const { payment, ...booked } =
      outcome.status === 'succeeded'
        ? await succeed(tx, part, processorRefundId, rule, offBooks)
        : outcome.status === 'failed'
          ? await fail(tx, part, processorRefundId, offBooks)
          : await holdForAttention(tx, part);
    const refund = await settleRefund(tx, before, { part: booked.part, orderStatus: booked.orderStatus ?? before.order.status }, outcome);
    // After the refund's own status, so the event shows the refund as it now is.
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

/** The refund without the payments booking read with its parts. */
const asRefundRow = (refund: Omit<RefundRow, 'parts'> & { parts: Array<Part & { payment?: unknown }> }): RefundRow => ({ ...refund, parts: refund.parts.map(({ payment: _payment, ...part }) => part) });

/** The money the payment's succeeded refund parts have given back so far. */
async function succeededOnPayment(tx: Tx, paymentId: string): Promise<number> {
  const { _sum } = await tx.refundPart.aggregate({ where: { paymentId, status: 'succeeded' }, _sum: { amount: true } });
  return _sum.amount ?? 0;
}

/** What booking a part changed: the part, its payment as the event shows it, the order's status (null: unchanged). */
interface Booked {
  part: Part;
  payment: PaymentRow;
  orderStatus: OrderStatus | null;
}

/** Books a succeeded part: the fee comes back by the payment's own rule (`rule` for payments made before it was kept). */
async function succeed(tx: Tx, part: PartToBook, processorRefundId: string | null, rule: FeeRule, offBooks: boolean): Promise<Booked> {
  const { refundParts, ...payment } = part.payment;
  if (offBooks) {
    return { part: await tx.refundPart.update({ where: { id: part.id }, data: { status: 'succeeded', processorRefundId } }), payment, orderStatus: null };
  }
  const before = refundParts.reduce((total, p) => ({ amount: total.amount + p.amount, feeRefunded: total.feeRefunded + p.feeRefunded }), { amount: 0, feeRefunded: 0 });
  const fee = feeToReturn({ ...payment, feeRefunded: before.feeRefunded }, before.amount + part.amount, feeRuleOf(payment, rule));
  const booked = await tx.refundPart.update({ where: { id: part.id }, data: { status: 'succeeded', processorRefundId, feeRefunded: fee } });
  const status = paymentStatusFor(before.amount + part.amount, payment.amount);
  // The order and subscription numbers the event shows do not change: no read after the update.
  const updated = { ...payment, ...(await tx.payment.update({ where: { id: payment.id }, data: { fee: { decrement: fee }, status } })) };
  return { part: booked, payment: updated, orderStatus: await updateOrder(tx, payment.orderId, orderFeeDelta(payment, -fee), 'refunded') };
}

/**
 * What a payment's fee change moves the order's fee by: the order's value and fee are its
 * purchase's, its first payment's (a subscription's renewals are payments of their own, with
 * their own fees), so a later payment's refund leaves the order's fee as it is.
 */
const orderFeeDelta = (payment: { sequence: number }, delta: number) => (payment.sequence === 1 ? delta : 0);

/** Books a failed part (its money back on the books). */
async function fail(tx: Tx, part: PartToBook, processorRefundId: string | null, offBooks: boolean): Promise<Booked> {
  const { payment } = part;
  const booked = await tx.refundPart.update({ where: { id: part.id }, data: { status: 'failed', processorRefundId, feeRefunded: 0 } });
  if (offBooks) return { part: booked, payment, orderStatus: null };
  const succeeded = await succeededOnPayment(tx, part.paymentId);
  const updated = await tx.payment.update({
    where: { id: payment.id },
    data: {
      refundedAmount: { decrement: Math.min(part.amount, payment.refundedAmount) },
      fee: { increment: part.feeRefunded },
      ...(PAID_STATES.includes(payment.status) ? { status: paymentStatusFor(succeeded, payment.amount) } : {}),
    },
    include: paymentRowInclude,
  });
  // Only restored from a refund status: an order set otherwise by PATCH update keeps that status.
  return { part: booked, payment: updated, orderStatus: await updateOrder(tx, payment.orderId, orderFeeDelta(payment, part.feeRefunded), 'refund failed') };
}

/** A part the processor never answered within its key's window: held as it is (money and units stay reserved) until its word comes. */
async function holdForAttention(tx: Tx, part: PartToBook): Promise<Booked> {
  const { refundParts: _refundParts, ...payment } = part.payment;
  return { part: await tx.refundPart.update({ where: { id: part.id }, data: { status: 'requires_attention' } }), payment, orderStatus: null };
}

/**
 * After a part is booked, one statement: the order's fee moves by `feeDelta` and its status
 * follows its paid payments (as this transaction left them): REFUNDED when all are,
 * PARTIALLY_REFUNDED when some money came back, PAID otherwise. After a refund, every unit of the
 * order is refunded once the whole order is (also when partial amounts got there). After a failed
 * one, only an order that is REFUNDED or PARTIALLY_REFUNDED now changes status: one set otherwise
 * by PATCH update keeps it. Returns the order's status after it.
 */
async function updateOrder(tx: Tx, orderId: string, feeDelta: number, after: 'refunded' | 'refund failed'): Promise<OrderStatus> {
  const refunded = after === 'refunded';
  const [order] = await tx.$queryRaw<{ status: OrderStatus }[]>`
    WITH paid AS (
      SELECT CASE WHEN count(*) > 0 AND bool_and(p.status = 'REFUNDED') THEN 'REFUNDED' WHEN bool_or(p.status <> 'PAID') THEN 'PARTIALLY_REFUNDED' ELSE 'PAID' END::"OrderStatus" AS status
      FROM "Payment" p WHERE p."orderId" = ${orderId}::uuid AND p.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED')
    ), units AS (
      UPDATE "OrderItem" SET "refundedQuantity" = quantity
      WHERE "orderId" = ${orderId}::uuid AND ${refunded} AND (SELECT status FROM paid) = 'REFUNDED'
    )
    UPDATE "Order" o SET fee = o.fee + ${feeDelta}, "updatedAt" = ${new Date()},
      status = CASE WHEN ${refunded} OR o.status IN ('REFUNDED', 'PARTIALLY_REFUNDED') THEN (SELECT status FROM paid) ELSE o.status END
    WHERE o.id = ${orderId}::uuid
    RETURNING o.status::text AS status`;
  return order!.status;
}

/**
 * The refund's status from its parts: failed when every part failed (its units go back), pending
 * while one is, then requires_attention while one does, partially_failed when some failed and
 * the others succeeded (never "succeeded" for less money than its amount), succeeded otherwise;
 * the fee given back is the parts' sum.
 */
async function settleRefund(tx: Tx, before: RefundRow, changed: { part: Part; orderStatus: OrderStatus }, outcome: PartOutcome): Promise<RefundRow> {
  // The refund as read at the start with what this transaction changed since: its part and the order's status.
  const read = asRefundRow(before);
  const refund = { ...read, parts: read.parts.map((p) => (p.id === changed.part.id ? changed.part : p)), order: { status: changed.orderStatus } };
  const statuses = refund.parts.map((p) => p.status);
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
  const settled = { ...refund, ...(await tx.refund.update({ where: { id: refund.id }, data: { status, feeRefunded: refund.parts.reduce((sum, p) => sum + p.feeRefunded, 0), ...failure } })) };
  if (outcome.status === 'failed') await restoreUnits(tx, refund.orderId);
  return settled;
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
      AND NOT (SELECT count(*) > 0 AND bool_and(p.status = 'REFUNDED') FROM "Payment" p WHERE p."orderId" = ${orderId}::uuid AND p.status IN ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'))`;
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
