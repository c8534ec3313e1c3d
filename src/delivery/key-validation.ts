// The seller's software checks its buyers' keys (Keygen, Polar): with the workspace's public key it
// asks whether a key of a product is valid (granted, revoked, expired) and activates or
// deactivates instances (machines, installations) up to its offer's activation limit. An offer's
// policy (LicenseKeyPolicy) sets that limit and how long a key is valid after its order was paid.
// Rules: docs/decisions.md, "Delivery".
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { DomainError, NotFound, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { unixSecondsOrNull } from '../core/time.js';
import { keyValidationAddressBudget, keyValidationBudget, type ClientBudgetedDeps } from './budgets.js';
import { deliveredKeys } from './delivered-keys.js';
import { keyFingerprint } from './key-vault.js';
import { KEYED_PRODUCT_TYPES, MAX_KEY_LENGTH } from './license-keys.js';

export const MAX_ACTIVATION_LIMIT = 100_000;
export const MAX_VALID_FOR_DAYS = 36_500;
export const MAX_INSTANCE_LENGTH = 255;
const DAY_MS = 86_400_000;

/** `granted` is the only valid one; `not_found` also covers keys not sold, or sold to an order not paid yet. */
export const KEY_VALIDITIES = ['granted', 'revoked', 'expired', 'not_found'] as const;
export type KeyValidity = (typeof KEY_VALIDITIES)[number];

/** Activating one more instance would pass the offer's activation limit (409). */
export class ActivationLimitReached extends DomainError {
  readonly kind = 'conflict';
}

export interface PolicyUpdate {
  /** Absent: unchanged; null: no limit. */
  activationLimit?: number | null;
  validForDays?: number | null;
}

function checkBound(name: string, value: number | null | undefined, max: number) {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new ValidationFailed(`${name} must be a whole number from 1 to ${max}, or null for none`);
}

/** A live offer of a key-based product of the scope (404 absent, 400 another product type). */
async function keyedOffer(prisma: PrismaClient, scope: Scope, offerId: string) {
  const offer = await prisma.offer.findFirst({ where: { id: offerId, ...inScope(scope), archivedAt: null }, select: { id: true, product: { select: { type: true } } } });
  if (!offer) throw new NotFound('Offer');
  if (!KEYED_PRODUCT_TYPES.includes(offer.product.type)) throw new ValidationFailed(`Offer ${offerId} sells a ${offer.product.type} product: only ${KEYED_PRODUCT_TYPES.join(' and ')} offers have a license key policy`);
  return offer;
}

const policyResource = (offerId: string, policy: { activationLimit: number | null; validForDays: number | null } | null) => ({
  object: 'license_key_policy',
  offerId,
  activationLimit: policy?.activationLimit ?? null,
  validForDays: policy?.validForDays ?? null,
});

export async function licenseKeyPolicy(prisma: PrismaClient, scope: Scope, offerId: string) {
  const offer = await keyedOffer(prisma, scope, offerId);
  return policyResource(offer.id, await prisma.licenseKeyPolicy.findUnique({ where: { offerId: offer.id } }));
}

/** Sets an offer's policy; it applies to every key of the offer, sold before or after. */
export async function setLicenseKeyPolicy(prisma: PrismaClient, scope: Scope, offerId: string, update: PolicyUpdate) {
  checkBound('activationLimit', update.activationLimit, MAX_ACTIVATION_LIMIT);
  checkBound('validForDays', update.validForDays, MAX_VALID_FOR_DAYS);
  const offer = await keyedOffer(prisma, scope, offerId);
  const changes = { activationLimit: update.activationLimit, validForDays: update.validForDays };
  const policy = await prisma.licenseKeyPolicy.upsert({ where: { offerId: offer.id }, create: { offerId: offer.id, ...inScope(scope), ...changes }, update: changes });
  return policyResource(offer.id, policy);
}

export interface KeyQuestion {
  productId: string;
  key: string;
  /** The instance asking (validate: reports whether it is activated). */
  instance?: string | null;
}

function checkQuestion(question: KeyQuestion) {
  const key = question.key.trim();
  if (key === '' || [...key].length > MAX_KEY_LENGTH) throw new ValidationFailed(`key must hold 1 to ${MAX_KEY_LENGTH} characters`);
  const instance = question.instance?.trim();
  // eslint-disable-next-line no-control-regex
  if (question.instance !== undefined && question.instance !== null && (!instance || [...instance].length > MAX_INSTANCE_LENGTH || /[\u0000-\u001f\u007f]/.test(instance))) {
    throw new ValidationFailed(`instance must hold 1 to ${MAX_INSTANCE_LENGTH} characters, no control characters`);
  }
  return { key, instance: instance ?? null };
}

const soldKeyInclude = {
  orderItem: { select: { offerId: true, orderId: true, quantity: true, refundedQuantity: true, order: { select: { status: true, paidAt: true } } } },
} satisfies Prisma.LicenseKeyInclude;

/** The sold key of the product with this value, in the scope; null when there is none (unknown, unsold). */
async function findSoldKey(db: Prisma.TransactionClient | PrismaClient, scope: Scope, productId: string, key: string) {
  const row = await db.licenseKey.findFirst({
    where: { productId, fingerprint: keyFingerprint(productId, key), ...inScope(scope), status: 'sold' },
    include: soldKeyInclude,
  });
  return row?.orderItem?.order.paidAt ? row : null;
}
type SoldKey = NonNullable<Awaited<ReturnType<typeof findSoldKey>>>;

async function answer(db: Prisma.TransactionClient | PrismaClient, productId: string, row: SoldKey | null, instance: string | null, now: Date) {
  if (!row) {
    return { object: 'license_key_validation', valid: false, status: 'not_found' as KeyValidity, productId, licenseKeyId: null, offerId: null, orderId: null, expiresAt: null, activationLimit: null, activations: 0, instance, instanceActivated: null };
  }
  const item = row.orderItem!;
  const policy = await db.licenseKeyPolicy.findUnique({ where: { offerId: item.offerId } });
  const expiresAt = policy?.validForDays ? new Date(item.order.paidAt!.getTime() + policy.validForDays * DAY_MS) : null;
  const [delivered] = deliveredKeys(item.order, { ...item, licenseKeys: [row] });
  const status: KeyValidity = delivered?.status === 'revoked' ? 'revoked' : expiresAt && expiresAt <= now ? 'expired' : 'granted';
  // The count and the instance's own activation in one statement: `db` may be a transaction, whose one connection takes one query at a time.
  const counted = await db.licenseKey.findUniqueOrThrow({
    where: { id: row.id },
    select: { _count: { select: { activations: true } }, activations: instance ? { where: { instance }, select: { id: true } } : false },
  });
  const activations = counted._count.activations;
  const activated = counted.activations?.[0] ?? null;
  return {
    object: 'license_key_validation',
    valid: status === 'granted',
    status,
    productId,
    licenseKeyId: row.id,
    offerId: item.offerId,
    orderId: item.orderId,
    expiresAt: unixSecondsOrNull(expiresAt),
    activationLimit: policy?.activationLimit ?? null,
    activations,
    instance,
    instanceActivated: instance ? activated !== null : null,
  };
}
export type KeyValidation = Awaited<ReturnType<typeof answer>>;

/** One validation's budgets: the client's within the workspace first, then the workspace's. */
async function spendValidation({ rateLimits, client }: ClientBudgetedDeps, scope: Scope): Promise<void> {
  await rateLimits.spend(keyValidationAddressBudget, `${scope.workspaceId}/${client}`);
  await rateLimits.spend(keyValidationBudget, scope.workspaceId);
}

/** Whether a key of the product is valid now; an unknown key is an answer (`not_found`), not an error. */
export async function validateLicenseKey(deps: ClientBudgetedDeps, scope: Scope, question: KeyQuestion, now: Date): Promise<KeyValidation> {
  const { prisma } = deps;
  await spendValidation(deps, scope);
  const { key, instance } = checkQuestion(question);
  return answer(prisma, question.productId, await findSoldKey(prisma, scope, question.productId, key), instance, now);
}

/**
 * Activates an instance on a valid key (again for an activated instance changes nothing). The key's
 * row is locked, so parallel activations never pass the limit. 404 unknown key; 400 revoked or expired; 409 at the limit.
 */
export async function activateLicenseKey(deps: ClientBudgetedDeps, scope: Scope, question: KeyQuestion & { instance: string }, now: Date): Promise<KeyValidation> {
  const { prisma } = deps;
  await spendValidation(deps, scope);
  const { key, instance } = checkQuestion(question);
  return prisma.$transaction(async (tx) => {
    const row = await findSoldKey(tx, scope, question.productId, key);
    if (!row) throw new NotFound('License key');
    await tx.$executeRaw`SELECT 1 FROM "LicenseKey" WHERE id = ${row.id}::uuid FOR UPDATE`;
    const before = await answer(tx, question.productId, row, instance, now);
    if (!before.valid) throw new ValidationFailed(`The license key is ${before.status}`);
    if (before.instanceActivated) return before;
    if (before.activationLimit !== null && before.activations >= before.activationLimit) {
      throw new ActivationLimitReached(`The license key is activated on ${before.activations} of ${before.activationLimit} instances; deactivate one first`);
    }
    await tx.licenseKeyActivation.create({ data: { licenseKeyId: row.id, instance: instance!, createdAt: now } });
    return answer(tx, question.productId, row, instance, now);
  });
}

/** Frees an instance's activation (whatever the key's status, so a revoked key's instances can be cleared). 404 unknown key or instance. */
export async function deactivateLicenseKey(deps: ClientBudgetedDeps, scope: Scope, question: KeyQuestion & { instance: string }, now: Date): Promise<KeyValidation> {
  const { prisma } = deps;
  await spendValidation(deps, scope);
  const { key, instance } = checkQuestion(question);
  const row = await findSoldKey(prisma, scope, question.productId, key);
  if (!row) throw new NotFound('License key');
  const { count } = await prisma.licenseKeyActivation.deleteMany({ where: { licenseKeyId: row.id, instance: instance! } });
  if (count === 0) throw new NotFound('Activation of this instance');
  return answer(prisma, question.productId, row, instance, now);
}
