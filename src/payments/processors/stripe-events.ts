import type Stripe from 'stripe';
import type { DisputeInfo, DisputeStatus, ProcessorEvent, ProcessorEventBase } from './processor.js';

// Stripe's webhook events, normalized. Our charge id is the PaymentIntent's id (createCharge
// creates one), so events about charges, refunds and disputes are keyed by their payment_intent.

const idOf = (value: string | { id: string } | null): string | null => (value === null ? null : typeof value === 'string' ? value : value.id);

/** Stripe's statuses on our four: inquiries (warning_*) and appeals count as the dispute they are part of. */
const DISPUTE_STATUSES: Readonly<Record<string, DisputeStatus>> = {
  warning_needs_response: 'needs_response',
  needs_response: 'needs_response',
  appeal_needs_response: 'needs_response',
  warning_under_review: 'under_review',
  under_review: 'under_review',
  appeal_under_review: 'under_review',
  // An inquiry closed without a chargeback, or a dispute prevented: the money stayed.
  warning_closed: 'won',
  prevented: 'won',
  won: 'won',
  lost: 'lost',
};

export function disputeInfo(dispute: Stripe.Dispute): DisputeInfo {
  return { disputeId: dispute.id, status: DISPUTE_STATUSES[dispute.status] ?? 'under_review', reason: dispute.reason, amount: dispute.amount };
}

export function failureOf(error: Stripe.PaymentIntent.LastPaymentError | null): { failureCode: string; failureMessage: string } {
  return { failureCode: error?.decline_code ?? error?.code ?? 'payment_failed', failureMessage: error?.message ?? 'The payment failed.' };
}

/**
 * A refund's state (refund.created, refund.updated, refund.failed; on current API versions
 * charge.refunded lists no refunds): succeeded books it, failed and canceled give the money back,
 * pending and requires_action say nothing new. Our refund's id and payment's come from the
 * metadata we set on it; a refund made in the dashboard has none.
 */
function refundEvent(type: string, refund: Stripe.Refund, base: (chargeId: string | null, metadata: Stripe.Metadata | null) => ProcessorEventBase | null): ProcessorEvent[] {
  const common = base(idOf(refund.payment_intent), refund.metadata);
  if (!common) return [];
  const ourRefundId = refund.metadata?.refundId ?? null;
  if (refund.status === 'succeeded') return [{ ...common, type: 'charge.refunded', refundId: refund.id, amountRefunded: refund.amount, fullyRefunded: false, ourRefundId }];
  if (type === 'refund.failed' || refund.status === 'failed' || refund.status === 'canceled') {
    return [{ ...common, type: 'refund.failed', refundId: refund.id, amount: refund.amount, failureCode: refund.failure_reason ?? (refund.status === 'canceled' ? 'canceled' : 'refund_failed'), ourRefundId }];
  }
  return [];
}

/** The events the consumer acts on; any other type is verified and ignored ([]). */
export function normalizeStripeEvent(event: Stripe.Event): ProcessorEvent[] {
  const base = (chargeId: string | null, metadata: Stripe.Metadata | null): ProcessorEventBase | null =>
    chargeId === null
      ? null
      : { id: event.id, processor: 'stripe', chargeId, paymentId: metadata?.paymentId ?? null, livemode: event.livemode, createdAt: event.created * 1000 };
  const one = (common: ProcessorEventBase | null, fields: Record<string, unknown> & { type: ProcessorEvent['type'] }) =>
    common ? [{ ...common, ...fields } as ProcessorEvent] : [];

  switch (event.type) {
    case 'payment_intent.succeeded': {
      const intent = event.data.object;
      return one(base(intent.id, intent.metadata), { type: 'charge.succeeded', amount: intent.amount_received || intent.amount, currency: intent.currency });
    }
    case 'payment_intent.processing':
      return one(base(event.data.object.id, event.data.object.metadata), { type: 'charge.pending' });
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      return one(base(intent.id, intent.metadata), { type: 'charge.failed', ...failureOf(intent.last_payment_error) });
    }
    case 'payment_intent.canceled':
      return one(base(event.data.object.id, event.data.object.metadata), { type: 'charge.cancelled' });
    case 'charge.refunded': {
      const charge = event.data.object;
      // Since API version 2022-11-15 a charge no longer lists its refunds: the totals say it all.
      const refunds = charge.refunds?.data ?? [];
      return one(base(idOf(charge.payment_intent), charge.metadata), {
        type: 'charge.refunded',
        refundId: refunds.length > 0 ? refunds[0]!.id : null,
        amountRefunded: charge.amount_refunded,
        fullyRefunded: charge.refunded,
      });
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      return refundEvent(event.type, event.data.object, base);
    case 'charge.dispute.created':
      return one(base(idOf(event.data.object.payment_intent), null), { type: 'charge.disputed', dispute: disputeInfo(event.data.object) });
    case 'charge.dispute.closed':
      return one(base(idOf(event.data.object.payment_intent), null), { type: 'dispute.closed', dispute: disputeInfo(event.data.object) });
    default:
      return [];
  }
}
