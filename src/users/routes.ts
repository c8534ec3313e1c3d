// The users routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/users/list', field: 'Query.users', summary: 'List users (page pagination)' },
  { method: 'POST', path: '/users/create', field: 'Mutation.createUser', summary: 'Create a user' },
  { method: 'PATCH', path: '/users/:userId/archive', field: 'Mutation.archiveUser', summary: 'Archive a user' },
  { method: 'GET', path: '/users/:userId/inventory', field: 'Query.userInventory', summary: "List the items a user owns (page pagination)" },
];
