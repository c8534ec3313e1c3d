// The orders list's filters as a Prisma where-clause. Each filter has an index to use
// (prisma/schema.prisma, model Order); the list's README entry names them.
import type { Prisma } from '../generated/prisma/client.js';
import { containsText } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import type { SaleFilters, SaleListArgs } from './filters.js';

/** `value` between valueFrom and valueTo (both inclusive). */
export function amountRange(from?: number | null, to?: number | null) {
  if (from == null && to == null) return undefined;
  return { ...(from != null ? { gte: from } : {}), ...(to != null ? { lte: to } : {}) };
}

/** term: a substring of the number or of the buyer's email or username, or the record's id. */
export function termWhere(term: string) {
  const or: Prisma.OrderWhereInput[] = [
    { number: containsText(term) },
    { user: { is: { OR: [{ email: containsText(term) }, { username: containsText(term) }] } } },
  ];
  if (isUuid(term)) or.push({ id: term.toLowerCase() });
  return { OR: or };
}

/**
 * customFields: one item's custom fields contain every pair. itemCustomFields holds one object
 * per item, so `[pairs]` is contained in it exactly when one of those objects contains them all.
 */
export const customFieldsWhere = (pairs: NonNullable<SaleFilters['customFields']>) => ({ itemCustomFields: { array_contains: [pairs] } });

export function orderListWhere(scope: Scope, args: SaleListArgs, filters: SaleFilters): Prisma.OrderWhereInput {
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
  if (filters.term) and.push(termWhere(filters.term));
  return { AND: and };
}
