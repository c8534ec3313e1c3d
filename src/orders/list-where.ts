// The orders list's filters as a Prisma where-clause. Each filter has an index to use
// (prisma/schema.prisma, model Order); the list's README entry names them.
import type { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { containsText } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import type { SaleFilters, SaleListArgs } from './filters.js';

/** `value` between valueFrom and valueTo (both inclusive). */
export function amountRange(from?: number | null, to?: number | null) {
  if (from == null && to == null) return undefined;
  return { ...(from != null ? { gte: from } : {}), ...(to != null ? { lte: to } : {}) };
}

/**
 * term: the number itself (any case), a substring of the buyer's email or username, or the id.
 * Not a substring of the number: over 100,000 orders that is a scan of every number (about
 * 150 ms here, growing with the table). The buyers are looked up first (one pass over the
 * workspace's users), so the orders are found through indexes on number, userId and id.
 */
export const termNumbers = (term: string) => [...new Set([term, term.toUpperCase()])];

/** Past this many matching buyers the term is not selective: the orders are filtered row by row instead. */
const TERM_USERS = 500;

export type TermBuyers = { ids: string[] } | { where: Prisma.UserWhereInput };

export async function termBuyers(prisma: Db, scope: Scope, term: string): Promise<TermBuyers> {
  const where: Prisma.UserWhereInput = { OR: [{ email: containsText(term) }, { username: containsText(term) }] };
  const users = await prisma.user.findMany({ where: { ...inScope(scope), ...where }, select: { id: true }, take: TERM_USERS });
  return users.length < TERM_USERS ? { ids: users.map((u) => u.id) } : { where };
}

export function termWhere(term: string, buyers: TermBuyers) {
  const or: Prisma.OrderWhereInput[] = [
    { number: { in: termNumbers(term) } },
    'ids' in buyers ? { userId: { in: buyers.ids } } : { user: { is: buyers.where } },
  ];
  if (isUuid(term)) or.push({ id: term.toLowerCase() });
  return { OR: or };
}

/**
 * customFields: one item's custom fields contain every pair. itemCustomFields holds one object
 * per item, so `[pairs]` is contained in it exactly when one of those objects contains them all.
 */
export const customFieldsWhere = (pairs: NonNullable<SaleFilters['customFields']>) => ({ itemCustomFields: { array_contains: [pairs] } });

export function orderListWhere(scope: Scope, args: SaleListArgs, filters: SaleFilters, buyers?: TermBuyers): Prisma.OrderWhereInput {
  const and: Prisma.OrderWhereInput[] = [inScope(scope)];
  if (args.ids) and.push({ id: { in: args.ids } });
  if (filters.number) {
    // A payment's number (`{orderNumber}-{n}`) finds the order it belongs to.
    and.push(filters.number.includes('-') ? { payments: { some: { number: filters.number } } } : { number: filters.number });
  }
  if (args.userId) and.push({ userId: args.userId });
  for (const number of filters.subscriptionNumbers) and.push({ subscription: { is: { number } } });
  if (args.checkoutIds) and.push({ checkoutId: { in: args.checkoutIds } });
  if (filters.customFields) and.push(customFieldsWhere(filters.customFields));
  if (args.statuses) and.push({ status: { in: args.statuses } });
  if (args.types) and.push({ type: { in: args.types } });
  if (args.disputed != null) and.push({ disputed: args.disputed });
  const value = amountRange(args.valueFrom, args.valueTo);
  if (value) and.push({ value });
  if (filters.currency) and.push({ currency: filters.currency });
  if (filters.country) and.push({ country: filters.country });
  if (filters.created) and.push({ createdAt: filters.created });
  if (filters.term && buyers) and.push(termWhere(filters.term, buyers));
  return { AND: and };
}
