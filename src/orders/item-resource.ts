// An order's line as the API and the events show it. Its own module: the order, payment and
// subscription events all carry items, and none of them may import another's events in a cycle.
import { randomUUID } from 'node:crypto';
import type { OrderItem } from '../generated/prisma/client.js';
import { unixSeconds } from '../core/time.js';
import type { DeliveredKey } from './hooks.js';

/** An item row, with its delivered keys when it was loaded for the order's events or details. */
export type ItemRow = OrderItem & { deliveredKeys?: DeliveredKey[] };

/**
 * The item (`items[]` of the order events, cart items of the order details): its `id` is what the
 * download URL takes; `licenseKeys` are its sold keys once the order is paid (loadOrderForEvent).
 */
export function orderItemResource(item: ItemRow) {
  const subtotal = item.unitPrice * item.quantity;
  return {
    object: 'order_item',
    id: item.id,
    orderId: item.orderId,
    productId: item.productId,
    offerId: item.offerId,
    variantId: item.variantId,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    subtotal,
    discount: item.discount,
    tax: item.tax,
    taxInclusive: item.taxInclusive,
    // With a tax-inclusive price the tax is within the subtotal.
    total: subtotal - item.discount + (item.taxInclusive ? 0 : item.tax),
    customFields: item.customFields,
    createdAt: unixSeconds(item.createdAt),
    licenseKeys: item.deliveredKeys ?? [],
  };
}

export type OrderItemResource = ReturnType<typeof orderItemResource>;

/**
 * A test event's items: each made-up line goes through the real builder, then the caller's hint
 * (sendTestEvent's `items`, each with an `id`) is laid over it, so the sample has the real shape.
 */
export function sampleItems(now: Date, hints: Array<Record<string, unknown> & { id: string }>, orderId: string) {
  const lines = hints.length ? hints : [{ id: randomUUID() }];
  return lines.map((hint) => {
    const quantity = typeof hint.quantity === 'number' ? hint.quantity : 1;
    const unitPrice = typeof hint.unitPrice === 'number' ? hint.unitPrice : 1999;
    const row: OrderItem = {
      id: hint.id, orderId, position: 0, productId: randomUUID(), offerId: randomUUID(), variantId: null, quantity, unitPrice, discount: 0, tax: 0,
      taxInclusive: false, refundedQuantity: 0, customFields: null, createdAt: now,
    };
    return { ...orderItemResource(row), ...hint };
  });
}

/** What the sample items add up to. */
export const itemsValue = (items: OrderItemResource[]) => items.reduce((sum, item) => sum + (Number.isInteger(item.total) ? item.total : 0), 0);
