// The customer portal routes under /v0, each served by a GraphQL field of ./types.ts: the
// contract's deep link, and (beyond it) a buyer's single-use sign-in into the portal.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/portal/url', field: 'Query.portalUrl', summary: 'Resolve a customer-portal deep link', errors: [404] },
  {
    method: 'POST',
    path: '/portal/sessions',
    field: 'Mutation.createPortalSession',
    summary: "Mint a buyer's single-use sign-in URL into the customer portal, landing on a deep link (call from the back end, then redirect the buyer)",
    errors: [404],
  },
];
