// What an order can still give back and how a refund request splits over its payments: pure
// functions over the order's payments and items, shared by the refund itself and by
// GET /refundable, so a preview never disagrees with the refund (docs/decisions.md, "Refunds").
import { createHash } from 'node:crypto';

import { canonical } from '../core/idempotency.js';
import { ValidationFailed } from '../core/errors.js';
import type { PaymentMethodType, PaymentProcessor, PaymentStatus } from '../generated/prisma/enums.js';
import { feeRuleOf, type FeeRule } from '../orders/index.js';
import { MAX_WORKFLOW_ID_LENGTH } from '../temporal/limits.js';

/** Identical bodies without a key within this window return the first refund (the contract's Limits). */
export const DERIVED_DEDUP_WINDOW_MS = 23 * 60 * 60 * 1000;

export interface PaymentState {
  id: string;
  number: string;
  sequence: number;
  status: PaymentStatus;
  processor: PaymentProcessor | null;
  methodType: PaymentMethodType | null;
  processorChargeId: string | null;
  amount: number;
  fee: number;
  /** Pending and succeeded refunds (reserved when a refund is created, as Stripe's amount_refunded). */
  refundedAmount: number;
  /** The fee given back so far (the payment's fee was this much higher when it was paid). */
  feeRefunded: number;
  /** The fee rule of the payment (orders/fee.ts feeRuleOf); null on payments made before it was kept. */
  feeBasisPoints: number | null;
  feeFixed: number | null;
  disputed: boolean;
}

export interface ItemState {
  id: string;
  quantity: number;
  /** Units given back or being given back. */
  refundedQuantity: number;
  unitPrice: number;
  discount: number;
  tax: number;
  /** The tax is within unitPrice (the workspace's pricesIncludeTax at checkout), not on top of it. */
  taxInclusive: boolean;
}

/** Why a payment's money cannot come back through the API now; null when it can. */
export type PaymentBlock = null | 'not_paid' | 'manual_method' | 'unsupported' | 'dispute_open' | 'dispute_lost';

export interface RefundBody {
  amount?: number | null;
  reason?: string | null;
  idempotencyKey?: string | null;
  metadata?: unknown;
  items?: ReadonlyArray<{ id: string; quantity: number }> | null;
}

export interface Share {
  paymentId: string;
  processor: PaymentProcessor;
  processorChargeId: string;
  amount: number;
}

export interface Plan {
  amount: number;
  shares: Share[];
  /** Units given back per item. */
  items: Array<{ id: string; quantity: number }>;
}

/** The live dispute state of a disputed payment (its processor's disputeState), by payment id. */
export type DisputeStates = ReadonlyMap<string, 'open' | 'lost' | 'won' | 'none'>;

const PAID: readonly PaymentStatus[] = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'];

export function paymentBlock(payment: PaymentState, disputes: DisputeStates, refundsSupported: (p: PaymentState) => boolean): PaymentBlock {
  if (!PAID.includes(payment.status) || !payment.processor || !payment.processorChargeId) return 'not_paid';
  if (payment.methodType === 'manual') return 'manual_method';
  if (!refundsSupported(payment)) return 'unsupported';
  const dispute = disputes.get(payment.id);
  if (dispute === 'open') return 'dispute_open';
  if (dispute === 'lost') return 'dispute_lost';
  return null;
}

/** What is left on a payment whose refunds are allowed. */
export const paymentLeft = (payment: PaymentState) => Math.max(payment.amount - payment.refundedAmount, 0);

/**
 * The platform fee a payment's refunds return once `refunded` of it is refunded: the percentage
 * part proportionally (rounded down), the fixed part kept (it paid for the charge, which happened).
 * Computed on the total, so partial refunds add up to exactly what one full refund returns.
 */
function feeUpTo(payment: Pick<PaymentState, 'amount' | 'fee' | 'feeRefunded'>, refunded: number, rule: FeeRule): number {
  if (payment.amount <= 0) return 0;
  const paid = payment.fee + payment.feeRefunded;
  const variable = paid - Math.min(rule.fixed, paid);
  return Math.floor((variable * Math.min(refunded, payment.amount)) / payment.amount);
}

/** The fee that comes back when a payment's refunded total goes from `before` to `after` (what a refund would return: GET /refundable). */
export function feeReturned(payment: Pick<PaymentState, 'amount' | 'fee' | 'feeRefunded'>, before: number, after: number, rule: FeeRule): number {
  return feeUpTo(payment, after, rule) - feeUpTo(payment, before, rule);
}

