// The offers domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const offersModule: DomainModule = {
  tag: { name: 'Offers', description: 'Offers: what a product sells at which price, with stock and subscription terms' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
