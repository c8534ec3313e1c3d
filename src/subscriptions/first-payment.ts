// A subscription's first payment settled (the payments' hook, in the payment's transaction): paid,
// the subscription starts with its first period and records subscription_created after the
// payment's own event; unpaid, it ends before it started (incomplete -> incomplete_expired).
import { recordEvent } from '../events/event-service.js';
import { orderItemResource } from '../orders/index.js';
import type { SubscriptionPaymentHandler } from '../payments/index.js';
import { userResource } from '../users/index.js';
import { subscriptionEventData } from './events.js';
import { beginFirstPeriod } from './first-period.js';

export const firstPayments: SubscriptionPaymentHandler = {
  async settle(tx, { subscriptionId, orderId, paid, now }) {
    const subscription = await tx.subscription.findUniqueOrThrow({ where: { id: subscriptionId } });
    if (subscription.status !== 'incomplete') return false;
    if (!paid) {
      await tx.subscription.update({ where: { id: subscriptionId }, data: { status: 'incomplete_expired', endedAt: now } });
      return false;
    }
    // Active (or trialing) and its first period in this one write: no reader sees one without the other.
    await beginFirstPeriod(tx, subscription, orderId, now);
    return true;
  },
  async started(tx, scope, { order, items }) {
    const user = order.user ? userResource(order.user) : null;
    await recordEvent(tx, scope, 'subscription_created', subscriptionEventData(order.subscription, items.map(orderItemResource), user));
  },
};
