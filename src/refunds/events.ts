// The refunds' own events: refund_failed, when the processor fails a refund (at once, or later
// after accepting it), and refund_requires_attention, when the processor never answered within
// its idempotency key's window (an operator checks the processor: the money may or may not have
// moved). Their data is a payment event's (payment, order, items, user and customer) plus the
// refund; payment_refunded (the payments domain's type) carries the refund too.
import type { EventDefinitions } from '../events/event-types.js';
import { paymentEvents } from '../payments/index.js';

export const events = {
  refund_failed: paymentEvents.payment_refunded,
  refund_requires_attention: paymentEvents.payment_refunded,
} satisfies EventDefinitions;
