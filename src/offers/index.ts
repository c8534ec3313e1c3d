// The offers domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/offers is private to it.

/** An order's cart item links to its offer. */
export { Offer } from './types.js';
/** Delivery adds the key stock to an offer's details. */
export { OfferDetails } from './types.js';
