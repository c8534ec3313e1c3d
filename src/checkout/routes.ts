// The checkout elements routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/elements/checkout/list', field: 'Query.checkoutElements', summary: 'List checkout elements' },
  { method: 'POST', path: '/elements/checkout/create', field: 'Mutation.createCheckoutElement', summary: 'Create a checkout element' },
];
