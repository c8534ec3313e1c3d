// The subscription as the API and the events show it: orders, payments and the subscription
// events all carry it. With the orders, which the subscriptions depend on (docs/domain-graph.md).
import type { Subscription } from '../generated/prisma/client.js';
import { unixSeconds, unixSecondsOrNull } from '../core/time.js';

/**
 * The subscription as the API shows it (an order's `subscription`, the subscriptions list and
 * details): its id is its number, the number of the order that started it, as the contract
 * identifies subscriptions.
 */
export function subscriptionResource(s: Subscription) {
  return {
    object: 'subscription',
    id: s.number,
    status: s.status,
    currency: s.currency,
    amount: s.amount,
    recurringInterval: s.recurringInterval,
    recurringIntervalCount: s.recurringIntervalCount,
    trialInterval: s.trialInterval,
    trialIntervalCount: s.trialIntervalCount,
    userId: s.userId,
    currentPeriodStart: unixSecondsOrNull(s.currentPeriodStart),
    currentPeriodEnd: unixSecondsOrNull(s.currentPeriodEnd),
    trialEndsAt: unixSecondsOrNull(s.trialEndsAt),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    cancelledAt: unixSecondsOrNull(s.cancelledAt),
    createdAt: unixSeconds(s.createdAt),
  };
}
