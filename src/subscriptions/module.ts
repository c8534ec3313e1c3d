// The subscriptions domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { handleSubscriptionPayments, onChargeOutcome, onPaymentPaid } from '../payments/index.js';
import { onOrderCancelled } from '../orders/index.js';
import { createSubscriptionActivities } from './activities.js';
import { events } from './events.js';
import { firstPayments } from './first-payment.js';
import { lifecycleRoutes } from './lifecycle-routes.js';
import { cancelWithInitialOrder, routeRenewalOutcome, startSubscriptionWorkflow } from './requests.js';
import { routes } from './routes.js';

// A subscription's first payment settling starts it (or ends it), its PAID starts its workflow; its renewals' processor events go to it.
handleSubscriptionPayments(firstPayments);
onPaymentPaid(startSubscriptionWorkflow);
onChargeOutcome(routeRenewalOutcome);
// Cancelling the order that started a subscription cancels the subscription now.
onOrderCancelled(cancelWithInitialOrder);

export const subscriptionsModule: DomainModule = {
  tag: { name: 'Subscriptions', description: "Subscriptions: started by an order, identified by that order's number; renewals, dunning, cancel, pause and test clocks, one durable workflow per subscription" },
  // The read types first: the lifecycle answers with their SubscriptionSummary.
  registerTypes: async () => {
    await import('./types.js');
    await import('./lifecycle-types.js');
    await import('./plan-types.js');
  },
  routes: [...routes, ...lifecycleRoutes],
  events,
  createActivities: createSubscriptionActivities,
  workflowModules: ['workflows/subscription.ts'],
};
