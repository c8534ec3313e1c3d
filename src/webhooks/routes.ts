// The webhooks routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/webhooks/list', field: 'Query.webhooks', summary: 'List all webhooks (secrets masked)' },
  { method: 'POST', path: '/webhooks/create', field: 'Mutation.createWebhook', summary: 'Create a webhook (returns the full secret)' },
  { method: 'POST', path: '/webhooks/sendTestEvent', field: 'Mutation.sendTestEvent', summary: 'Send a synthetic event to the subscribed webhooks' },
  { method: 'GET', path: '/webhooks/:webhookId', field: 'Query.webhook', summary: 'Get a webhook (secret masked)' },
  { method: 'PATCH', path: '/webhooks/:webhookId/update', field: 'Mutation.updateWebhook', summary: 'Update a webhook (returns the full secret)' },
  { method: 'PATCH', path: '/webhooks/:webhookId/archive', field: 'Mutation.archiveWebhook', summary: 'Archive a webhook, freeing its slot' },
  { method: 'GET', path: '/webhooks/:webhookId/attempts', field: 'Query.webhookAttempts', summary: 'List delivery attempts' },
];
