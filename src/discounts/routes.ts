// The discounts routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/discounts/list', field: 'Query.discounts', summary: 'List discounts' },
  { method: 'POST', path: '/discounts/create', field: 'Mutation.createDiscount', summary: 'Create a discount' },
  { method: 'GET', path: '/discounts/:discountId', field: 'Query.discount', summary: 'Get a discount with its usage, offers and products' },
  { method: 'PATCH', path: '/discounts/:discountId/update', field: 'Mutation.updateDiscount', summary: 'Update a discount' },
  { method: 'PATCH', path: '/discounts/:discountId/archive', field: 'Mutation.archiveDiscount', summary: 'Archive a discount' },
];
