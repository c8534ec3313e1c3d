import { proxyActivities } from '@temporalio/workflow';

import type { ReconciliationActivities, RunSummary } from '../src/reconciliation/activities.js';

// A run lists the processor's last two days page by page: minutes on a busy account. Three tries:
// the next scheduled run comes within the hour anyway.
const { reconcileWithProcessor } = proxyActivities<ReconciliationActivities>({
  startToCloseTimeout: '30 minutes',
  retry: { maximumAttempts: 3, initialInterval: '10 seconds', backoffCoefficient: 2 },
});

/** One reconciliation with the processor, started by the schedule (src/reconciliation/schedule.ts); returns the run's counts. */
export async function reconciliationWorkflow(): Promise<RunSummary> {
  return reconcileWithProcessor();
}
