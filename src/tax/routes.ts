// The tax route under /v0, served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'POST', path: '/tax/calculate', field: 'Mutation.calculateTax', summary: 'Calculate the tax on a product or offer for a location', errors: [404, 422] },
];
