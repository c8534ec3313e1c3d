import { proxyActivities } from '@temporalio/workflow';

import type { HealthActivities, HealthReport } from '../src/platform/activities.js';

const { checkDatabase } = proxyActivities<HealthActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second' },
});

/** Proves a worker polls the task queue and reaches the database; returns who answered. */
export async function platformHealthCheck(): Promise<HealthReport> {
  return checkDatabase();
}
