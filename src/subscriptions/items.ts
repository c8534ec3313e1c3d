// The items of subscription create, update and charge bodies: each priced by `unitPrice`, or its
// deprecated names `value` then `price` (the contract's precedence), times `quantity`.
import { ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';

export interface SubscriptionItemInput {
  unitPrice?: number | null;
  value?: number | null;
  price?: number | null;
  quantity?: number | null;
}

/** Most items in one body. */
export const MAX_ITEMS = 20;

/**
 * An item's unit price (unitPrice, else value, else price, else `fallback`: the offer's price
 * where the item names one) and quantity (1..10000, default 1); 400 naming the item otherwise.
 */
export function itemLine(item: SubscriptionItemInput, index: number, fallback?: number): { unitPrice: number; quantity: number } {
  const unitPrice = item.unitPrice ?? item.value ?? item.price ?? fallback;
  if (unitPrice == null) throw new ValidationFailed(`items.${index}: unitPrice is required (value and price are its deprecated names)`);
  const quantity = item.quantity ?? 1;
  if (!isMoney(unitPrice)) throw new ValidationFailed(`items.${index}.unitPrice: whole minor units from 0 to ${MAX_MONEY}`);
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > 10_000) throw new ValidationFailed(`items.${index}.quantity: a whole number from 1 to 10000`);
  return { unitPrice, quantity };
}

/** 400 unless the items' total is from 1 to the money range. */
export function checkItemsTotal(total: number): number {
  if (total < 1 || total > MAX_MONEY) throw new ValidationFailed(`items: the total must be from 1 to ${MAX_MONEY} minor units`);
  return total;
}
