// The hosted checkout's request hash for its Idempotency-Key (src/core/idempotency.ts): the card
// reduced to its last four digits and expiry, never the number or the CVC.
import { bodyHash } from '../core/idempotency.js';
import type { CheckedOrderRequest } from './order-request.js';

/** The key's target: the checkout element it was sent to. */
export const checkoutTarget = (checkoutElementId: string) => `checkout/${checkoutElementId}`;

/** SHA-256 of the checked request; the card is reduced to its last four digits and expiry (never the number or the CVC). */
export function requestHash(request: CheckedOrderRequest): string {
  const card = request.card && { last4: request.card.number.replace(/[\s-]/g, '').slice(-4), expMonth: request.card.expMonth, expYear: request.card.expYear };
  return bodyHash({ ...request, card });
}
