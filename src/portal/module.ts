// The customer portal domain: the deep-link route under /v0 and the buyer portal's pages (see
// src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import type { HttpEndpoint } from '../http/endpoint.js';
import { PORTAL_PATH } from './base-url.js';
import { PORTAL_BUDGETS } from './budgets.js';
import { routes } from './routes.js';

// One handler for every depth of /portal/{workspaceId}/…; it routes the rest itself (./endpoint.ts).
const depths = ['', '/:a', '/:a/:b', '/:a/:b/:c', '/:a/:b/:c/:d/:e'];

export const portalModule: DomainModule = {
  tag: { name: 'Customer portal', description: "Deep links into the buyers' self-service portal" },
  registerTypes: () => import('./types.js'),
  routes,
  rateLimits: PORTAL_BUDGETS,
  endpoints: depths.map(
    (rest): HttpEndpoint => ({ path: `${PORTAL_PATH}/:workspaceId${rest}`, methods: ['GET', 'POST'], handle: async (endpoint) => (await import('./endpoint.js')).servePortal(endpoint) }),
  ),
};
