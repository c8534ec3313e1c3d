// The offers domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { onProductArchived } from '../products/index.js';
import { events } from './events.js';
import { routes } from './routes.js';
import { archiveOffersOfProduct } from './service.js';

// A product archived takes its offers with it.
onProductArchived(archiveOffersOfProduct);

export const offersModule: DomainModule = {
  tag: { name: 'Offers', description: 'Offers: what a product sells at which price, with stock and subscription terms' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