/**
 * The fee a part gives back when it succeeds and the payment's succeeded refunds reach
 * `succeeded`: what they return together now, less what they already gave back (feeRefunded).
 * Against what actually came back, not the share between two totals: a part that failed after
 * succeeding took back exactly its own fee, which the totals on either side of it do not add up
 * to, and a rounding unit would be returned twice. Never negative; once all is refunded, exactly
 * what one full refund returns.
 */
export function feeToReturn(payment: Pick<PaymentState, 'amount' | 'fee' | 'feeRefunded'>, succeeded: number, rule: FeeRule): number {
  return Math.max(feeUpTo(payment, succeeded, rule) - payment.feeRefunded, 0);
}

/** A line's value (what the buyer paid for it): its tax is on top of the price unless the price includes it. */
const lineTotal = (item: ItemState) => item.unitPrice * item.quantity - item.discount + (item.taxInclusive ? 0 : item.tax);

/** What `units` more units of an item are worth, cumulatively, so every unit refunded equals the line exactly. */
export function unitsValue(item: ItemState, units: number): number {
  const upTo = (n: number) => Math.floor((lineTotal(item) * n) / item.quantity);
  return upTo(item.refundedQuantity + units) - upTo(item.refundedQuantity);
}

export const refundableUnits = (item: ItemState) => Math.max(item.quantity - item.refundedQuantity, 0);

const BLOCK_MESSAGES: Record<Exclude<PaymentBlock, null | 'not_paid'>, string> = {
  manual_method: 'This order was paid by bank transfer (the manual method), which cannot be refunded through the API: pay it back outside the API',
  unsupported: "This order's payment processor does not support refunds through the API for its payment method",
  dispute_open: "The order's charge is disputed and the dispute is still open: the money is with the card network until it is decided",
  dispute_lost: "The order's charge was disputed and the dispute was lost: the money already went back to the cardholder",
};

/** Why nothing can be refunded, in the words of the payments' states (the message says which). */
export function nothingRefundableReason(payments: readonly PaymentState[], blocks: readonly PaymentBlock[]): string {
  const paid = payments.filter((_, i) => blocks[i] !== 'not_paid');
  const block = blocks.find((b): b is Exclude<PaymentBlock, null | 'not_paid'> => b !== null && b !== 'not_paid');
  if (block) return BLOCK_MESSAGES[block];
  if (paid.length > 0) {
    return paid.some((p) => p.status !== 'REFUNDED' && p.amount > 0) ? 'Nothing is left to refund: earlier refunds take (or are taking) the whole amount paid' : 'The order is fully refunded: nothing is left to refund';
  }
  if (payments.length === 0 || payments.every((p) => !p.processor)) return 'This order was free (no payment through a card processor): nothing to refund';
  const latest = payments[payments.length - 1]!;
  return `The order's payment is ${latest.status}: nothing was paid that could be refunded`;
}

export interface RefundableView {
  amount: number;
  fee: number;
  /** Why nothing is refundable (null when something is). */
  reason: string | null;
  disputeBlocked: boolean;
  payments: Array<{ payment: PaymentState; amount: number; fee: number; block: PaymentBlock }>;
  items: Array<{ item: ItemState; quantity: number; amount: number }>;
}

/**
 * What could be refunded now: in total, per payment (newest first, the order refunds draw in) and
 * per item. Each payment's fee by its own rule; `rule` for payments made before it was kept.
 */
export function refundableView(payments: readonly PaymentState[], items: readonly ItemState[], blocks: readonly PaymentBlock[], rule: FeeRule): RefundableView {
  const rows = payments
    .map((payment, i) => {
      const amount = blocks[i] === null ? paymentLeft(payment) : 0;
      return { payment, amount, fee: feeReturned(payment, payment.refundedAmount, payment.refundedAmount + amount, feeRuleOf(payment, rule)), block: blocks[i]! };
    })
    .sort((a, b) => b.payment.sequence - a.payment.sequence);
  const amount = rows.reduce((sum, row) => sum + row.amount, 0);
  return {
    amount,
    fee: rows.reduce((sum, row) => sum + row.fee, 0),
    reason: amount > 0 ? null : nothingRefundableReason(payments, blocks),
    disputeBlocked: blocks.some((b) => b === 'dispute_open' || b === 'dispute_lost'),
    payments: rows,
    items: items.map((item) => ({ item, quantity: refundableUnits(item), amount: unitsValue(item, refundableUnits(item)) })),
  };
}

