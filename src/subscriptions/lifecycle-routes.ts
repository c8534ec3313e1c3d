// The lifecycle's routes under /v0, each served by a GraphQL field of ./lifecycle-types.ts (create
// and update: ./plan-types.ts). Every route that asks the subscription's workflow answers 503 when
// Temporal does not answer (./requests.ts) or the processor is unavailable to a charge it makes.
import type { RestRoute } from '../rest/route.js';

export const lifecycleRoutes: readonly RestRoute[] = [
  { method: 'POST', path: '/subscriptions/create', idempotencyKey: true, field: 'Mutation.createSubscription', summary: 'Start a subscription for an existing buyer on their saved card', errors: [404, 503] },
  { method: 'PATCH', path: '/subscriptions/:subscriptionIdOrNumber/update', idempotencyKey: true, field: 'Mutation.updateSubscription', summary: "Change a subscription's items (a prorated plan change)", errors: [503] },
  { method: 'PATCH', path: '/subscriptions/:subscriptionIdOrNumber/cancel', field: 'Mutation.cancelSubscription', summary: 'Cancel a subscription now or at the end of its interval', errors: [503] },
  { method: 'PATCH', path: '/subscriptions/:subscriptionIdOrNumber/undo-cancel', field: 'Mutation.undoSubscriptionCancel', summary: 'Take back a cancel scheduled for the end of the interval', errors: [503] },
  { method: 'POST', path: '/subscriptions/:subscriptionIdOrNumber/charge', field: 'Mutation.chargeSubscription', summary: 'Charge items now on the saved payment method (a one-off payment of the subscription)', errors: [503] },
  { method: 'POST', path: '/subscriptions/:subscriptionIdOrNumber/end-trial', field: 'Mutation.endSubscriptionTrial', summary: 'End the trial now: the first period is charged at once', errors: [503] },
  { method: 'GET', path: '/subscriptions/:subscriptionIdOrNumber/upcoming-payment', field: 'Query.subscriptionUpcomingPayment', summary: 'The next charge: amount, date, discount and tax breakdown (computed as it will be charged)' },
  { method: 'PATCH', path: '/subscriptions/:subscriptionIdOrNumber/pause', field: 'Mutation.pauseSubscription', summary: 'Pause an active subscription (nothing is charged while paused)', errors: [503] },
  { method: 'PATCH', path: '/subscriptions/:subscriptionIdOrNumber/resume', field: 'Mutation.resumeSubscription', summary: 'Resume a paused subscription', errors: [503] },
  { method: 'POST', path: '/test-helpers/subscriptions/:subscriptionIdOrNumber/advance', field: 'Mutation.advanceTestSubscriptionClock', summary: "Test mode: advance the subscription's clock; everything due by then runs first", errors: [503] },
  {
    method: 'POST',
    path: '/test-helpers/subscriptions/:subscriptionIdOrNumber/payment-method',
    field: 'Mutation.replaceTestSubscriptionPaymentMethod',
    summary: "Test mode: replace the subscription's saved card by a sandbox test card (the payment-method update hook)",
    errors: [503],
  },
];
