// License keys of key-based products (SoftwareKey, GiftCard): the merchant's stock (upload, list,
// revoke), an offer's inventory, and the sale's side: one key per unit taken in the checkout's
// transaction and given back when the order's first payment ends unpaid. A pool is a product's
// keys for one variant (or for none); its offers share it. Rules: docs/decisions.md, "Delivery".
import type { LicenseKey, LicenseKeyStatus, Prisma, PrismaClient, ProductType } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { direction, offsetPage } from '../core/list.js';
import { inScope, type Principal, type Scope } from '../core/scope.js';
import { keyFingerprint, openKey, sealKey } from './key-vault.js';

/** Products delivered as keys: their offers carry an inventory and their sales take keys. */
export const KEYED_PRODUCT_TYPES: readonly ProductType[] = ['SoftwareKey', 'GiftCard'];
export const MAX_KEYS_PER_UPLOAD = 10_000;
export const MAX_KEY_LENGTH = 255;
// 2,000 rows of 7 values stay far below PostgreSQL's 65,535 bind parameters per statement.
const INSERT_CHUNK = 2_000;

type Tx = Prisma.TransactionClient;

interface Pool {
  productId: string;
  variantId: string | null;
}

/** The product of the scope whose keys these are: 404 when absent or archived, 400 when it is not key-based. */
async function keyedProduct(db: Db, scope: Scope, productId: string) {
  const product = await db.product.findFirst({ where: { id: productId, ...inScope(scope), archivedAt: null }, select: { id: true, type: true } });
  if (!product) throw new NotFound('Product');
  if (!KEYED_PRODUCT_TYPES.includes(product.type)) throw new ValidationFailed(`Product ${productId} is a ${product.type} product: only ${KEYED_PRODUCT_TYPES.join(' and ')} products have license keys`);
  return product;
}

async function checkVariant(db: Db, productId: string, variantId: string | null | undefined) {
  if (!variantId) return null;
  const variant = await db.variant.findFirst({ where: { id: variantId, productId, archivedAt: null }, select: { id: true } });
  if (!variant) throw new ValidationFailed(`variantId ${variantId} is not a live variant of product ${productId}`);
  return variant.id;
}

