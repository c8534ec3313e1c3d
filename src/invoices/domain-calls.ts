// Everything the invoices take from other domains, in one place: the hooks they react to (a
// payment paid, a refund's share succeeded), the event outbox, the download links' secret (the
// documents' links are signed under a key derived from it), the orders list's date bounds, the
// hosted pages' text helpers, and the payment and refund GraphQL types they add their fields to.
// Every one through its domain's door (index.ts).
export { onPaymentPaidInTransaction, PaymentDetails } from '../payments/index.js';
export { onRefundPartSucceeded, RefundResult } from '../refunds/index.js';
export { recordEvent } from '../events/event-service.js';
export { dataDirSecret } from '../delivery/index.js';
export { createdRange } from '../orders/index.js';
export { escapeHtml, formatMoney } from '../checkout/index.js';
