// What a signed-in buyer may see: their own orders and subscriptions in the session's workspace
// and mode, read through the orders, subscriptions, refunds and delivery services. Another
// buyer's record, another workspace's or mode's, and a malformed number are all "not found".
import { NotFound } from '../core/errors.js';
import type { Scope } from '../core/scope.js';
import type { PrismaClient, Subscription } from '../generated/prisma/client.js';
import {
  fileOfItem, findOrder, findSubscription, KEYED_PRODUCT_TYPES, listOrders, orderItemsWithCatalogue, PAYMENT_METHOD_UPDATABLE, refundsOfOrder, subscriptionPlanItems, undeliverable,
  upcomingPayment,
} from './domain-calls.js';
import type { Buyer, PortalWorkspace } from './sessions.js';

export const scopeOf = (buyer: Buyer): Scope => ({ workspaceId: buyer.workspaceId, livemode: buyer.livemode });

const ORDERS_PER_PAGE = 20;

/** A page of the buyer's orders, newest first, with their items' product names. */
export async function buyerOrders(prisma: PrismaClient, buyer: Buyer, page: number) {
  const { orders } = await listOrders(prisma, scopeOf(buyer), { userId: buyer.userId, skip: (page - 1) * ORDERS_PER_PAGE, take: ORDERS_PER_PAGE + 1 }, {
    select: { id: true, number: true, status: true, value: true, currency: true, createdAt: true },
  });
  const shown = orders.slice(0, ORDERS_PER_PAGE);
  const items = await prisma.orderItem.findMany({ where: { orderId: { in: shown.map((o) => o.id) } }, orderBy: { position: 'asc' }, select: { orderId: true, productId: true } });
  const products = await prisma.product.findMany({ where: { ...scopeOf(buyer), id: { in: [...new Set(items.map((i) => i.productId))] } }, select: { id: true, name: true } });
  const names = new Map(products.map((p) => [p.id, p.name]));
  return {
    orders: shown.map((order) => ({ ...order, names: items.filter((i) => i.orderId === order.id).map((i) => names.get(i.productId) ?? 'Item') })),
    hasMore: orders.length > ORDERS_PER_PAGE,
  };
}

/** One of the buyer's orders by its number (404 for anything else). */
async function ownOrder(prisma: PrismaClient, buyer: Buyer, number: string) {
  const order = await findOrder(prisma, scopeOf(buyer), number).catch(() => null);
  if (!order || order.userId !== buyer.userId) throw new NotFound('Order');
  return order;
}

/** The order with its items (catalogue, license keys, whether a download is ready) and refunds. */
export async function buyerOrder(prisma: PrismaClient, buyer: Buyer, number: string) {
  const order = await ownOrder(prisma, buyer, number);
  const [items, refunds, rows] = await Promise.all([
    orderItemsWithCatalogue(prisma, scopeOf(buyer), order.id),
    refundsOfOrder(prisma, order.id),
    prisma.orderItem.findMany({ where: { orderId: order.id }, select: { id: true, refundedQuantity: true } }),
  ]);
  const refunded = new Map(rows.map((row) => [row.id, row.refundedQuantity]));
  const delivered = await Promise.all(
    items.map(async (item) => {
      const refundedQuantity = refunded.get(item.id) ?? 0;
      const keyed = item.product !== null && KEYED_PRODUCT_TYPES.includes(item.product.type);
      // The delivery domain's rule: why the item delivers nothing now, or null.
      const blocked = undeliverable(order, { quantity: item.quantity, refundedQuantity });
      const file = keyed || blocked ? null : await fileOfItem(prisma, { productId: item.productId, variantId: item.variantId });
      return { ...item, name: item.offer?.name?.trim() || item.product?.name || 'Item', refundedQuantity, download: file ? { fileName: file.fileName } : null };
    }),
  );
  return { order, items: delivered, refunds };
}

export type BuyerOrder = Awaited<ReturnType<typeof buyerOrder>>;

