// Reading subscriptions: the cursor-paginated list and one subscription by its number, with the
// items, buyer and payments its details show (docs/decisions.md, "Reading subscriptions").
import type { Prisma, PrismaClient, Subscription } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { TAKE_CAP } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { createdRange, orderItemsWithCatalogue } from '../orders/index.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { priceOfPeriod } from './service.js';

type Query = { select?: Prisma.SubscriptionSelect; include?: Prisma.SubscriptionInclude };

/** The contract's take default for the subscriptions list; any integer is clamped to 1..100. */
export const DEFAULT_TAKE = 10;

export interface SubscriptionListArgs {
  take?: number | null;
  cursor?: string | null;
  createdFrom?: number | null;
  createdTo?: number | null;
}

/**
 * A page of the workspace's subscriptions (every status), newest first by (createdAt, id): a
 * keyset over a unique key that never changes, so a walk from the first page on hasMore visits
 * each subscription that existed when it began exactly once, and one created meanwhile at most
 * once (it sorts ahead of the walk). `count` is the filtered total, on the first page only.
 */
export async function listSubscriptions(prisma: PrismaClient, scope: Scope, args: SubscriptionListArgs, query: Query) {
  const take = Math.min(TAKE_CAP, Math.max(1, args.take ?? DEFAULT_TAKE));
  const after = args.cursor != null ? decodeCursor(scope, args.cursor) : null;
  const created = createdRange(args.createdFrom, args.createdTo);
  const where: Prisma.SubscriptionWhereInput = { ...inScope(scope), ...(created ? { createdAt: created } : {}) };
  const page: Prisma.SubscriptionWhereInput = after
    ? {
        AND: [
          where,
          // The bound on createdAt alone lets the (workspace, mode, createdAt) index start there.
          { createdAt: { lte: after.createdAt } },
          { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] },
        ],
      }
    : where;
  // The cursor needs each row's position, whatever the GraphQL selection asked for.
  const positioned = query.select ? { select: { ...query.select, id: true, createdAt: true } } : query;
  const [rows, count] = await Promise.all([
    prisma.subscription.findMany({ ...positioned, where: page, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: take + 1 }),
    after ? null : prisma.subscription.count({ where }),
  ]);
  const hasMore = rows.length > take;
  const subscriptions = hasMore ? rows.slice(0, take) : rows;
  const last = subscriptions.at(-1) as { id: string; createdAt: Date } | undefined;
  return { subscriptions, count, cursor: hasMore && last ? encodeCursor(scope, last) : null, hasMore };
}

/** The contract's pattern of `subscriptionIdOrNumber`. */
const SUBSCRIPTION_REF = /^#?([0-9A-Za-z]{12,32}|[0-9]+)(-[0-9]+)?$/;

/**
 * The number a `subscriptionIdOrNumber` path value names: the subscription's id is its number.
 * Outside the contract's pattern it is 400 (as a malformed order id is); inside it but with a
 * leading `#` it resolves to nothing (null: 404), as the contract says, unlike the order routes.
 */
export function subscriptionNumberOf(raw: string): string | null {
  if (!SUBSCRIPTION_REF.test(raw)) throw new ValidationFailed('subscriptionIdOrNumber must be a subscription number (its id), sent without #');
  return raw.startsWith('#') ? null : raw;
}

/** The subscription a `subscriptionIdOrNumber` names in the scope; 404 when there is none. */
export async function findSubscription(prisma: Db, scope: Scope, subscriptionIdOrNumber: string, query: Query = {}) {
  const number = subscriptionNumberOf(subscriptionIdOrNumber);
  const subscription = number === null ? null : await prisma.subscription.findFirst({ ...query, where: { ...inScope(scope), number } });
  if (!subscription) throw new NotFound('Subscription');
  return subscription;
}

/** The subscription's items: the cart items of the order that started it (same number), in cart order. */
export async function subscriptionItems(prisma: Db, scope: Scope, subscription: { id: string; number: string }) {
  const order = await prisma.order.findFirst({ where: { ...inScope(scope), subscriptionId: subscription.id, number: subscription.number }, select: { id: true } });
  return order ? orderItemsWithCatalogue(prisma, scope, order.id) : [];
}

/**
 * The next charge of the subscription, computed by the code that will make it (priceOfPeriod at
 * its due time): the renewal at the period's end, or the retry of a renewal being dunned (its
 * payment's amount, at nextRetryAt). null when nothing is due to be charged (cancelled, a cancel
 * scheduled, paused, unpaid, not started).
 */
export async function upcomingPayment(prisma: PrismaClient, s: Subscription) {
  if (s.status === 'past_due' && s.nextRetryAt) {
    const renewal = await prisma.payment.findFirst({ where: { subscriptionId: s.id, status: 'PENDING', subscriptionPeriod: { not: null } }, orderBy: { subscriptionPeriod: 'desc' } });
    if (renewal) {
      const price = await priceOfPeriod(prisma, s, s.currentPeriodStart ?? s.nextRetryAt);
      return { at: s.nextRetryAt, amount: renewal.amount, subtotal: price.subtotal, discount: price.discount, credit: 0, tax: renewal.tax, taxes: price.taxes, taxInclusive: price.taxInclusive, retry: true };
    }
  }
  if (!['active', 'trialing'].includes(s.status) || s.cancelAtPeriodEnd || !s.currentPeriodEnd) return null;
  const price = await priceOfPeriod(prisma, s, s.currentPeriodEnd);
  return { at: s.currentPeriodEnd, amount: price.amount, subtotal: price.subtotal, discount: price.discount, credit: price.credit, tax: price.tax, taxes: price.taxes, taxInclusive: price.taxInclusive, retry: false };
}
