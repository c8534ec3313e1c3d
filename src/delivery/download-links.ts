// Download URLs for order items: minted by `POST /v0/orders/{orderIdOrNumber}/items/{itemId}/download-url`
// (errors exactly as the contract's rule 3; DOWNLOAD_URLS_PER_MINUTE per workspace, shared
// through Redis when REDIS_URL is set: ./budgets.ts) and served by this service at `/downloads/{token}`. The
// token names the order item, the file and the expiry, signed with HMAC-SHA256 under
// DOWNLOAD_URL_SECRET (or a secret generated into DATA_DIR): serving it writes nothing to the
// database, and re-reads the item so a refund ends the URL before its time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import { config } from '../config.js';
import { findOrder } from '../orders/index.js';
import { downloadUrlBudget, type BudgetedDeps } from './budgets.js';
import { DELIVERING_STATUSES } from './delivered-keys.js';
import { fileOfItem } from './files.js';
import { KEYED_PRODUCT_TYPES } from './license-keys.js';
import { dataDirSecret } from './secrets.js';

export const DEFAULT_EXPIRES_IN = 900;
export const MAX_EXPIRES_IN = 86_400;
export const DOWNLOAD_PATH = '/downloads';

let secret: Buffer | undefined;
const signingKey = () => (secret ??= Buffer.from(config.downloads.urlSecret ?? dataDirSecret('download-url.secret')));

export interface DownloadGrant {
  orderItemId: string;
  fileId: string;
  /** Unix seconds. */
  expiresAt: number;
}

const sign = (payload: string) => createHmac('sha256', signingKey()).update(payload).digest('base64url');

/** `<item>.<file>.<expiry>.<signature>`: readable ids, nothing secret in it. */
export function downloadToken(grant: DownloadGrant): string {
  const payload = `${grant.orderItemId}.${grant.fileId}.${grant.expiresAt}`;
  return `${payload}.${sign(payload)}`;
}

/** The grant a token carries when its signature holds, else null (a tampered or made-up token). */
export function readDownloadToken(token: string): DownloadGrant | null {
  const parts = token.split('.');
  if (parts.length !== 4) return null;
  const [orderItemId, fileId, expiry, signature] = parts as [string, string, string, string];
  const expected = Buffer.from(sign(`${orderItemId}.${fileId}.${expiry}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (!isUuid(orderItemId) || !isUuid(fileId) || !/^\d{1,12}$/.test(expiry)) return null;
  return { orderItemId, fileId, expiresAt: Number(expiry) };
}

/** Why an item delivers nothing now (400 when minting, 410 when serving), or null when it does. */
export function undeliverable(order: { status: string; paidAt: Date | null }, item: { quantity: number; refundedQuantity: number }): string | null {
  if (!order.paidAt) return 'The order was never paid';
  if (order.status === 'REFUNDED') return 'The order is refunded';
  if (!DELIVERING_STATUSES.includes(order.status as (typeof DELIVERING_STATUSES)[number])) return `The order is ${order.status}`;
  if (item.refundedQuantity >= item.quantity) return 'Every unit of the item is refunded';
  return null;
}

function checkExpiresIn(expiresIn: number | null | undefined): number {
  if (expiresIn === null || expiresIn === undefined) return DEFAULT_EXPIRES_IN;
  if (!Number.isInteger(expiresIn) || expiresIn < 1 || expiresIn > MAX_EXPIRES_IN) {
    throw new ValidationFailed(`expiresIn must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}`);
  }
  return expiresIn;
}

export interface MintRequest {
  orderIdOrNumber: string;
  itemId: string;
  expiresIn?: number | null;
  /** Where the service is reached (PUBLIC_BASE_URL wins). */
  origin: string;
  now: Date;
}

/** A download URL for one item of a paid order (rule 3's 429 first, then its 404s and 400s). */
export async function mintDownloadUrl({ prisma, rateLimits }: BudgetedDeps, scope: Scope, request: MintRequest) {
  await rateLimits.spend(downloadUrlBudget, scope.workspaceId);
  const expiresIn = checkExpiresIn(request.expiresIn);
  const { id: orderId } = await findOrder(prisma, scope, request.orderIdOrNumber, { select: { id: true } });
  const item = isUuid(request.itemId)
    ? await prisma.orderItem.findFirst({ where: { id: request.itemId, orderId }, include: { order: { select: { status: true, paidAt: true } } } })
    : null;
  if (!item) throw new NotFound('Order item');
  const product = await prisma.product.findFirst({ where: { id: item.productId, ...inScope(scope) }, select: { type: true } });
  if (product && KEYED_PRODUCT_TYPES.includes(product.type)) throw new NotFound('Download (a keyed product delivers a license key)');
  const file = await fileOfItem(prisma, item);
  if (!file) throw new NotFound('Download of the item');
  const reason = undeliverable(item.order, item);
  if (reason) throw new ValidationFailed(reason);
  const expiresAt = Math.floor(request.now.getTime() / 1000) + expiresIn;
  const base = config.publicBaseUrl ?? request.origin;
  return {
    url: `${base}${DOWNLOAD_PATH}/${downloadToken({ orderItemId: item.id, fileId: file.id, expiresAt })}`,
    validTill: expiresAt,
    mimeType: file.mimeType,
    fileName: file.fileName,
    size: Number(file.size),
    sha256: file.sha256,
  };
}
