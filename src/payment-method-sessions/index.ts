// The payment method sessions domain's door: what other domains may use of it (docs/decisions.md
// "One door per domain"). Everything else in src/payment-method-sessions is private to it.

/** The portal opens a session for the buyer to replace a subscription's card, in the states that allow it. */
export { openSession, SESSION_STATUSES } from './service.js';
