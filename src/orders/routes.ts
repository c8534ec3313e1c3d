// The orders routes under /v0, each served by a GraphQL field of ./types.ts. An order is named by
// its id or its number (a leading `#`, sent as %23, is ignored).
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/orders/list', field: 'Query.orders', summary: 'List orders' },
  { method: 'GET', path: '/orders/:orderIdOrNumber', field: 'Query.order', summary: 'Get an order with its cart items, subscription and payments' },
  { method: 'PATCH', path: '/orders/:orderIdOrNumber/cancel', field: 'Mutation.cancelOrder', summary: 'Cancel an order (no refund)' },
  { method: 'PATCH', path: '/orders/:orderIdOrNumber/update', field: 'Mutation.updateOrder', summary: "Write an order's status, value, fee, tax or currency directly" },
];
