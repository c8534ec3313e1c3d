// What other domains hang on refunds, without refunds importing them: a refund's share of one
// payment succeeded (the invoices issue its credit note). The domains register in their module.ts.
import type { Prisma } from '../generated/prisma/client.js';

/**
 * Runs inside the transaction that books the part as succeeded (./bookkeeping.ts), so what it
 * writes commits with the booking or not at all; `now` is the booking's time. A part is booked
 * succeeded once, but may be again after a failure was reported in between: handlers are idempotent.
 */
export type RefundPartSucceededHandler = (tx: Prisma.TransactionClient, partId: string, now: Date) => Promise<void>;
const partSucceededHandlers: RefundPartSucceededHandler[] = [];

export function onRefundPartSucceeded(handler: RefundPartSucceededHandler): void {
  partSucceededHandlers.push(handler);
}

export async function notifyRefundPartSucceeded(tx: Prisma.TransactionClient, partId: string, now: Date): Promise<void> {
  for (const handler of partSucceededHandlers) await handler(tx, partId, now);
}
