// The reconciliation domain: our books against the processor's (see src/domain-module.ts). No
// routes: an operator runs it (`npm run cli -- reconcile`) and a Temporal Schedule does, hourly.
import type { DomainModule } from '../domain-module.js';
import { createReconciliationActivities } from './activities.js';
import { reconciliationGauge } from './metrics.js';
import { startReconciliationSchedule } from './schedule.js';

export const reconciliationModule: DomainModule = {
  createActivities: createReconciliationActivities,
  startBackgroundTasks: ({ temporal }) => startReconciliationSchedule(temporal),
  metrics: ({ prisma }) => [reconciliationGauge(prisma)],
  workflowModules: ['workflows/reconciliation.ts'],
};
