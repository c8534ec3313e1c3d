// The webhooks domain: what it contributes to the service (see src/domain-module.ts).
import { config } from '../config.js';
import type { DomainModule } from '../domain-module.js';
import { createWebhookActivities } from './activities.js';
import { startEventDispatcher } from './dispatcher.js';
import { routes } from './routes.js';

export const webhooksModule: DomainModule = {
  tag: { name: 'Webhooks', description: 'Receivers of signed events, their deliveries and test events' },
  registerTypes: async ({ events: known }) => (await import('./types.js')).registerWebhookTypes(known),
  routes,
  createActivities: createWebhookActivities,
  // The dispatcher hands the event outbox to webhook delivery (EVENT_DISPATCH=false: not in this process).
  startBackgroundTasks: ({ prisma, temporal }) => (config.webhooks.dispatchEvents ? [startEventDispatcher(prisma, temporal)] : []),
  workflowModules: ['workflows/webhook-delivery.ts'],
};