/** The values as stored: trimmed, not empty, at most MAX_KEY_LENGTH characters, no control characters. */
function checkedValues(keys: readonly string[]): string[] {
  if (keys.length === 0) throw new ValidationFailed('keys must hold at least one key');
  if (keys.length > MAX_KEYS_PER_UPLOAD) throw new ValidationFailed(`keys holds ${keys.length} keys; at most ${MAX_KEYS_PER_UPLOAD} per request`);
  return keys.map((raw, index) => {
    const value = raw.trim();
    if (value === '') throw new ValidationFailed(`keys[${index}] is empty`);
    if ([...value].length > MAX_KEY_LENGTH) throw new ValidationFailed(`keys[${index}] is longer than ${MAX_KEY_LENGTH} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(value)) throw new ValidationFailed(`keys[${index}] contains a control character`);
    return value;
  });
}

export interface KeyUpload {
  keys: readonly string[];
  variantId?: string | null;
}

/**
 * Adds keys to a product's stock (of one variant when given), all or none. A key already in the
 * product's stock (any variant, sold or revoked ones too) or repeated in the batch is skipped,
 * not an error: `created` and `skipped` say how many of each, so re-sending a batch is safe.
 */
export async function uploadLicenseKeys(prisma: PrismaClient, scope: Scope, productId: string, upload: KeyUpload) {
  const values = checkedValues(upload.keys);
  const product = await keyedProduct(prisma, scope, productId);
  const variantId = await checkVariant(prisma, product.id, upload.variantId);
  const rows = new Map<string, Prisma.LicenseKeyCreateManyInput>();
  for (const value of values) {
    const fingerprint = keyFingerprint(product.id, value);
    const id = Buffer.from(fingerprint).toString('hex');
    if (!rows.has(id)) rows.set(id, { ...inScope(scope), productId: product.id, variantId, sealed: sealKey(product.id, value), fingerprint });
  }
  const data = [...rows.values()];
  const created = await prisma.$transaction(
    async (tx) => {
      let count = 0;
      for (let start = 0; start < data.length; start += INSERT_CHUNK) {
        count += (await tx.licenseKey.createMany({ data: data.slice(start, start + INSERT_CHUNK), skipDuplicates: true })).count;
      }
      return count;
    },
    { timeout: 60_000 },
  );
  return { object: 'license_key_upload', productId: product.id, variantId, received: values.length, created, skipped: values.length - created };
}

/** A key as the merchant's list shows it; `key` is the value for callers holding the secret key, null otherwise. */
export function licenseKeyResource(row: LicenseKey, showValue: boolean) {
  return {
    object: 'license_key',
    id: row.id,
    productId: row.productId,
    variantId: row.variantId,
    key: showValue ? openKey(row.productId, row.sealed) : null,
    status: row.status,
    orderItemId: row.orderItemId,
    createdAt: row.createdAt,
    soldAt: row.soldAt,
    revokedAt: row.revokedAt,
  };
}

export interface KeyListArgs {
  skip?: number | null;
  take?: number | null;
  orderDirection?: 'ASC' | 'DESC' | null;
  returnCount?: boolean | null;
  status?: LicenseKeyStatus | null;
  variantId?: string | null;
}

/** A product's keys, newest first by default. Values only for a caller with the secret key: a public key never reads stock. */
export async function listLicenseKeys(prisma: PrismaClient, principal: Principal, productId: string, args: KeyListArgs) {
  const { skip, take } = offsetPage(args, 20);
  const product = await keyedProduct(prisma, principal, productId);
  const where: Prisma.LicenseKeyWhereInput = { productId: product.id, ...inScope(principal) };
  if (args.status) where.status = args.status;
  if (args.variantId) where.variantId = args.variantId;
  const dir = direction(args);
  const [rows, count] = await Promise.all([
    prisma.licenseKey.findMany({ where, orderBy: [{ createdAt: dir }, { id: dir }], skip, take }),
    args.returnCount ? prisma.licenseKey.count({ where }) : null,
  ]);
  return { licenseKeys: rows.map((row) => licenseKeyResource(row, principal.canWrite)), count };
}

/** Serialises the sales and revocations of one pool for the transaction (a 64-bit advisory lock on its name). */
async function lockPool(tx: Tx, pool: Pool) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`license-keys/${pool.productId}/${pool.variantId ?? '-'}`}, 0))`;
}

/** Takes an unsold key out of stock for good (400 for a sold one; revoking twice returns it unchanged). */
export async function revokeLicenseKey(prisma: PrismaClient, scope: Scope, productId: string, keyId: string) {
  return prisma.$transaction(async (tx) => {
    const product = await keyedProduct(tx, scope, productId);
    const key = await tx.licenseKey.findFirst({ where: { id: keyId, productId: product.id, ...inScope(scope) } });
    if (!key) throw new NotFound('License key');
    await lockPool(tx, key);
    const { count } = await tx.licenseKey.updateMany({ where: { id: key.id, status: 'available' }, data: { status: 'revoked', revokedAt: new Date() } });
    const current = await tx.licenseKey.findUniqueOrThrow({ where: { id: key.id } });
    if (count === 0 && current.status === 'sold') throw new ValidationFailed('A sold key cannot be revoked: refund its unit to revoke it for the buyer');
    return licenseKeyResource(current, true);
  });
}

/** An offer's key stock (its product's pool for its variant); null for products not delivered as keys. */
export async function keyStock(db: Db, pool: Pool, productType: ProductType) {
  if (!KEYED_PRODUCT_TYPES.includes(productType)) return null;
  const groups = await db.licenseKey.groupBy({ by: ['status'], where: { productId: pool.productId, variantId: pool.variantId }, _count: { _all: true } });
  const counted = (status: LicenseKeyStatus) => groups.find((group) => group.status === status)?._count._all ?? 0;
  const available = counted('available');
  const sold = counted('sold');
  return { total: available + sold, available, sold, revoked: counted('revoked'), status: available > 0 ? 'in_stock' : 'out_of_stock' } as const;
}

export interface SoldItem {
  id: string;
  offerId: string;
  productId: string;
  variantId: string | null;
  quantity: number;
  /** Its product's type, as the checkout read it with the offer: a keyed one takes license keys. */
  productType: ProductType;
}

/**
 * The sale's keys, in its transaction before any charge: one available key per unit of each item
 * of a key-based product, sold to that item (400 when its pool has too few: nothing of the sale is
 * kept). Pools are locked in name order, so two carts never wait on each other in a circle.
 */
export async function reserveLicenseKeys(tx: Tx, scope: Scope, items: readonly SoldItem[]) {
  const poolName = (item: SoldItem) => `${item.productId}/${item.variantId ?? ''}`;
  const sold = items.filter((item) => KEYED_PRODUCT_TYPES.includes(item.productType)).sort((a, b) => poolName(a).localeCompare(poolName(b)));
  const now = new Date();
  for (const item of sold) {
    await lockPool(tx, item);
    const keys = await tx.licenseKey.findMany({
      where: { ...inScope(scope), productId: item.productId, variantId: item.variantId, status: 'available' },
      orderBy: { id: 'asc' },
      take: item.quantity,
      select: { id: true },
    });
    if (keys.length < item.quantity) {
      throw new ValidationFailed(keys.length === 0 ? `offer ${item.offerId} is out of license keys` : `offer ${item.offerId} has ${keys.length} license keys left, fewer than quantity ${item.quantity}`);
    }
    const ids = keys.map((key) => key.id);
    await tx.$executeRaw`
      UPDATE "LicenseKey" AS k SET status = 'sold', "orderItemId" = ${item.id}::uuid, unit = (v.n - 1)::int, "soldAt" = ${now}
      FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS v(id, n) WHERE k.id = v.id`;
  }
}

/** Gives an order's keys back to stock (its first payment ended unpaid); part of releaseOrderReservations. */
export async function releaseLicenseKeys(tx: Tx, orderId: string) {
  await tx.licenseKey.updateMany({ where: { orderItem: { orderId }, status: 'sold' }, data: { status: 'available', orderItemId: null, unit: null, soldAt: null } });
}
