// The refunds domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/refunds is private to it.

/** The portal shows an order's refunds to its buyer. */
export { refundsOfOrder } from './service.js';
/** The invoices issue a credit note in the transaction that books a refund's share as succeeded. */
export { onRefundPartSucceeded } from './refund-hooks.js';
/** The invoices add a refund's `creditNotes` to its GraphQL type. */
export { RefundResult } from './types.js';
/** The reconciliation tells a refund still under way from a difference, and a charge already given back. */
export { RefundNotRecordedYet } from './processor-events.js';
export { STRANDED_REASON } from './stranded.js';
