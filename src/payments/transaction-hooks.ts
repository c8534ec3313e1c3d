// What other domains hang on a payment becoming PAID inside the very transaction that makes it so
// (the invoices issue its invoice), whichever path does: a checkout, a webhook, a renewal, a plan
// change, a one-off charge. Kept apart from ./payment-hooks.ts, whose handlers run after the
// commit, because the transitions call this one (and payment-hooks.ts knows the charge outcomes).
import type { Prisma } from '../generated/prisma/client.js';

/** Once per payment (the transition happens once); an error rolls the payment back with it. */
export type PaymentPaidInTransactionHandler = (tx: Prisma.TransactionClient, paymentId: string) => Promise<void>;
const handlers: PaymentPaidInTransactionHandler[] = [];

export function onPaymentPaidInTransaction(handler: PaymentPaidInTransactionHandler): void {
  handlers.push(handler);
}

export async function notifyPaymentPaidInTransaction(tx: Prisma.TransactionClient, paymentId: string): Promise<void> {
  for (const handler of handlers) await handler(tx, paymentId);
}