/** The units a body's items give back, checked against the order's items. */
function unitsOf(body: RefundBody, items: readonly ItemState[]): Array<{ item: ItemState; quantity: number }> {
  const byId = new Map(items.map((item) => [item.id, item]));
  const seen = new Set<string>();
  return (body.items ?? []).map((entry, index) => {
    const item = byId.get(entry.id.toLowerCase());
    if (!item) throw new ValidationFailed(`items.${index}.id: ${entry.id} is not a cart item of this order`);
    if (seen.has(item.id)) throw new ValidationFailed(`items.${index}.id: the item ${item.id} is listed twice`);
    seen.add(item.id);
    const left = refundableUnits(item);
    if (!Number.isInteger(entry.quantity) || entry.quantity < 1) throw new ValidationFailed(`items.${index}.quantity must be a positive integer`);
    if (entry.quantity > left) throw new ValidationFailed(`items.${index}.quantity: ${entry.quantity} units exceed the ${left} of the item not yet refunded`);
    return { item, quantity: entry.quantity };
  });
}

/**
 * How a request refunds the order: `amount` (or, without it, the value of the given units, or
 * everything left) drawn from the newest paid payment first and split over older ones. 400 with
 * the reason when it cannot.
 */
export function planRefund(view: RefundableView, body: RefundBody): Plan {
  if (body.amount != null && (!Number.isInteger(body.amount) || body.amount < 1)) throw new ValidationFailed('amount must be a positive integer of minor units');
  if (view.amount === 0) throw new ValidationFailed(view.reason!);
  const units = unitsOf(body, view.items.map((row) => row.item));
  const full = body.amount == null && units.length === 0;
  const amount = body.amount ?? (full ? view.amount : units.reduce((sum, u) => sum + unitsValue(u.item, u.quantity), 0));
  if (amount === 0) throw new ValidationFailed('The given units were free: nothing to refund');
  if (amount > view.amount) throw new ValidationFailed(`amount ${amount} exceeds the ${view.amount} still refundable on this order`);
  const shares: Share[] = [];
  let rest = amount;
  for (const row of view.payments) {
    if (rest === 0) break;
    const take = Math.min(row.amount, rest);
    if (take === 0) continue;
    shares.push({ paymentId: row.payment.id, processor: row.payment.processor!, processorChargeId: row.payment.processorChargeId!, amount: take });
    rest -= take;
  }
  const given = full
    ? view.items.filter((row) => row.quantity > 0).map((row) => ({ id: row.item.id, quantity: row.quantity }))
    : units.map((u) => ({ id: u.item.id, quantity: u.quantity }));
  return { amount, shares, items: given };
}

/** The request's fingerprint: what makes two bodies "identical" for the derived dedup and the same-key check. */
export function refundFingerprint(body: RefundBody): string {
  const items = [...(body.items ?? [])].map((i) => ({ id: i.id.toLowerCase(), quantity: i.quantity })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const shape = { amount: body.amount ?? null, reason: body.reason ?? null, metadata: body.metadata ?? {}, items };
  return createHash('sha256').update(canonical(shape)).digest('hex');
}

/** The 23-hour bucket of a time: part of a derived refund's workflow id. */
export const dedupBucket = (at: Date) => Math.floor(at.getTime() / DERIVED_DEDUP_WINDOW_MS);

/**
 * The refund's workflow id, from its business key: workspace, order, and the idempotency key (as
 * sent when it is printable ASCII and the id stays within MAX_WORKFLOW_ID_LENGTH, else its hash)
 * or the body's fingerprint with its bucket.
 */
export function refundWorkflowId(
  workspaceId: string,
  orderId: string,
  key: { idempotencyKey: string } | { fingerprint: string; at: Date } | { expiredPaymentId: string; chargeId: string },
): string {
  const base = `refund/${workspaceId}/${orderId}`;
  if ('idempotencyKey' in key) return keyed(`${base}/key`, key.idempotencyKey);
  // One per charge: a payment can strand several (a renewal's attempts), each refunded on its own.
  if ('expiredPaymentId' in key) return keyed(`${base}/expired-payment/${key.expiredPaymentId}`, key.chargeId);
  return `${base}/body/${key.fingerprint.slice(0, 32)}/${dedupBucket(key.at)}`;
}

/** `prefix/value` as sent when printable ASCII within the limit, else `prefix/sha256-<hash of value>`. */
function keyed(prefix: string, value: string): string {
  const asSent = `${prefix}/${value}`;
  return /^[\x21-\x7e]+$/.test(value) && asSent.length <= MAX_WORKFLOW_ID_LENGTH ? asSent : `${prefix}/sha256-${createHash('sha256').update(value).digest('hex')}`;
}
