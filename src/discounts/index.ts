// The discounts domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/discounts is private to it.

/** The checkout's order events carry the discount applied, as the discount events show it. */
export { discountResource } from './events.js';
/** Subscriptions word a discount's amount in their events as the discounts do. */
export { formatAmount } from './events.js';
