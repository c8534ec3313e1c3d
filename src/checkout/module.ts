// The checkout domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const checkoutModule: DomainModule = {
  tag: { name: 'Checkout elements', description: 'Embeddable checkout elements that sell offers' },
  registerTypes: () => import('./types.js'),
  routes,
  endpoints: [{ path: '/checkout/:checkoutElementId', methods: ['GET'], handle: async (endpoint) => (await import('./page-endpoint.js')).serveCheckoutPage(endpoint) }],
  events,
};
