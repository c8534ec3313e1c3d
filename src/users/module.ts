// The users domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';
import { routes } from './routes.js';

export const usersModule: DomainModule = {
  tag: { name: 'Users', description: 'Buyers of the workspace and what they own' },
  registerTypes: () => import('./types.js'),
  routes,
  events,
};
