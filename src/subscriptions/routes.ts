// The subscriptions routes under /v0, each served by a GraphQL field of ./types.ts. A subscription
// is named by its number (its id); a leading `#` resolves to nothing (the contract).
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/subscriptions/list', field: 'Query.subscriptions', summary: 'List subscriptions, newest first, with a cursor' },
  { method: 'GET', path: '/subscriptions/:subscriptionIdOrNumber', field: 'Query.subscription', summary: 'Get a subscription with its items, buyer and payments' },
];
