// The users domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/users is private to it.

/** Order, payment and subscription events carry their buyer as the user events show them. */
export { userEventData, userResource } from './events.js';
/** Webhooks' test events carry a sample buyer built like a real one. */
export { sampleUser } from './events.js';
/** The checkout and the portal find buyers and read e-mail addresses by the users' rules. */
export { checkEmail, findUser, normalizeEmail } from './service.js';
/** A plan change takes billing details in the users' shape. */
export type { BillingDetails } from './service.js';
