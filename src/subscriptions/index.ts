// The subscriptions domain's door: what other domains may use of it (docs/decisions.md "One door
// per domain"). Everything else in src/subscriptions is private to it.

/** The portal and card sessions find a buyer's subscriptions and show their items and next payment. */
export { findSubscription, subscriptionItems, upcomingPayment } from './queries.js';
export { subscriptionPlanItems, type LifecycleCommand } from './service.js';
/** The portal asks the subscription's workflow for a change, and card sessions for a new card, as the API does. */
export { replacePaymentMethod, requestChange, type LifecycleDeps } from './requests.js';
/** The portal previews and applies plan changes by the subscriptions' rules. */
export { previewSubscriptionUpdate, updateSubscription } from './plan.js';
