// Counted slots (the product limit, the webhook limit) and scope-wide uniqueness (discount codes)
// are checked inside a transaction that first takes a PostgreSQL advisory lock for the scope:
// two concurrent requests then cannot both see the last free slot or the same free code.
import type { Prisma } from '../generated/prisma/client.js';
import type { DomainError } from './errors.js';
import type { Scope } from './scope.js';

/** Serialises the rest of the transaction with every other one locking `name` in this scope. */
export async function lockScope(tx: Prisma.TransactionClient, scope: Scope, name: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`${name}:${scope.workspaceId}:${scope.livemode}`}))`;
}

export interface SlotRule {
  /** The lock's name, e.g. `products`. */
  name: string;
  limit: number;
  /** How many slots are taken now (runs under the lock). */
  taken: () => Promise<number>;
  /** The error when none is free. */
  full: () => DomainError;
}

/** Takes one slot of the scope for this transaction, or throws the rule's error when none is free. */
export async function reserveSlot(tx: Prisma.TransactionClient, scope: Scope, rule: SlotRule): Promise<void> {
  await lockScope(tx, scope, rule.name);
  if ((await rule.taken()) >= rule.limit) throw rule.full();
}
