// The subscription events the contract names: the subscription, its items and the buyer.
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';

const sample = (status: string) => async ({ now, items, user }: SampleContext) => ({
  subscription: { object: 'subscription', id: '100001', status, currency: 'USD', interval: 'month', createdAt: unixSeconds(now) },
  items: items(),
  user: await user(),
});

export const events = {
  subscription_created: sample('active'),
  subscription_cancelled: sample('cancelled'),
  subscription_updated: sample('past_due'),
} satisfies EventDefinitions;
