// Order and payment numbers (docs/decisions.md, "Orders and payments"). An order number is 16
// characters of Crockford base32: 9 for the creation time in milliseconds, 7 random. It matches
// the contract's pattern, sorts by creation time, says nothing about sales volume, and needs no
// counter row that every checkout of a workspace would queue on. A subscription's later payments
// are `{orderNumber}-{n}`.
import { randomBytes } from 'node:crypto';
import { ValidationFailed } from '../core/errors.js';
import { isUuid } from '../core/uuid.js';

/** The contract's pattern of order, payment and subscription numbers (without the tolerated `#`). */
export const NUMBER_PATTERN = /^([0-9A-Za-z]{12,32}|[0-9]+)(-[0-9]+)?$/;

// No I, L, O, U: read aloud or typed from a receipt, no two characters look alike.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newOrderNumber(now = Date.now()): string {
  let time = '';
  // 32^9 milliseconds reach the year 3084.
  for (let rest = now, i = 0; i < 9; i += 1, rest = Math.floor(rest / 32)) time = ALPHABET[rest % 32] + time;
  const random = [...randomBytes(7)].map((byte) => ALPHABET[byte % 32]).join('');
  return time + random;
}

/** The number of an order's payment: the order's own for the first, `-n` for the n-th. */
export const paymentNumber = (orderNumber: string, sequence: number) => (sequence === 1 ? orderNumber : `${orderNumber}-${sequence}`);

/** A number as a filter or path gives it: one leading `#` dropped; 400 when it cannot be a number. */
export function parseNumber(raw: string, name: string): string {
  const number = raw.trim().replace(/^#/, '');
  if (!NUMBER_PATTERN.test(number)) throw new ValidationFailed(`${name} must match ^#?([0-9A-Za-z]{12,32}|[0-9]+)(-[0-9]+)?$`);
  return number;
}

/** An `orderIdOrNumber` path value: the order's id, or its number (`#` tolerated); 400 when it is neither. */
export function parseOrderRef(raw: string): { id: string } | { number: string } {
  if (isUuid(raw)) return { id: raw.toLowerCase() };
  const number = raw.replace(/^#/, '');
  if (!NUMBER_PATTERN.test(number) || number.includes('-')) throw new ValidationFailed('orderIdOrNumber must be an order id (UUID) or an order number');
  return { number };
}
