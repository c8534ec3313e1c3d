// The checkout routes: the checkout elements under /v0 (API keys), and the hosted checkout's buyer
// routes at their own path (no keys: the element id names the workspace and mode). Each is served
// by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/elements/checkout/list', field: 'Query.checkoutElements', summary: 'List checkout elements' },
  { method: 'POST', path: '/elements/checkout/create', field: 'Mutation.createCheckoutElement', summary: 'Create a checkout element' },
  { method: 'POST', path: '/checkout/:checkoutElementId/quote', audience: 'buyer', field: 'Query.checkoutQuote', summary: 'Quote an order through a checkout element (buyer route, no keys)', errors: [422] },
  {
    method: 'POST',
    path: '/checkout/:checkoutElementId/orders',
    audience: 'buyer',
    idempotencyKey: true,
    field: 'Mutation.createCheckoutOrder',
    summary: 'Place and pay an order through a checkout element (buyer route, no keys)',
    errors: [402, 422, 503],
  },
];
