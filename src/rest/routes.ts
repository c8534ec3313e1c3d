// The /v0 route table: every public REST path and the GraphQL field that serves it.
// Nothing outside this table is reachable under /v0 (see rest/router.ts).
export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface RestRoute {
  method: HttpMethod;
  path: string;
  field: `Query.${string}` | `Mutation.${string}`;
  summary: string;
}

export const routes: readonly RestRoute[] = [
  // Products
  { method: 'GET', path: '/products/list', field: 'Query.products', summary: 'List products' },
  { method: 'POST', path: '/products/create', field: 'Mutation.createProduct', summary: 'Create a product' },
  { method: 'GET', path: '/products/:productId', field: 'Query.product', summary: 'Get a product' },
  { method: 'PATCH', path: '/products/:productId/update', field: 'Mutation.updateProduct', summary: 'Update a product' },
  { method: 'PATCH', path: '/products/:productId/archive', field: 'Mutation.archiveProduct', summary: 'Archive a product and its offers' },
  { method: 'POST', path: '/products/:productId/duplicate', field: 'Mutation.duplicateProduct', summary: 'Duplicate a product with its variants' },
  { method: 'POST', path: '/products/:productId/variants/add', field: 'Mutation.addVariant', summary: 'Add a variant' },
  { method: 'PATCH', path: '/products/:productId/variants/:variantId/update', field: 'Mutation.updateVariant', summary: 'Update a variant' },
  { method: 'PATCH', path: '/products/:productId/plans/:planId/update', field: 'Mutation.updatePlan', summary: 'Update a plan' },
  // Offers: (added with the offers work)
  // Discounts: (added with the discounts work)
  // Users: (added with the users work)
  // Checkout elements: (added with the checkout elements work)
];
