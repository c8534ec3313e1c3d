// The orders domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const ordersModule: DomainModule = {
  tag: { name: 'Orders', description: 'Orders: one-time purchases, subscription starts and free claims, with their cart items' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
