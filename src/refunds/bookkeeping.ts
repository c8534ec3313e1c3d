// The processor's answer for one part of a refund, applied to our books in one transaction (the
// order's row locked, as refunds are created under it):
//   pending    the processor settles it later (counted by the workspace's settling limit);
//   succeeded  the fee's share comes back, the payment and the order become PARTIALLY_REFUNDED or
//              REFUNDED, payment_refunded (user and customer) is recorded;
//   failed     the money and units go back on the books (refundable again, the payment's status
//              restored, also after an earlier success), refund_failed is recorded.
// Idempotent: the same answer twice (a retried activity, a redelivered webhook) changes nothing.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { OrderStatus, PaymentStatus, RefundStatus } from '../generated/prisma/enums.js';
import { recordEvent } from '../events/event-service.js';
import { FEE_RULE, type FeeRule } from '../orders/fee.js';
import { loadOrderForEvent } from '../orders/service.js';
import { paymentEventData } from '../payments/events.js';
import { paymentRowInclude, type PaymentRow } from '../payments/resource.js';
import { feeReturned } from './plan.js';
import { refundResource } from './resource.js';
import { refundRowInclude, type RefundRow } from './service.js';

type Tx = Prisma.TransactionClient;

export interface PartOutcome {
  processorRefundId: string | null;
  status: 'pending' | 'succeeded' | 'failed';
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
    // The part, read with its order's row locked: every refund of the order serialises on it. The
    // same statement tells a request waiting for this refund (./flow.ts) to read it: NOTIFY is
    // sent when this transaction commits, so it never reports a change that was rolled back (in
    // the select list, it runs for the one row read; void has no type of its own to read as).
    const [part] = await tx.$queryRaw<Part[]>`
      SELECT p.*, pg_notify(${REFUND_BOOKED_CHANNEL}, r.id::text)::text AS notice
      FROM "RefundPart" p JOIN "Refund" r ON r.id = p."refundId" JOIN "Order" o ON o.id = r."orderId"
      WHERE p.id = ${partId}::uuid FOR UPDATE OF o`;
    if (!part) throw new Error(`No refund part ${partId}`);
    const { refundId } = part;
    const processorRefundId = outcome.processorRefundId ?? part.processorRefundId;
    const moves = part.status === 'pending' || (part.status === 'succeeded' && outcome.status === 'failed');
    if (!moves || (part.status === outcome.status && part.processorRefundId === processorRefundId)) return tx.refund.findUniqueOrThrow({ where: { id: refundId }, include: refundRowInclude });
    if (outcome.status === 'pending') {
      await tx.refundPart.update({ where: { id: partId }, data: { processorRefundId } });
      await tx.refund.updateMany({ where: { id: refundId, settlingSince: null }, data: { settlingSince: now } });
      return settleRefund(tx, refundId, outcome);
    }
    const payment = outcome.status === 'succeeded' ? await succeed(tx, part, processorRefundId, rule) : await fail(tx, part, processorRefundId);
    const refund = await settleRefund(tx, refundId, outcome);
    // After the refund's own status, so the event shows the refund as it now is.
    const { order, items } = await loadOrderForEvent(tx, payment.orderId);
    const data = { ...paymentEventData(payment, order, items), refund: refundResource(refund) };
    await recordEvent(tx, { workspaceId: payment.workspaceId, livemode: payment.livemode }, outcome.status === 'succeeded' ? 'payment_refunded' : 'refund_failed', data);
    return refund;
  });
}

type Part = Prisma.RefundPartGetPayload<object>;

/** The money the payment's succeeded refund parts have given back so far. */
async function succeededOnPayment(tx: Tx, paymentId: string): Promise<number> {
  const { _sum } = await tx.refundPart.aggregate({ where: { paymentId, status: 'succeeded' }, _sum: { amount: true } });
  return _sum.amount ?? 0;
}

