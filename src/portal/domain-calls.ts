// Everything the buyer portal takes from other domains, in one place: their services (so the
// portal applies their rules, hooks, events and webhooks instead of re-implementing them) and
// the hosted pages' text helpers. Nothing else in src/portal imports another domain.
export { findOrder, listOrders, orderItemsWithCatalogue, type CatalogueItem } from '../orders/service.js';
export { refundsOfOrder } from '../refunds/service.js';
export { findSubscription, subscriptionItems } from '../subscriptions/queries.js';
export { requestChange, type LifecycleDeps } from '../subscriptions/requests.js';
export { subscriptionPlanItems, upcomingPayment, type LifecycleCommand } from '../subscriptions/service.js';
export { previewSubscriptionUpdate, updateSubscription } from '../subscriptions/plan.js';
export { openSession as openPaymentMethodSession, SESSION_STATUSES as PAYMENT_METHOD_UPDATABLE } from '../payment-method-sessions/service.js';
export { mintDownloadUrl, undeliverable } from '../delivery/download-links.js';
export { fileOfItem } from '../delivery/files.js';
export { KEYED_PRODUCT_TYPES } from '../delivery/license-keys.js';
export { dataDirSecret } from '../delivery/secrets.js';
export { findUser, normalizeEmail } from '../users/service.js';
export { sendEmail } from '../email/mailer.js';
export { escapeHtml, formatMoney, plural } from '../checkout/page-format.js';
