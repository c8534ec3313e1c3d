// Everything the buyer portal takes from other domains, in one place: their services (so the
// portal applies their rules, hooks, events and webhooks instead of re-implementing them) and
// the hosted pages' text helpers. Nothing else in src/portal imports another domain.
export { findOrder, listOrders, orderItemsWithCatalogue, type CatalogueItem } from '../orders/index.js';
export { refundsOfOrder } from '../refunds/index.js';
export { findSubscription, subscriptionItems, requestChange, type LifecycleDeps, subscriptionPlanItems, upcomingPayment, type LifecycleCommand, previewSubscriptionUpdate, updateSubscription } from '../subscriptions/index.js';
export { openSession as openPaymentMethodSession, SESSION_STATUSES as PAYMENT_METHOD_UPDATABLE } from '../payment-method-sessions/index.js';
export { mintDownloadUrl, undeliverable, fileOfItem, KEYED_PRODUCT_TYPES, dataDirSecret } from '../delivery/index.js';
export { findUser, normalizeEmail } from '../users/index.js';
export { sendEmail } from '../email/mailer.js';
export { escapeHtml, formatMoney, plural } from '../checkout/index.js';
