// The customer portal domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { routes } from './routes.js';

export const portalModule: DomainModule = {
  tag: { name: 'Customer portal', description: "Deep links into the buyers' self-service portal" },
  registerTypes: () => import('./types.js'),
  routes,
};
