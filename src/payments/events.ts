// The payment events: payment_success, payment_failed, payment_cancelled, payment_expired (ours),
// payment_requires_attention (ours: the processor never answered a charge within its idempotency
// key's window, recorded by the subscriptions) and payment_refunded (recorded by refunds). Their data carries the payment, its order, the
// order's items (each with an id), the buyer as `user` and its deprecated twin `customer` (equal).
// The test-event samples go through paymentEventData too.
import type { OrderItem, PaymentStatus } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { orderEventData, sampleOrderEvent, type OrderRow, paymentResource, type PaymentRow } from '../orders/index.js';

/** The data of every payment event. */
export function paymentEventData(payment: PaymentRow, order: OrderRow, items: OrderItem[]) {
  const { order: orderData, items: itemData, user } = orderEventData(order, items);
  return { payment: paymentResource(payment), order: orderData, items: itemData, user, customer: user };
}

const sample = (orderStatus: OrderRow['status'], status: PaymentStatus) => async (context: SampleContext) => {
  // The sample order's lastPayment is built by paymentResource, as the real payment is.
  const { order, items, user } = await sampleOrderEvent(context, orderStatus, status);
  return { payment: order.lastPayment!, order, items, user, customer: user };
};

export const events = {
  payment_success: sample('PAID', 'PAID'),
  payment_failed: sample('FAILED', 'FAILED'),
  payment_cancelled: sample('CANCELLED', 'CANCELLED'),
  payment_expired: sample('EXPIRED', 'EXPIRED'),
  payment_requires_attention: sample('PAID', 'PENDING'),
  payment_refunded: sample('REFUNDED', 'REFUNDED'),
} satisfies EventDefinitions;
