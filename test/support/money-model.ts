// A small model of one workspace's money, written apart from the code under test (none of
// src/refunds/plan.ts is reused): what each payment was paid and its fee, what each refund part
// reserved, gave back and returned of the fee, the units each item has given back, and the
// statuses those amounts imply. test/money-model.test.ts drives the API with fast-check commands
// and compares the stored books with this after every command.

/** The sandbox test cards the model knows: one whose refunds succeed, one whose refunds fail after being accepted. */
export type Card = 'succeed' | 'refund_fail';
export const CARD_NUMBERS: Record<Card, string> = { succeed: '4242424242424242', refund_fail: '4000000000005126' };

/** The suite's platform fee rule (5 % + 50, the server's defaults). */
const FEE = { basisPoints: 500, fixed: 50 };
export const feeOf = (value: number) => (value <= 0 ? 0 : Math.min(value, Math.floor((value * FEE.basisPoints + 5_000) / 10_000) + FEE.fixed));

export interface MPayment {
  id: string;
  sequence: number;
  amount: number;
  fee0: number;
  card: Card;
  disputed: boolean;
}

export interface MPart {
  paymentId: string;
  amount: number;
  status: 'pending' | 'succeeded' | 'failed';
  fee: number;
  processorRefundId: string | null;
}

export type Units = Array<{ id: string; quantity: number }>;

export interface MRefund {
  id: string;
  key: string;
  body: { amount?: number; items?: Units };
  amount: number;
  /** Units the refund gives back (the body's, or every unit left for a full refund). */
  items: Units;
  parts: MPart[];
}

export interface MItem {
  id: string;
  quantity: number;
  /** What the buyer paid for the line. */
  line: number;
  refunded: number;
}

export interface MSubscription {
  id: string;
  number: string;
  card: Card;
  ended: boolean;
  /** The last period paid (1: the purchase). */
  period: number;
}

export interface MOrder {
  id: string;
  number: string;
  /** Unpaid orders: PENDING until their payment ends, then that payment's end. */
  unpaid: null | 'PENDING' | 'CANCELLED';
  fee0: number;
  payments: MPayment[];
  items: MItem[];
  refunds: MRefund[];
  subscription?: MSubscription;
}

export interface Model {
  orders: MOrder[];
}

export type RefundKind = { kind: 'full' } | { kind: 'amount'; permille: number; over: boolean } | { kind: 'items'; units: number };

const partsOn = (order: MOrder, paymentId: string) => order.refunds.flatMap((r) => r.parts).filter((p) => p.paymentId === paymentId);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const succeededOn = (order: MOrder, p: MPayment) => sum(partsOn(order, p.id).filter((x) => x.status === 'succeeded').map((x) => x.amount));
export const reservedOn = (order: MOrder, p: MPayment) => sum(partsOn(order, p.id).filter((x) => x.status !== 'failed').map((x) => x.amount));
const feeBackOn = (order: MOrder, p: MPayment) => sum(partsOn(order, p.id).filter((x) => x.status === 'succeeded').map((x) => x.fee));

