// The tax domain: what it contributes to the service (see src/domain-module.ts). Other domains
// call calculateTax (./calculate.ts) directly: the checkout, and subscription renewals.
import type { DomainModule } from '../domain-module.js';
import { routes } from './routes.js';

export const taxModule: DomainModule = {
  tag: { name: 'Tax', description: 'Tax calculation: VAT, GST, HST, PST, QST and US sales tax on digital goods' },
  registerTypes: () => import('./types.js'),
  routes,
};
