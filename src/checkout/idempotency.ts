// Idempotency-Key: one row per (target, key), inserted in the transaction that creates the
// order, so a concurrent duplicate waits on the unique index and then replays the first order.
// The target is what the key was sent to: the hosted checkout's element, or for the API's
// subscription routes the subscription (a plan change) or the scope's subscription creation
// (targetId). The column keeps its first name, checkoutElementId. The request is kept as a hash,
// the card reduced to its last four digits and expiry (never the number or the CVC).
import { createHash } from 'node:crypto';

import { ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { CheckedOrderRequest } from './order-request.js';

type Tx = Prisma.TransactionClient;

/** Idempotency keys are kept this long; after that the same key starts a new order. */
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

/** SHA-256 of any request body, canonically (the checkout's request and the API's subscription routes). */
export const bodyHash = (body: unknown) => createHash('sha256').update(canonical(body)).digest('hex');

/** SHA-256 of the checked request; the card is reduced to its last four digits and expiry (never the number or the CVC). */
export function requestHash(request: CheckedOrderRequest): string {
  const card = request.card && { last4: request.card.number.replace(/[\s-]/g, '').slice(-4), expMonth: request.card.expMonth, expYear: request.card.expYear };
  return bodyHash({ ...request, card });
}

/** A stable id for a target that is no row (`subscriptions/create` of a workspace and mode): a UUID from its name. */
export function targetId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A concurrent request with the same Idempotency-Key committed first: replay its order. */
export class KeyTaken extends Error {}

/** The key's row (same body) or a 400 (another body); null when the key is unused or expired. */
export async function earlierRequest(prisma: PrismaClient, target: string, key: string, hash: string) {
  const row = await prisma.checkoutIdempotencyKey.findUnique({ where: { checkoutElementId_key: { checkoutElementId: target, key } } });
  if (!row || row.createdAt.getTime() < Date.now() - IDEMPOTENCY_WINDOW_MS) return null;
  if (row.requestHash !== hash) throw new ValidationFailed('Idempotency-Key was already used with a different request body');
  return row;
}

/** The key's earlier order (same body) or a 400 (another body); null when the key is unused or expired. */
export async function earlierOrder(prisma: PrismaClient, target: string, key: string, hash: string): Promise<Placed | null> {
  const row = await earlierRequest(prisma, target, key, hash);
  return row?.orderId && row.paymentId ? { orderId: row.orderId, paymentId: row.paymentId } : null;
}

/** Takes the key for this transaction; a concurrent holder makes this wait until it commits (then KeyTaken) or rolls back. */
export async function claimKey(tx: Tx, scope: Scope, target: string, key: string, hash: string): Promise<string> {
  await tx.checkoutIdempotencyKey.deleteMany({ where: { checkoutElementId: target, key, createdAt: { lt: new Date(Date.now() - IDEMPOTENCY_WINDOW_MS) } } });
  const { count } = await tx.checkoutIdempotencyKey.createMany({ data: [{ ...inScope(scope), checkoutElementId: target, key, requestHash: hash }], skipDuplicates: true });
  if (count === 0) throw new KeyTaken();
  const row = await tx.checkoutIdempotencyKey.findUniqueOrThrow({ where: { checkoutElementId_key: { checkoutElementId: target, key } }, select: { id: true } });
  return row.id;
}
