// What other domains keep of an order when one of its renewals (a payment after the order's
// first) becomes PAID, without payments importing them: steps run in the transaction that marks it
// (src/payments/transitions.ts), so that it agrees with the new payment the moment it commits. The
// domains register in their module.ts.
import type { Prisma } from '../generated/prisma/client.js';

export type RenewalPaidStep = (tx: Prisma.TransactionClient, orderId: string) => Promise<void>;
const renewalPaidSteps: RenewalPaidStep[] = [];

export function onRenewalPaid(step: RenewalPaidStep): void {
  renewalPaidSteps.push(step);
}

export async function runRenewalPaidSteps(tx: Prisma.TransactionClient, orderId: string): Promise<void> {
  for (const step of renewalPaidSteps) await step(tx, orderId);
}
