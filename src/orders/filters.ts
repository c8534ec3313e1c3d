// The filters the orders and payments lists share (the contract: "same filters as orders"), read
// from their query parameters into plain values; each list turns them into its where-clause.
import { ValidationFailed } from '../core/errors.js';
import { isCountry } from '../reference/countries.js';
import { isCurrency } from '../reference/currencies.js';
import { parseNumber } from './numbers.js';
import type { OrderStatus, OrderType } from '../generated/prisma/enums.js';
import { direction, type OffsetListArgs } from '../core/list.js';

/** The query parameters of GET /v0/orders/list (payments: the same, statuses are payment statuses). */
export interface SaleListArgs<Status extends string = OrderStatus> extends OffsetListArgs {
  term?: string | null;
  ids?: string[] | null;
  number?: string | null;
  userId?: string | null;
  subscriptionId?: string | null;
  subscriptionNumber?: string | null;
  checkoutIds?: string[] | null;
  customFields?: string | null;
  statuses?: Status[] | null;
  types?: OrderType[] | null;
  disputed?: boolean | null;
  valueFrom?: number | null;
  valueTo?: number | null;
  currency?: string | null;
  country?: string | null;
  createdFrom?: number | null;
  createdTo?: number | null;
  orderBy?: 'createdAt' | 'orderNumber' | 'value' | null;
}

/**
 * createdFrom/createdTo below 10^11 are seconds (10^11 s is the year 5138), from 10^11 on they are
 * milliseconds (10^11 ms is March 1973, before any order). A bound in seconds covers its whole
 * second: createdTo=X includes an order created at X.999. Bounds past the year 9999 are read as
 * the year 9999 (no order is later; a Date cannot hold the contract's largest value).
 */
export const MILLISECONDS_FROM = 100_000_000_000;
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function createdRange(from?: number | null, to?: number | null): { gte?: Date; lte?: Date } | undefined {
  if (from == null && to == null) return undefined;
  const range: { gte?: Date; lte?: Date } = {};
  if (from != null) range.gte = new Date(Math.min(LATEST, from < MILLISECONDS_FROM ? from * 1000 : from));
  if (to != null) range.lte = new Date(Math.min(LATEST, to < MILLISECONDS_FROM ? to * 1000 + 999 : to));
  return range;
}

export type CustomFieldValue = string | number | boolean;

/** The customFields filter: a JSON object of fieldId/value pairs with scalar values; 400 otherwise. */
export function parseCustomFields(raw: string): Record<string, CustomFieldValue> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ValidationFailed('customFields must be a URL-encoded JSON object of fieldId/value pairs');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ValidationFailed('customFields must be a JSON object of fieldId/value pairs');
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) throw new ValidationFailed(`customFields.${key} must be a string, number or boolean`);
  }
  return parsed as Record<string, CustomFieldValue>;
}

/** The filters read and checked: numbers without `#`, codes upper-cased, custom fields parsed. */
export interface SaleFilters {
  term?: string;
  number?: string;
  subscriptionNumbers: string[];
  customFields?: Record<string, CustomFieldValue>;
  currency?: string;
  country?: string;
  created?: { gte?: Date; lte?: Date };
}

export function readSaleFilters(args: SaleListArgs<string>): SaleFilters {
  const filters: SaleFilters = { subscriptionNumbers: [] };
  const term = args.term?.trim().replace(/^#/, '');
  if (term) filters.term = term;
  if (args.number != null) filters.number = parseNumber(args.number, 'number');
  // subscriptionId is the deprecated name of the same filter: a subscription's id is its number.
  if (args.subscriptionNumber != null) filters.subscriptionNumbers.push(parseNumber(args.subscriptionNumber, 'subscriptionNumber'));
  if (args.subscriptionId != null) filters.subscriptionNumbers.push(parseNumber(args.subscriptionId, 'subscriptionId'));
  if (args.customFields != null) filters.customFields = parseCustomFields(args.customFields);
  if (args.currency != null) {
    const currency = args.currency.trim().toUpperCase();
    if (!isCurrency(currency)) throw new ValidationFailed('currency must be a three-letter currency code of the list');
    filters.currency = currency;
  }
  if (args.country != null) {
    const country = args.country.trim().toUpperCase();
    if (!isCountry(country)) throw new ValidationFailed('country must be a two-letter ISO 3166-1 country code');
    filters.country = country;
  }
  filters.created = createdRange(args.createdFrom, args.createdTo);
  return filters;
}

/** From this skip on, a sales list page's relations are loaded by separate queries (salePage). */
const DEEP_PAGE = 500;

/**
 * The ordering and relation loading of a sales list page (orders, payments): newest first, by
 * number, or by the money column (`value` of an order, `amount` of a payment), the id breaking
 * ties. Joined relations are computed for every skipped row too (about 40 µs each): deep pages
 * load them in separate queries instead (3.8 s against 0.2 s at skip=90000, 100,000 orders).
 */
export function salePage<Money extends string>(args: SaleListArgs<string>, skip: number, money: Money) {
  const dir = direction(args);
  const first = args.orderBy === 'orderNumber' ? [{ number: dir }] : args.orderBy === 'value' ? [{ [money]: dir }, { createdAt: dir }] : [{ createdAt: dir }];
  const orderBy = [...first, { id: dir }] as Partial<Record<'number' | 'createdAt' | 'id' | Money, 'asc' | 'desc'>>[];
  return { orderBy, relationLoadStrategy: skip >= DEEP_PAGE ? ('query' as const) : ('join' as const) };
}
