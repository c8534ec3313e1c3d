// The delivery domain: license keys of key-based products, from the merchant's stock to the buyer
// (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { routes } from './routes.js';

export const deliveryModule: DomainModule = {
  tag: { name: 'Delivery', description: 'What a paid order delivers: license keys of SoftwareKey and GiftCard products (the buyer\'s inventory is under Users)' },
  registerTypes: () => import('./types.js'),
  routes,
};