/** Books a succeeded part; returns its payment as the event shows it. */
async function succeed(tx: Tx, part: Part, processorRefundId: string | null, rule: FeeRule): Promise<PaymentRow> {
  // With what its succeeded refund parts have given back so far (joined: one statement).
  const { refundParts, ...payment } = await tx.payment.findUniqueOrThrow({
    where: { id: part.paymentId },
    include: { ...paymentRowInclude, refundParts: { where: { status: 'succeeded' }, select: { amount: true, feeRefunded: true } } },
  });
  // Money that came after its payment ended (source expired_payment) was never on the books: only the part changes.
  if (!PAID_STATES.includes(payment.status)) {
    await tx.refundPart.update({ where: { id: part.id }, data: { status: 'succeeded', processorRefundId } });
    return payment;
  }
  const before = refundParts.reduce((total, p) => ({ amount: total.amount + p.amount, feeRefunded: total.feeRefunded + p.feeRefunded }), { amount: 0, feeRefunded: 0 });
  const fee = feeReturned({ ...payment, feeRefunded: before.feeRefunded }, before.amount, before.amount + part.amount, rule);
  await tx.refundPart.update({ where: { id: part.id }, data: { status: 'succeeded', processorRefundId, feeRefunded: fee } });
  const status = paymentStatusFor(before.amount + part.amount, payment.amount);
  // The order and subscription numbers the event shows do not change: no read after the update.
  const updated = { ...payment, ...(await tx.payment.update({ where: { id: payment.id }, data: { fee: { decrement: fee }, status } })) };
  const orderStatus = await orderStatusFromPayments(tx, payment.orderId);
  await tx.order.update({ where: { id: payment.orderId }, data: { fee: { decrement: fee }, status: orderStatus } });
  // Every unit is refunded once the whole order is (also when partial amounts got there).
  if (orderStatus === 'REFUNDED') await tx.$executeRaw`UPDATE "OrderItem" SET "refundedQuantity" = quantity WHERE "orderId" = ${payment.orderId}::uuid`;
  return updated;
}

/** Books a failed part (its money back on the books); returns its payment as the event shows it. */
async function fail(tx: Tx, part: Part, processorRefundId: string | null): Promise<PaymentRow> {
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: part.paymentId } });
  await tx.refundPart.update({ where: { id: part.id }, data: { status: 'failed', processorRefundId, feeRefunded: 0 } });
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
  await tx.order.update({ where: { id: payment.orderId }, data: { fee: { increment: part.feeRefunded } } });
  // Only restored from a refund status: an order set otherwise by PATCH update keeps that status.
  const orderStatus = await orderStatusFromPayments(tx, payment.orderId);
  await tx.order.updateMany({ where: { id: payment.orderId, status: { in: ['REFUNDED', 'PARTIALLY_REFUNDED'] } }, data: { status: orderStatus } });
  return updated;
}

/** The order's status from its paid payments: REFUNDED when all are, PARTIALLY_REFUNDED when some money came back, PAID otherwise. */
async function orderStatusFromPayments(tx: Tx, orderId: string): Promise<OrderStatus> {
  const payments = await tx.payment.findMany({ where: { orderId, status: { in: [...PAID_STATES] } }, select: { status: true } });
  return payments.length > 0 && payments.every((p) => p.status === 'REFUNDED') ? 'REFUNDED' : payments.some((p) => p.status !== 'PAID') ? 'PARTIALLY_REFUNDED' : 'PAID';
}

/**
 * The refund's status from its parts: failed when every part failed (its units go back), pending
 * while one is, partially_failed when some failed and the others succeeded (never "succeeded"
 * for less money than its amount), succeeded otherwise; the fee given back is the parts' sum.
 */
async function settleRefund(tx: Tx, refundId: string, outcome: PartOutcome): Promise<RefundRow> {
  // Read after every other change of this transaction (its parts, the order's status): the refund's
  // row after the update below is all that changes.
  const refund = await tx.refund.findUniqueOrThrow({ where: { id: refundId }, include: refundRowInclude });
  const statuses = refund.parts.map((p) => p.status);
  const status: RefundStatus = statuses.every((s) => s === 'failed')
    ? 'failed'
    : statuses.some((s) => s === 'pending')
      ? 'pending'
      : statuses.some((s) => s === 'failed')
        ? 'partially_failed'
        : 'succeeded';
  const failure = outcome.status === 'failed' ? { failureCode: outcome.failureCode ?? 'refund_failed', failureMessage: outcome.failureMessage ?? 'The processor failed the refund' } : {};
  const settled = { ...refund, ...(await tx.refund.update({ where: { id: refundId }, data: { status, feeRefunded: refund.parts.reduce((sum, p) => sum + p.feeRefunded, 0), ...failure } })) };
  if (status === 'failed' && refund.status !== 'failed') {
    for (const item of refund.items as Array<{ id: string; quantity: number }>) {
      await tx.$executeRaw`UPDATE "OrderItem" SET "refundedQuantity" = GREATEST("refundedQuantity" - ${item.quantity}, 0) WHERE id = ${item.id}::uuid`;
    }
  }
  return settled;
}

/** The part a processor's refund id names (its webhooks), or null when the refund is not ours. */
export const partOfProcessorRefund = (prisma: PrismaClient, processor: 'sandbox' | 'stripe', processorRefundId: string) =>
  prisma.refundPart.findUnique({ where: { processor_processorRefundId: { processor, processorRefundId } }, select: { id: true } });
