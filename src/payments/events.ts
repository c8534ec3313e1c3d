// The payment events the contract names. Their data carries the payment, the order items (each
// with an id), the buyer as `user` and its deprecated twin `customer` (equal).
import { randomUUID } from 'node:crypto';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';

const sample = (status: string) => async ({ now, items, user }: SampleContext) => {
  const buyer = await user();
  const lines = items();
  const amount = lines.reduce((sum, item) => sum + (typeof item.unitPrice === 'number' ? item.unitPrice : 0) * (typeof item.quantity === 'number' ? item.quantity : 1), 0);
  return {
    payment: { object: 'payment', id: randomUUID(), number: '100001', status, amount, currency: 'USD', orderId: randomUUID(), createdAt: unixSeconds(now) },
    items: lines,
    user: buyer,
    customer: buyer,
  };
};

export const events = {
  payment_success: sample('PAID'),
  payment_refunded: sample('REFUNDED'),
  payment_failed: sample('FAILED'),
} satisfies EventDefinitions;
