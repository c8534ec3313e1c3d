// What payments hang on a subscription's first payment without importing the subscriptions: it
// leaving PENDING starts the subscription or ends it before it started, in the payment's
// transaction (src/payments/transitions.ts). The subscriptions module registers the handler.
import type { Scope } from '../core/scope.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { ItemRow, OrderRow } from '../orders/index.js';
/** What settles a subscription when its first payment leaves PENDING, in the payment's transaction. */
export interface SubscriptionPaymentHandler {
  /** The subscription starts (paid: its first period begins) or ends before it started; true when it started. */
  settle(tx: Prisma.TransactionClient, settled: { subscriptionId: string; orderId: string; paid: boolean; now: Date }): Promise<boolean>;
  /** After the payment's own event: what a subscription that started records (subscription_created). */
  started(tx: Prisma.TransactionClient, scope: Scope, sale: { order: OrderRow & { subscription: NonNullable<OrderRow['subscription']> }; items: ItemRow[] }): Promise<void>;
}
let subscriptionPaymentHandler: SubscriptionPaymentHandler | undefined;

export function handleSubscriptionPayments(handler: SubscriptionPaymentHandler): void {
  subscriptionPaymentHandler = handler;
}

/** Throws when no domain handles them: a subscription's first payment never settles without it. */
export function subscriptionPayments(): SubscriptionPaymentHandler {
  if (!subscriptionPaymentHandler) throw new Error("No handler of subscriptions' first payments: the subscriptions module registers it (src/domains.ts)");
  return subscriptionPaymentHandler;
}
