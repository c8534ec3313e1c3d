// The payments routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/payments/list', field: 'Query.payments', summary: 'List payments' },
  { method: 'GET', path: '/payments/:paymentId', field: 'Query.payment', summary: 'Get a payment with its buyer, order, subscription, charges and invoice' },
  { method: 'PATCH', path: '/payments/:paymentId/cancel', field: 'Mutation.cancelPayment', summary: 'Ask to cancel a pending card payment' },
];
