// The payment-method sessions domain: short-lived tokens with which a buyer replaces a
// subscription's saved payment method on a hosted page (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { sessionAttemptBudget, sessionMintBudget } from './budgets.js';
import { routes } from './routes.js';
import { PAGE_PATH } from './page-path.js';

export const paymentMethodSessionsModule: DomainModule = {
  tag: { name: 'Payment-method sessions', description: "Short-lived sessions in which a buyer replaces a subscription's payment method on a hosted page" },
  registerTypes: () => import('./types.js'),
  routes,
  rateLimits: [sessionMintBudget, sessionAttemptBudget],
  endpoints: [
    { path: `${PAGE_PATH}/:subscriptionId/:sessionToken`, methods: ['GET'], handle: async (endpoint) => (await import('./page-endpoint.js')).servePaymentMethodPage(endpoint) },
  ],
};
