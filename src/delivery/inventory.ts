// The buyer's inventory (`GET /v0/users/{userId}/inventory`): what a user owns in the scope, one
// entry per purchased item, newest first, page-paginated. An item is owned while its order is
// PAID or PARTIALLY_REFUNDED and not every one of its units is refunded; refunded in full,
// cancelled, failed, expired and pending orders own nothing. Rules: docs/decisions.md, "Delivery".
import type { PrismaClient } from '../generated/prisma/client.js';
import { pageCount, pagePage } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { findUser } from '../users/index.js';
import { DELIVERING_STATUSES, deliveredKeys } from './delivered-keys.js';
import { fileOfItem, fileResource } from './files.js';

const owned = (prisma: PrismaClient, scope: Scope, userId: string) => ({
  order: { userId, ...inScope(scope), status: { in: [...DELIVERING_STATUSES] } },
  refundedQuantity: { lt: prisma.orderItem.fields.quantity },
});

/** What the buyer owns, newest first; 404 for an unknown or archived user. */
export async function userInventory(prisma: PrismaClient, scope: Scope, userId: string, args: { page?: number | null; limit?: number | null }) {
  const user = await findUser(prisma, scope, userId, { select: { id: true } });
  return ownedItems(prisma, scope, user.id, args);
}

/** One page of the user's owned items with their order, product, offer, keys, downloadable file and subscription status (the user is the caller's to check). */
async function ownedItems(prisma: PrismaClient, scope: Scope, userId: string, args: { page?: number | null; limit?: number | null }) {
  const { limit, skip } = pagePage(args, 20);
  const where = owned(prisma, scope, userId);
  const [rows, count] = await Promise.all([
    prisma.orderItem.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip,
      take: limit,
      include: { licenseKeys: true, order: { select: { number: true, status: true, paidAt: true, subscription: { select: { number: true, status: true } } } } },
    }),
    prisma.orderItem.count({ where }),
  ]);
  // The catalogue as it is now, archived records included: what was bought stays named.
  const [products, offers] = await Promise.all([
    prisma.product.findMany({ where: { id: { in: [...new Set(rows.map((row) => row.productId))] }, ...inScope(scope) }, select: { id: true, name: true, type: true } }),
    prisma.offer.findMany({ where: { id: { in: [...new Set(rows.map((row) => row.offerId))] }, ...inScope(scope) }, select: { id: true, name: true } }),
  ]);
  const productById = new Map(products.map((product) => [product.id, product]));
  const offerById = new Map(offers.map((offer) => [offer.id, offer]));
  const files = await Promise.all(rows.map((row) => (productById.get(row.productId)?.type === 'DigitalDownload' ? fileOfItem(prisma, row) : null)));
  const inventory = rows.map((row, index) => {
    const file = files[index];
    const product = productById.get(row.productId);
    return {
      object: 'inventoryItem',
      id: row.id,
      orderId: row.orderId,
      orderNumber: row.order.number,
      orderStatus: row.order.status,
      paidAt: row.order.paidAt,
      productId: row.productId,
      productName: product?.name ?? null,
      productType: product?.type ?? null,
      offerId: row.offerId,
      offerName: offerById.get(row.offerId)?.name ?? null,
      variantId: row.variantId,
      quantity: row.quantity,
      refundedQuantity: row.refundedQuantity,
      licenseKeys: deliveredKeys(row.order, row),
      download: file ? fileResource(file) : null,
      subscriptionId: row.order.subscription?.number ?? null,
      subscriptionStatus: row.order.subscription?.status ?? null,
      createdAt: row.createdAt,
    };
  });
  return { inventory, count, pages: pageCount(count, limit) };
}

export type InventoryEntry = Awaited<ReturnType<typeof ownedItems>>['inventory'][number];
