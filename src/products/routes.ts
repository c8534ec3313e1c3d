// The products routes under /v0, each served by a GraphQL field of ./types.ts. Creating a product
// (or a copy of one) can hit the workspace's product limit: 409.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/products/list', field: 'Query.products', summary: 'List products' },
  { method: 'POST', path: '/products/create', field: 'Mutation.createProduct', summary: 'Create a product', errors: [409] },
  { method: 'GET', path: '/products/:productId', field: 'Query.product', summary: 'Get a product' },
  { method: 'PATCH', path: '/products/:productId/update', field: 'Mutation.updateProduct', summary: 'Update a product' },
  { method: 'PATCH', path: '/products/:productId/archive', field: 'Mutation.archiveProduct', summary: 'Archive a product and its offers' },
  { method: 'POST', path: '/products/:productId/duplicate', field: 'Mutation.duplicateProduct', summary: 'Duplicate a product with its variants', errors: [409] },
  { method: 'POST', path: '/products/:productId/variants/add', field: 'Mutation.addVariant', summary: 'Add a variant' },
  { method: 'PATCH', path: '/products/:productId/variants/:variantId/update', field: 'Mutation.updateVariant', summary: 'Update a variant' },
  { method: 'PATCH', path: '/products/:productId/plans/:planId/update', field: 'Mutation.updatePlan', summary: 'Update a plan' },
];
