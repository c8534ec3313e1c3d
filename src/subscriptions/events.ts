// The subscription events the contract names: the subscription, its items and the buyer. The real
// events and the test-event samples go through subscriptionEventData.
import { randomUUID } from 'node:crypto';
import type { Subscription } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { itemsValue, sampleItems, subscriptionResource } from '../orders/index.js';

/** The data of every subscription event: the subscription, the items of its order, the buyer. */
export const subscriptionEventData = (subscription: Subscription, items: object[], user: object | null) => ({
  subscription: subscriptionResource(subscription),
  items,
  user,
});

export function sampleSubscription(now: Date, status: Subscription['status'], amount: number, userId: string | null): Subscription {
  return {
    id: randomUUID(), workspaceId: randomUUID(), livemode: false, number: '0000000000SAMPLE', status, userId, currency: 'USD', amount,
    recurringInterval: 'month', recurringIntervalCount: 1, trialInterval: null, trialIntervalCount: null, processor: 'sandbox', methodType: 'card',
    paymentMethodRef: null, currentPeriodStart: now, currentPeriodEnd: null, trialEndsAt: null, cancelAtPeriodEnd: false,
    cancelledAt: status === 'cancelled' ? now : null, endedAt: null, clockOffsetMs: 0n, billingAnchor: now, pausedAt: null, nextRetryAt: null, items: null, credit: 0, discountEndsAt: null, createdAt: now, updatedAt: now,
  };
}

const sample = (status: Subscription['status']) => async ({ now, items, user }: SampleContext) => {
  const buyer = await user();
  const lines = sampleItems(now, items(), randomUUID());
  return subscriptionEventData(sampleSubscription(now, status, itemsValue(lines), typeof buyer.id === 'string' ? buyer.id : null), lines, buyer);
};

export const events = {
  subscription_created: sample('active'),
  subscription_cancelled: sample('cancelled'),
  subscription_updated: sample('past_due'),
} satisfies EventDefinitions;
