// The payments domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { createPaymentActivities } from './activities.js';
import { events } from './events.js';
import { onOrderCancelled } from '../orders/index.js';
import { foreignProcessorEvents, signalOrderCancelRequests } from './processor-callbacks.js';
import { routes } from './routes.js';
import { startSandboxWebhookRelays } from './sandbox-webhook-relay.js';

// An order cancelled: the cancel requests it recorded on its pending payments go to their workflows.
onOrderCancelled((deps, _scope, orderId) => signalOrderCancelRequests(deps.prisma, deps.temporal, orderId));

export const paymentsModule: DomainModule = {
  tag: { name: 'Payments', description: "Payments: an order's first payment, a subscription's renewals, their charges at the processor" },
  registerTypes: () => Promise.all([import('./types.js'), import('./card-types.js')]),
  routes,
  endpoints: [
    {
      path: '/processor-webhooks/:processor',
      methods: ['POST'],
      handle: async (endpoint) => (await import('./processor-webhook-endpoint.js')).handleProcessorWebhook(endpoint),
    },
  ],
  events,
  createActivities: createPaymentActivities,
  startBackgroundTasks: startSandboxWebhookRelays,
  metrics: () => [foreignProcessorEvents],
  workflowModules: ['workflows/payment.ts'],
};