export function paymentStatus(order: MOrder, p: MPayment) {
  const succeeded = succeededOn(order, p);
  return succeeded === 0 ? 'PAID' : succeeded >= p.amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

export function orderStatus(order: MOrder) {
  if (order.unpaid) return order.unpaid;
  // A payment of 0 (a trial's first) has nothing to refund: it does not hold the order back from REFUNDED.
  const statuses = order.payments.filter((p) => p.amount > 0).map((p) => paymentStatus(order, p));
  return statuses.length > 0 && statuses.every((s) => s === 'REFUNDED') ? 'REFUNDED' : statuses.some((s) => s !== 'PAID') ? 'PARTIALLY_REFUNDED' : 'PAID';
}

export function refundStatus(refund: MRefund) {
  const statuses = refund.parts.map((p) => p.status);
  if (statuses.every((s) => s === 'failed')) return 'failed';
  if (statuses.includes('pending')) return 'pending';
  return statuses.includes('failed') ? 'partially_failed' : 'succeeded';
}

export const paymentFeeNow = (order: MOrder, p: MPayment) => p.fee0 - feeBackOn(order, p);
/** The order's fee is its purchase's: its first payment's, less what that payment's refunds returned (a renewal's fee is its own). */
export const orderFeeNow = (order: MOrder) => order.fee0 - (order.payments[0] ? feeBackOn(order, order.payments[0]) : 0);

/** Payments whose money can come back now, newest first, with what is left on each. */
function refundableRows(order: MOrder) {
  if (order.unpaid) return [];
  return order.payments
    .filter((p) => !p.disputed)
    .map((p) => ({ payment: p, left: p.amount - reservedOn(order, p) }))
    .sort((a, b) => b.payment.sequence - a.payment.sequence);
}

/** What `units` more units of an item are worth: cumulative, so every unit refunded adds up to the line. */
const unitsValue = (item: MItem, units: number) => Math.floor((item.line * (item.refunded + units)) / item.quantity) - Math.floor((item.line * item.refunded) / item.quantity);

export interface PlannedRefund {
  body: MRefund['body'];
  /** The API must refuse the request (400). */
  refused: boolean;
  amount: number;
  items: Units;
  shares: Array<{ payment: MPayment; amount: number }>;
}

/** The refund a request makes, or its refusal; `settling`: the workspace's refunds settling at the processor. */
export function planRefund(order: MOrder, request: RefundKind, settling: number): PlannedRefund {
  const rows = refundableRows(order);
  const total = sum(rows.map((r) => r.left));
  const item = order.items[0]!;
  const left = item.quantity - item.refunded;
  let body: MRefund['body'] = {};
  let amount = total;
  let items: Units = [];
  if (request.kind === 'full') {
    items = order.items.filter((i) => i.quantity > i.refunded).map((i) => ({ id: i.id, quantity: i.quantity - i.refunded }));
  } else if (request.kind === 'amount') {
    amount = request.over ? total + 1 : Math.max(1, Math.floor((total * request.permille) / 1000));
    body = { amount };
  } else {
    // Never fewer than one unit: with none left the request asks for one too many.
    const units = Math.max(1, Math.min(request.units, left));
    items = [{ id: item.id, quantity: units }];
    body = { items };
    amount = units > left ? 0 : unitsValue(item, units);
  }
  const refused = total === 0 || amount === 0 || amount > total || settling >= SETTLING_LIMIT;
  const shares: PlannedRefund['shares'] = [];
  let rest = refused ? 0 : amount;
  for (const row of rows) {
    const take = Math.min(row.left, rest);
    if (take > 0) shares.push({ payment: row.payment, amount: take });
    rest -= take;
  }
  return { body, refused, amount, items, shares };
}

/** The workspace's refunds settling at the processor before new ones are refused (src/refunds/service.ts, its default). */
export const SETTLING_LIMIT = 10;

/** Pending refunds the processor answered pending (the refund_fail card): they count against the settling limit. */
export const settlingCount = (model: Model) => model.orders.flatMap((o) => o.refunds).filter((r) => refundStatus(r) === 'pending').length;

/** A part the processor answered, booked as the bookkeeping does: a success returns the fee its payment's refunds now owe. */
export function bookSuccess(order: MOrder, part: MPart) {
  const payment = order.payments.find((p) => p.id === part.paymentId)!;
  const variable = payment.fee0 - Math.min(FEE.fixed, payment.fee0);
  const upTo = (refunded: number) => Math.floor((variable * Math.min(refunded, payment.amount)) / payment.amount);
  const after = succeededOn(order, payment) + part.amount;
  part.fee = Math.max(upTo(after) - feeBackOn(order, payment), 0);
  part.status = 'succeeded';
  if (orderStatus(order) === 'REFUNDED') for (const item of order.items) item.refunded = item.quantity;
}

/** A part failed (at once, or after it succeeded): its money, fee and, unless the order stays refunded, the units come back. */
export function bookFailure(order: MOrder, part: MPart) {
  part.status = 'failed';
  part.fee = 0;
  if (orderStatus(order) === 'REFUNDED') return;
  for (const item of order.items) {
    const kept = sum(order.refunds.filter((r) => refundStatus(r) !== 'failed').flatMap((r) => r.items.filter((u) => u.id === item.id).map((u) => u.quantity)));
    item.refunded = Math.min(item.quantity, kept);
  }
}
