// What other domains hang on orders without orders importing them: an order was cancelled (the
// payments signal its payment workflows, the subscriptions cancel the subscription it started),
// an order's reservations went back (delivery returns its license keys to stock), and what a paid
// item delivered (delivery's keys, shown in the item's resource). Domains register in their module.ts.
import type { Scope } from '../core/scope.js';
import type { LicenseKey, OrderItem, OrderStatus, Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { TemporalConnection } from '../temporal/client.js';

export type OrderCancelledHandler = (deps: { prisma: PrismaClient; temporal: TemporalConnection }, scope: Scope, orderId: string) => Promise<void>;
const orderCancelledHandlers: OrderCancelledHandler[] = [];

export function onOrderCancelled(handler: OrderCancelledHandler): void {
  orderCancelledHandlers.push(handler);
}

/** After the order's cancel is committed. */
export async function notifyOrderCancelled(deps: { prisma: PrismaClient; temporal: TemporalConnection }, scope: Scope, orderId: string): Promise<void> {
  for (const handler of orderCancelledHandlers) await handler(deps, scope, orderId);
}

/** In the transaction that gives back what the checkout reserved for the order. */
export type ReservationsReleasedHandler = (tx: Prisma.TransactionClient, orderId: string) => Promise<void>;
const reservationsReleasedHandlers: ReservationsReleasedHandler[] = [];

export function onReservationsReleased(handler: ReservationsReleasedHandler): void {
  reservationsReleasedHandlers.push(handler);
}

export async function notifyReservationsReleased(tx: Prisma.TransactionClient, orderId: string): Promise<void> {
  for (const handler of reservationsReleasedHandlers) await handler(tx, orderId);
}

/** A sold license key as the item's resource shows it (`licenseKeys` of an order's items). */
export interface DeliveredKey {
  object: 'license_key';
  id: string;
  key: string;
  /** Which unit of the item (0 first). */
  unit: number;
  status: 'active' | 'revoked';
}

/** The keys an item delivered, from its order's state and its key rows. */
export type DeliveredKeysReader = (
  order: { status: OrderStatus; paidAt: Date | null },
  item: Pick<OrderItem, 'quantity' | 'refundedQuantity'> & { licenseKeys: Pick<LicenseKey, 'id' | 'productId' | 'sealed' | 'unit'>[] },
) => DeliveredKey[];
let deliveredKeysReader: DeliveredKeysReader | undefined;

export function provideDeliveredKeys(reader: DeliveredKeysReader): void {
  deliveredKeysReader = reader;
}

/** Throws when no domain provided the reader: an item's keys are never silently left out. */
export const deliveredKeys: DeliveredKeysReader = (order, item) => {
  if (!deliveredKeysReader) throw new Error("No reader of an item's delivered keys: the delivery module provides it (src/domains.ts)");
  return deliveredKeysReader(order, item);
};
