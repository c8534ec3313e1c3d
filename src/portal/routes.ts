// The customer portal route under /v0, served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [{ method: 'GET', path: '/portal/url', field: 'Query.portalUrl', summary: 'Resolve a customer-portal deep link', errors: [404] }];
