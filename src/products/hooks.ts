// What other domains hang on products without products importing them: a product was archived
// (the offers archive its offers with it). Domains register in their module.ts.
import type { Prisma } from '../generated/prisma/client.js';
import type { Scope } from '../core/scope.js';

/** Runs in the archive's transaction, after product_archived is recorded, with the archive's time. */
export type ProductArchivedHandler = (tx: Prisma.TransactionClient, scope: Scope, productId: string, archivedAt: Date) => Promise<void>;
const productArchivedHandlers: ProductArchivedHandler[] = [];

export function onProductArchived(handler: ProductArchivedHandler): void {
  productArchivedHandlers.push(handler);
}

export async function notifyProductArchived(tx: Prisma.TransactionClient, scope: Scope, productId: string, archivedAt: Date): Promise<void> {
  for (const handler of productArchivedHandlers) await handler(tx, scope, productId, archivedAt);
}
