// The /v0 route table: every public REST path and the GraphQL field that serves it.
// Nothing outside this table is reachable under /v0 (see rest/router.ts).
import type { GraphQLField, GraphQLSchema } from 'graphql';

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
  // Offers
  { method: 'GET', path: '/offers/list', field: 'Query.offers', summary: 'List offers' },
  { method: 'POST', path: '/offers/create', field: 'Mutation.createOffer', summary: 'Create an offer' },
  { method: 'GET', path: '/offers/:offerId', field: 'Query.offer', summary: 'Get offer details with its product, variant and inventory' },
  { method: 'PATCH', path: '/offers/:offerId/update', field: 'Mutation.updateOffer', summary: 'Update an offer' },
  { method: 'PATCH', path: '/offers/:offerId/archive', field: 'Mutation.archiveOffer', summary: 'Archive an offer' },
  // Discounts
  { method: 'GET', path: '/discounts/list', field: 'Query.discounts', summary: 'List discounts' },
  { method: 'POST', path: '/discounts/create', field: 'Mutation.createDiscount', summary: 'Create a discount' },
  { method: 'GET', path: '/discounts/:discountId', field: 'Query.discount', summary: 'Get a discount with its usage, offers and products' },
  { method: 'PATCH', path: '/discounts/:discountId/update', field: 'Mutation.updateDiscount', summary: 'Update a discount' },
  { method: 'PATCH', path: '/discounts/:discountId/archive', field: 'Mutation.archiveDiscount', summary: 'Archive a discount' },
  // Users
  { method: 'GET', path: '/users/list', field: 'Query.users', summary: 'List users (page pagination)' },
  { method: 'POST', path: '/users/create', field: 'Mutation.createUser', summary: 'Create a user' },
  { method: 'PATCH', path: '/users/:userId/archive', field: 'Mutation.archiveUser', summary: 'Archive a user' },
  { method: 'GET', path: '/users/:userId/inventory', field: 'Query.userInventory', summary: "List the items a user owns (page pagination)" },
  // Checkout elements
  { method: 'GET', path: '/elements/checkout/list', field: 'Query.checkoutElements', summary: 'List checkout elements' },
  { method: 'POST', path: '/elements/checkout/create', field: 'Mutation.createCheckoutElement', summary: 'Create a checkout element' },
  // Webhooks
  { method: 'GET', path: '/webhooks/list', field: 'Query.webhooks', summary: 'List all webhooks (secrets masked)' },
  { method: 'POST', path: '/webhooks/create', field: 'Mutation.createWebhook', summary: 'Create a webhook (returns the full secret)' },
  { method: 'POST', path: '/webhooks/sendTestEvent', field: 'Mutation.sendTestEvent', summary: 'Send a synthetic event to the subscribed webhooks' },
  { method: 'GET', path: '/webhooks/:webhookId', field: 'Query.webhook', summary: 'Get a webhook (secret masked)' },
  { method: 'PATCH', path: '/webhooks/:webhookId/update', field: 'Mutation.updateWebhook', summary: 'Update a webhook (returns the full secret)' },
  { method: 'PATCH', path: '/webhooks/:webhookId/archive', field: 'Mutation.archiveWebhook', summary: 'Archive a webhook, freeing its slot' },
  { method: 'GET', path: '/webhooks/:webhookId/attempts', field: 'Query.webhookAttempts', summary: 'List delivery attempts' },
];

/** The GraphQL field a route serves; a route naming a missing field is a programming error. */
export function routeField(schema: GraphQLSchema, route: RestRoute): GraphQLField<unknown, unknown> {
  const [typeName, fieldName] = route.field.split('.') as [string, string];
  const field = (typeName === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[fieldName];
  if (!field) throw new Error(`Route ${route.method} ${route.path} names a missing field ${route.field}`);
  return field;
}
