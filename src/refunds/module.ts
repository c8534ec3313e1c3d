// The refunds domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { createRefundActivities } from './activities.js';
import { events } from './events.js';
import { onStrandedCharge, onProcessorRefundEvents } from '../payments/index.js';
import { startRefundOutbox } from './outbox.js';
import { handleRefundEvent } from './processor-events.js';
import { routes } from './routes.js';
import { refundStrandedCharge } from './stranded.js';

// The processor's refund events and late successes reach the refunds through the payments' webhook path.
onProcessorRefundEvents(handleRefundEvent);
onStrandedCharge(refundStrandedCharge);

export const refundsModule: DomainModule = {
  tag: { name: 'Refunds', description: "Refunds: an order's money given back through its payments' processor, durable and idempotent" },
  registerTypes: () => import('./types.js'),
  routes,
  events,
  createActivities: createRefundActivities,
  startBackgroundTasks: (deps) => [startRefundOutbox(deps)],
  workflowModules: ['workflows/refund.ts'],
};
