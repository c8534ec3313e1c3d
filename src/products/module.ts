// The products domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const productsModule: DomainModule = {
  tag: { name: 'Products', description: 'Products, their variants (plans) and their media' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
