// Idempotency-Key: one row per (target, key), inserted in the transaction that makes what the
// request makes, so a concurrent duplicate waits on the unique index and then replays the first
// answer. The target names what the key was sent to (`checkout/<elementId>`,
// `subscription/<id>` for a plan change, `subscriptions/create/<workspace>/<mode>`): the same key
// sent to two targets is two keys. The request is kept as a hash of its canonical JSON.
import { createHash } from 'node:crypto';

import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { ValidationFailed } from './errors.js';
import type { Scope } from './scope.js';
import { uuidv7 } from './uuid.js';

type Tx = Prisma.TransactionClient;

/** Idempotency keys are kept this long; after that the same key starts a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** The order and first payment a request placed. */
export interface Placed {
  orderId: string;
  paymentId: string;
}

/** 400 unless absent or 1 to 255 printable ASCII characters. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) throw new ValidationFailed('Idempotency-Key must be 1 to 255 printable ASCII characters');
}

/** Canonical JSON (sorted keys) for the request hash; refunds' fingerprints use it too. */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** SHA-256 of a request body, canonically. */
export const bodyHash = (body: unknown) => createHash('sha256').update(canonical(body)).digest('hex');

/** A concurrent request with the same Idempotency-Key committed first: replay its answer. */
export class KeyTaken extends Error {}

/** The key's row (same body) or a 400 (another body); null when the key is unused or expired. */
export async function earlierRequest(prisma: PrismaClient, target: string, key: string, hash: string) {
  const row = await prisma.idempotencyKey.findUnique({ where: { target_key: { target, key } } });
  if (!row || row.createdAt.getTime() < Date.now() - IDEMPOTENCY_WINDOW_MS) return null;
  if (row.requestHash !== hash) throw new ValidationFailed('Idempotency-Key was already used with a different request body');
  return row;
}

/** The key's earlier order (same body) or a 400 (another body); null when the key is unused or expired. */
export async function earlierOrder(prisma: PrismaClient, target: string, key: string, hash: string): Promise<Placed | null> {
  const row = await earlierRequest(prisma, target, key, hash);
  return row?.orderId && row.paymentId ? { orderId: row.orderId, paymentId: row.paymentId } : null;
}

/**
 * Takes the key for this transaction; a concurrent holder makes this wait until it commits (then
 * KeyTaken) or rolls back. `placed`: the ids of the order and payment the transaction is about to
 * write, recorded with the key (no update of the key's row after them).
 */
export async function claimKey(tx: Tx, scope: Scope, target: string, key: string, hash: string, placed: Placed | null = null): Promise<string> {
  // One statement, in SQL of our own (Prisma compiles a createMany anew at every call): a new key,
  // or an expired one (older than the window) taken over as if new; a live one is not returned.
  const now = new Date();
  const [claimed] = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO "IdempotencyKey" (id, "workspaceId", livemode, target, key, "requestHash", "orderId", "paymentId", "createdAt")
    VALUES (${uuidv7(now.getTime())}::uuid, ${scope.workspaceId}::uuid, ${scope.livemode}, ${target}, ${key}, ${hash}, ${placed?.orderId ?? null}::uuid, ${placed?.paymentId ?? null}::uuid, ${now})
    ON CONFLICT (target, key) DO UPDATE SET id = EXCLUDED.id, "workspaceId" = EXCLUDED."workspaceId", livemode = EXCLUDED.livemode,
      "requestHash" = EXCLUDED."requestHash", "orderId" = EXCLUDED."orderId", "paymentId" = EXCLUDED."paymentId", "createdAt" = EXCLUDED."createdAt"
    WHERE "IdempotencyKey"."createdAt" < ${new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)}
    RETURNING id::text`;
  if (!claimed) throw new KeyTaken();
  return claimed.id;
}

/**
 * claimKey for a request that places an order: the ids its order and first payment will be written
 * with are chosen here and recorded with the key; returned for the caller to write them with.
 */
export async function claimKeyForOrder(tx: Tx, scope: Scope, target: string, key: string, hash: string): Promise<Placed> {
  const placed = { orderId: uuidv7(), paymentId: uuidv7() };
  await claimKey(tx, scope, target, key, hash, placed);
  return placed;
}
