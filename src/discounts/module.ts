// The discounts domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const discountsModule: DomainModule = {
  tag: { name: 'Discounts', description: 'Discount codes and sales' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
