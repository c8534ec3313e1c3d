// What one processor charge or refund says against our books: nothing (they agree, or the
// difference is a step still under way), a repair (the processor's word that its webhook would
// have brought: the webhooks' code applies it), or a discrepancy for an operator. Pure: the run
// (./service.ts) reads both sides and acts on the verdicts.
import type { ChargeStatus, PaymentStatus, RefundStatus } from '../generated/prisma/enums.js';
import { ENDED_OTHERWISE, type ProcessorChargeRecord, type ProcessorRefundRecord } from './domain-calls.js';

export const FINDING_KINDS = [
  'unknown_charge',
  'charge_amount',
  'charge_currency',
  'charge_status',
  'unknown_refund',
  'refund_amount',
  'refund_currency',
  'refund_status',
  'charge_missing_at_processor',
  'refund_missing_at_processor',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** A difference: `repair` when the webhooks' code settles it (the processor's word applied), else reported. */
export interface Verdict {
  kind: FindingKind;
  repair: boolean;
  /** Why, in words, for the log line and the CLI's table. */
  note: string;
}

/** Our side of one processor charge: the charge row of that id (null when none was recorded) and its payment. */
export interface OurCharge {
  paymentId: string;
  workspaceId: string;
  livemode: boolean;
  paymentStatus: PaymentStatus;
  /** The charge the payment was paid by (or its latest attempt). */
  paymentChargeId: string | null;
  chargeStatus: ChargeStatus | null;
  amount: number;
  currency: string;
  /** Its money went back already as an expired_payment refund (the stranded-charge path). */
  givenBack: boolean;
}

/** Our side of one processor refund: the refund part that names it. */
export interface OurRefundPart {
  partId: string;
  refundId: string;
  paymentId: string;
  workspaceId: string;
  status: RefundStatus;
  amount: number;
  currency: string;
}

const PAID: readonly PaymentStatus[] = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'];
/** Our charge still waits for the processor's word. */
const UNANSWERED: readonly (ChargeStatus | null)[] = [null, 'pending', 'requires_attention'];

export function judgeCharge(theirs: ProcessorChargeRecord, ours: OurCharge | null): Verdict | null {
  if (!ours) return theirs.status === 'succeeded' ? { kind: 'unknown_charge', repair: false, note: 'the processor took money for no payment of ours' } : null;
  if (theirs.amount !== ours.amount) return { kind: 'charge_amount', repair: false, note: `the processor charged ${theirs.amount}, we recorded ${ours.amount}` };
  if (theirs.currency.toLowerCase() !== ours.currency.toLowerCase()) return { kind: 'charge_currency', repair: false, note: `the processor charged ${theirs.currency}, we recorded ${ours.currency}` };
  // Not final at the processor: its word comes later (or never, for a charge of an ended payment that moved no money).
  if (theirs.status === 'pending') return null;
  const paidByIt = PAID.includes(ours.paymentStatus) && ours.paymentChargeId === theirs.chargeId;
  if (theirs.status === 'succeeded') {
    if (paidByIt) return ours.chargeStatus === 'succeeded' ? null : { kind: 'charge_status', repair: true, note: 'the payment is paid by this charge, its row is not succeeded' };
    if (ours.givenBack) return null;
    if (PAID.includes(ours.paymentStatus)) return { kind: 'charge_status', repair: false, note: 'a second success for a payment paid by another charge: money kept twice' };
    // Waiting (the workflow takes it), a renewal's dunning (its router takes it), or ended: the stranded-charge refund gives it back.
    const ended = ENDED_OTHERWISE.includes(ours.paymentStatus);
    return { kind: 'charge_status', repair: true, note: ended ? `a success we never heard of for a payment ${ours.paymentStatus}: the money goes back` : `a success we never heard of for a payment ${ours.paymentStatus}` };
  }
  if (ours.chargeStatus === 'succeeded' || paidByIt) return { kind: 'charge_status', repair: false, note: `the processor says ${theirs.status}, we booked the money` };
  if (UNANSWERED.includes(ours.chargeStatus) && ours.paymentStatus === 'PENDING') return { kind: 'charge_status', repair: true, note: `the processor says ${theirs.status}, the payment still waits` };
  return null;
}

/** `waiting`: a part of the same charge still waits for the processor's answer (the refund's activity records it). */
export function judgeRefund(theirs: ProcessorRefundRecord, ours: OurRefundPart | null, context: { chargeIsOurs: boolean; waiting: boolean; metadataNamesPart: boolean }): Verdict | null {
  if (!ours) {
    if (context.metadataNamesPart) return { kind: 'refund_status', repair: true, note: `the processor's ${theirs.status} refund names our refund, which never heard its answer` };
    // Under way: the refund's activity records the processor's answer in a moment.
    if (context.waiting || !context.chargeIsOurs) return null;
    return theirs.status === 'failed' || theirs.status === 'canceled' ? null : { kind: 'unknown_refund', repair: false, note: 'a refund of our charge that none of our refunds made (the dashboard?)' };
  }
  if (theirs.amount !== ours.amount) return { kind: 'refund_amount', repair: false, note: `the processor refunded ${theirs.amount}, we recorded ${ours.amount}` };
  if (theirs.currency.toLowerCase() !== ours.currency.toLowerCase()) return { kind: 'refund_currency', repair: false, note: `the processor refunded in ${theirs.currency}, we recorded ${ours.currency}` };
  const open = ours.status === 'pending' || ours.status === 'requires_attention';
  if (theirs.status === 'succeeded') {
    if (ours.status === 'succeeded') return null;
    return open ? { kind: 'refund_status', repair: true, note: 'the processor settled the refund' } : { kind: 'refund_status', repair: false, note: `the processor refunded, we booked ${ours.status}` };
  }
  if (theirs.status === 'failed' || theirs.status === 'canceled') {
    if (ours.status === 'failed' || ours.status === 'canceled') return null;
    return { kind: 'refund_status', repair: true, note: `the processor ${theirs.status === 'failed' ? 'failed' : 'cancelled'} the refund: the money is back with the merchant` };
  }
  return open ? null : { kind: 'refund_status', repair: false, note: `the processor still has the refund pending, we booked ${ours.status}` };
}
