// The refunds routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'PATCH', path: '/orders/:orderIdOrNumber/refund', field: 'Mutation.refundOrder', summary: 'Refund an order in full or in part through the card processor', errors: [403, 503] },
  { method: 'GET', path: '/orders/:orderIdOrNumber/refundable', field: 'Query.orderRefundable', summary: 'What a refund of the order could take now', errors: [503] },
];
