// Everything the invoices take from other domains, in one place: the hooks they react to (a
// payment paid, a refund's share succeeded), the event outbox, the download links' secret (the
// documents' links are signed under a key derived from it), the orders list's date bounds, the
// hosted pages' text helpers, and the payment and refund GraphQL types they add their fields to
// (loaded lazily: the worker, which issues documents, never builds the schema).
export { onPaymentPaidInTransaction } from '../payments/transaction-hooks.js';
export { onRefundPartSucceeded } from '../refunds/refund-hooks.js';
export { recordEvent } from '../events/event-service.js';
export { dataDirSecret } from '../delivery/secrets.js';
export { createdRange } from '../orders/filters.js';
export { escapeHtml, formatMoney } from '../checkout/page-format.js';

export async function paymentAndRefundTypes() {
  const [{ PaymentDetails }, { RefundResult }] = await Promise.all([import('../payments/types.js'), import('../refunds/types.js')]);
  return { PaymentDetails, RefundResult };
}
