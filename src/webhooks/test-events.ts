import { randomUUID } from 'node:crypto';

import type { PrismaClient } from '../generated/prisma/client.js';
import { badRequest } from '../errors.js';
import type { EventType } from '../events/event-types.js';
import { unixSeconds } from '../graphql/builder.js';
import { inScope, type Scope } from '../graphql/context.js';
import { userResource } from '../users/service.js';

// Sample `data` of the synthetic events sendTestEvent fires: shaped like the real payload of each
// type (resource objects with `object` and `id`), with made-up values. Payment events carry `user`
// and its deprecated twin `customer`; payment and subscription events carry `items` with ids.

export interface TestEventHints {
  items?: unknown;
  userId?: string | null;
}

const ITEMS_MAX = 100;

type Item = Record<string, unknown> & { id: string };

/** The items hint as order items, each with an id (kept when the hint gives a string one). */
function itemsFrom(hint: unknown, now: number): Item[] {
  const sample = (overrides: Record<string, unknown> = {}): Item => {
    const id = typeof overrides.id === 'string' && overrides.id !== '' ? overrides.id : randomUUID();
    return { object: 'order_item', productId: randomUUID(), offerId: randomUUID(), quantity: 1, unitPrice: 1999, createdAt: now, ...overrides, id };
  };
  if (hint === undefined || hint === null) return [sample()];
  if (!Array.isArray(hint) || hint.length > ITEMS_MAX || hint.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
    throw badRequest(`items must be an array of at most ${ITEMS_MAX} objects`);
  }
  return (hint as Record<string, unknown>[]).map((item) => sample(item));
}

/** The workspace's own user when the hint names one, otherwise a sample user (with the hinted id). */
async function userFrom(prisma: PrismaClient, scope: Scope, userId: string | null | undefined, now: number) {
  const found = userId ? await prisma.user.findFirst({ where: { id: userId, ...inScope(scope) } }) : null;
  if (found) return userResource(found) as Record<string, unknown>;
  return { object: 'user', id: userId ?? randomUUID(), username: 'sample-buyer', email: 'buyer@example.com', details: null, internalId: null, billingDetails: null, createdAt: now };
}

interface Sample {
  now: number;
  items: () => Item[];
  user: () => Promise<Record<string, unknown>>;
}

const payment = (status: string) => async ({ now, items, user }: Sample) => {
  const buyer = await user();
  const lines = items();
  const amount = lines.reduce((sum, item) => sum + (typeof item.unitPrice === 'number' ? item.unitPrice : 0) * (typeof item.quantity === 'number' ? item.quantity : 1), 0);
  return {
    payment: { object: 'payment', id: randomUUID(), number: '100001', status, amount, currency: 'USD', orderId: randomUUID(), createdAt: now },
    items: lines,
    user: buyer,
    customer: buyer,
  };
};

const subscription = (status: string) => async ({ now, items, user }: Sample) => ({
  subscription: { object: 'subscription', id: '100001', status, currency: 'USD', interval: 'month', createdAt: now },
  items: items(),
  user: await user(),
});

const product = ({ now }: Sample) => ({
  product: {
    object: 'product',
    id: randomUUID(),
    type: 'DigitalDownload',
    internalId: null,
    name: 'Sample product',
    description: 'A product made up for a test event',
    developer: null,
    publisher: null,
    pegiRating: 'NONE',
    releaseDate: null,
    systems: [],
    genres: [],
    status: 'ACTIVE',
    customFields: null,
    createdAt: now,
  },
});

const offer = ({ now }: Sample) => ({
  offer: { object: 'offer', id: randomUUID(), productId: randomUUID(), name: 'Sample offer', price: 1999, currency: 'USD', status: 'ACTIVE', soldItems: 0, createdAt: now },
});

const discount = ({ now }: Sample) => ({
  discount: { object: 'discount', id: randomUUID(), type: 'code', name: 'Sample discount', amount: '10', amountType: 'percentage', discountCode: 'SAMPLE10', status: 'active', currency: 'USD', createdAt: now },
});

const SAMPLES: Record<EventType, (sample: Sample) => object | Promise<object>> = {
  payment_success: payment('PAID'),
  payment_refunded: payment('REFUNDED'),
  payment_failed: payment('FAILED'),
  subscription_created: subscription('active'),
  subscription_cancelled: subscription('cancelled'),
  subscription_updated: subscription('past_due'),
  product_created: product,
  product_updated: product,
  product_archived: product,
  offer_created: offer,
  offer_updated: offer,
  offer_archived: offer,
  discount_created: discount,
  discount_updated: discount,
  discount_archived: discount,
  user_created: async ({ user }) => ({ user: await user() }),
  user_archived: async ({ user }) => ({ user: await user() }),
  checkout_element_created: ({ now }) => ({
    checkoutElement: { object: 'checkoutElement', id: randomUUID(), name: 'Sample checkout', status: 'ACTIVE', subscriptionOffer: false, offers: [{ object: 'offer', id: randomUUID(), internalId: null }], createdAt: now },
  }),
};

/** The `data` of a synthetic event of this type; 400 when the items hint is malformed. */
export async function testEventPayload(prisma: PrismaClient, scope: Scope, type: EventType, hints: TestEventHints): Promise<object> {
  const now = unixSeconds(new Date());
  // Validated whether or not this type uses items, so a malformed hint is always reported.
  const items = itemsFrom(hints.items, now);
  return SAMPLES[type]({ now, items: () => items, user: () => userFrom(prisma, scope, hints.userId, now) });
}
