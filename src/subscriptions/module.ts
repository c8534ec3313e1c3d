// The subscriptions domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const subscriptionsModule: DomainModule = {
  tag: { name: 'Subscriptions', description: "Subscriptions: started by an order, identified by that order's number, renewed by payments" },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