/** The buyer's subscriptions, newest first, with what they are for. */
export async function buyerSubscriptions(prisma: PrismaClient, buyer: Buyer) {
  const rows = await prisma.subscription.findMany({ where: { ...scopeOf(buyer), userId: buyer.userId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 100 });
  return Promise.all(rows.map(async (subscription) => ({ subscription, items: await namedPlanItems(prisma, buyer, subscription) })));
}

/** One of the buyer's subscriptions by its number (404 for anything else). */
export async function ownSubscription(prisma: PrismaClient, buyer: Buyer, number: string): Promise<Subscription> {
  const subscription = await findSubscription(prisma, scopeOf(buyer), number).catch(() => null);
  if (!subscription || subscription.userId !== buyer.userId) throw new NotFound('Subscription');
  return subscription;
}

/** The subscription's current items (after any plan change) with their offer and product names. */
async function namedPlanItems(prisma: PrismaClient, buyer: Buyer, subscription: Subscription) {
  const items = await subscriptionPlanItems(prisma, subscription);
  const [offers, products] = await Promise.all([
    prisma.offer.findMany({ where: { ...scopeOf(buyer), id: { in: items.map((i) => i.offerId) } }, select: { id: true, name: true } }),
    prisma.product.findMany({ where: { ...scopeOf(buyer), id: { in: items.map((i) => i.productId) } }, select: { id: true, name: true } }),
  ]);
  const offerName = new Map(offers.map((o) => [o.id, o.name?.trim()]));
  const productName = new Map(products.map((p) => [p.id, p.name]));
  return items.map((item) => ({ ...item, name: offerName.get(item.offerId) || productName.get(item.productId) || 'Subscription' }));
}

/** The offers the workspace lets its buyers switch this subscription to: listed, on sale, billed like it. */
async function switchOffers(prisma: PrismaClient, workspace: PortalWorkspace, buyer: Buyer, subscription: Subscription, currentOfferId: string | null) {
  const allowed = workspace.portalSwitchOfferIds?.split(',') ?? [];
  if (!currentOfferId || !allowed.includes(currentOfferId)) return [];
  const offers = await prisma.offer.findMany({
    where: {
      ...scopeOf(buyer), id: { in: allowed.filter((id) => id !== currentOfferId) }, status: 'ACTIVE', archivedAt: null, product: { archivedAt: null },
      currency: subscription.currency, recurringInterval: subscription.recurringInterval,
      // An offer without a count bills every one interval.
      OR: [{ recurringIntervalCount: subscription.recurringIntervalCount }, ...(subscription.recurringIntervalCount === 1 ? [{ recurringIntervalCount: null }] : [])],
    },
    include: { product: { select: { name: true } } },
    orderBy: { price: 'asc' },
  });
  return offers.map((offer) => ({ id: offer.id, name: offer.name?.trim() || offer.product.name, price: offer.price }));
}

/** The subscription page's content: items, the next payment, and what the buyer may do now. */
export async function buyerSubscription(prisma: PrismaClient, workspace: PortalWorkspace, buyer: Buyer, number: string) {
  const subscription = await ownSubscription(prisma, buyer, number);
  const [items, next] = await Promise.all([namedPlanItems(prisma, buyer, subscription), upcomingPayment(prisma, subscription)]);
  const ended = ['cancelled', 'incomplete', 'incomplete_expired'].includes(subscription.status);
  // Switching replaces the one item of a single-item subscription (as Stripe's portal does).
  const single = items.length === 1 ? items[0]! : null;
  return {
    subscription,
    items,
    next,
    can: {
      cancel: !ended,
      undoCancel: subscription.cancelAtPeriodEnd && !ended,
      pause: workspace.portalPauseEnabled && subscription.status === 'active' && !subscription.cancelAtPeriodEnd,
      resume: subscription.status === 'paused',
      updatePaymentMethod: PAYMENT_METHOD_UPDATABLE.includes(subscription.status) && subscription.methodType === 'card',
    },
    switchTo: single && !ended && !subscription.cancelAtPeriodEnd ? await switchOffers(prisma, workspace, buyer, subscription, single.offerId) : [],
    quantity: single?.quantity ?? 1,
  };
}

export type BuyerSubscription = Awaited<ReturnType<typeof buyerSubscription>>;
