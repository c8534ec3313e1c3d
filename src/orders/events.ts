// The order events (order_created, order_cancelled, order_updated). Their data is the order as
// the API returns it, its items (each with the `id` the download URL takes) and the buyer; the
// test-event samples go through the same builders.
import { randomUUID } from 'node:crypto';
import type { Order, Prisma, Subscription, User } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds, unixSecondsOrNull } from '../core/time.js';
import { currencyDecimals } from '../reference/currencies.js';
import { paymentResource, paymentRowInclude, type PaymentRow } from './payment-resource.js';
import { subscriptionResource } from './subscription-resource.js';
import { userResource } from '../users/index.js';
import { itemsValue, orderItemResource, sampleItems, type ItemRow } from './item-resource.js';

/** What an order row needs to become the resource: its buyer, last payment and subscription. */
export const orderRowInclude = {
  user: true,
  lastPayment: { include: paymentRowInclude },
  subscription: true,
} satisfies Prisma.OrderInclude;

export type OrderRow = Order & { user: User | null; lastPayment: PaymentRow | null; subscription: Subscription | null };

/** The order as the API returns it (the Order type's fields). */
export function orderResource(o: OrderRow) {
  return {
    object: 'order',
    id: o.id,
    number: o.number,
    orderNumber: o.number,
    status: o.status,
    type: o.type,
    value: o.value,
    tax: o.tax,
    fee: o.fee,
    discountId: o.discountId,
    discountAmount: o.discountAmount,
    totalItems: o.totalItems,
    country: o.country,
    billingState: o.billingState,
    billingPostalCode: o.billingPostalCode,
    taxInclusive: o.taxInclusive,
    taxId: o.taxId,
    taxReason: o.taxReason,
    currency: o.currency,
    currencyDecimals: currencyDecimals(o.currency) ?? null,
    createdAt: unixSeconds(o.createdAt),
    updatedAt: unixSeconds(o.updatedAt),
    paidAt: unixSecondsOrNull(o.paidAt),
    userId: o.userId,
    user: o.user ? userResource(o.user) : null,
    lastPaymentId: o.lastPaymentId,
    lastPaymentNumber: o.lastPayment?.number ?? null,
    lastPayment: o.lastPayment ? paymentResource(o.lastPayment) : null,
    subscriptionId: o.subscription?.number ?? null,
    subscription: o.subscription ? subscriptionResource(o.subscription) : null,
    checkoutId: o.checkoutId,
    disputed: o.disputed,
  };
}

/** The data of every order event. */
export const orderEventData = (order: OrderRow, items: ItemRow[]) => ({
  order: orderResource(order),
  items: items.map(orderItemResource),
  user: order.user ? userResource(order.user) : null,
});

/** A made-up one-time order of `value` with its first payment, for test events. */
export function sampleOrder(now: Date, value: number, status: Order['status'], paymentStatus: PaymentRow['status'], id = randomUUID()): OrderRow {
  const paymentId = randomUUID();
  const number = '0000000000SAMPLE';
  const scope = { workspaceId: randomUUID(), livemode: false };
  const fee = 0;
  return {
    id, ...scope, number, type: value === 0 ? 'FREE' : 'ONE_TIME', status, userId: null, currency: 'USD', value, tax: 0, fee, discountId: null,
    discountAmount: 0, totalItems: 1, country: 'US', billingState: null, billingPostalCode: null, taxInclusive: false, taxId: null, taxReason: null, checkoutId: randomUUID(), subscriptionId: null, lastPaymentId: paymentId, disputed: false,
    itemCustomFields: [], paidAt: status === 'PAID' ? now : null, cancelledAt: status === 'CANCELLED' ? now : null, reservedAt: null, releasedAt: null, createdAt: now, updatedAt: now,
    user: null,
    subscription: null,
    lastPayment: {
      id: paymentId, ...scope, orderId: id, sequence: 1, number, status: paymentStatus, amount: value, tax: 0, fee, feeBasisPoints: null, feeFixed: null, currency: 'USD',
      processor: 'sandbox', methodType: 'card', processorChargeId: null, failureCode: paymentStatus === 'FAILED' ? 'card_declined' : null,
      failureMessage: paymentStatus === 'FAILED' ? 'The card was declined' : null, refundedAmount: 0, disputed: false, planChange: false,
      cancelRequestedAt: null, expiresAt: null, paidAt: paymentStatus === 'PAID' ? now : null, userId: null, subscriptionId: null, subscriptionPeriod: null,
      createdAt: now, updatedAt: now, order: { number }, subscription: null,
    },
  };
}

/** A sample event's order, items and buyer, all through the real builders. */
export async function sampleOrderEvent({ now, items, user }: SampleContext, status: Order['status'], paymentStatus: PaymentRow['status']) {
  const buyer = await user();
  const orderId = randomUUID();
  const lines = sampleItems(now, items(), orderId);
  const order = sampleOrder(now, itemsValue(lines), status, paymentStatus, orderId);
  const userId = typeof buyer.id === 'string' ? buyer.id : null;
  return { order: { ...orderResource(order), userId, user: buyer }, items: lines, user: buyer };
}

export const events = {
  order_created: (context) => sampleOrderEvent(context, 'PENDING', 'PENDING'),
  order_cancelled: (context) => sampleOrderEvent(context, 'CANCELLED', 'CANCELLED'),
  order_updated: (context) => sampleOrderEvent(context, 'PAID', 'PAID'),
} satisfies EventDefinitions;
