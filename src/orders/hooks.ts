// What other domains hang on orders without orders importing them: an order was cancelled (the
// subscriptions cancel the subscription it started). Domains register in their module.ts.
import type { Scope } from '../core/scope.js';
import type { PrismaClient } from '../generated/prisma/client.js';
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
