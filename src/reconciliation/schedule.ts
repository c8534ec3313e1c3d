// The reconciliation's Temporal Schedule: every RECONCILIATION_INTERVAL_MINUTES (60 by default; 0:
// none) a reconciliationWorkflow on this deployment's task queue, visible in the Temporal UI
// under Schedules as reconciliation/<task queue>. Every worker process makes sure it exists at
// start: created when missing, its interval and action set again when it exists (a changed
// setting takes effect at the next start), so that any number of workers, starting in any order,
// leave one schedule.
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ScheduleOptionsAction, type ScheduleSpec } from '@temporalio/client';

import { intEnv } from '../config.js';
import type { BackgroundTask } from '../domain-module.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';

const log = logger.child({ component: 'reconciliation' });

/** RECONCILIATION_INTERVAL_MINUTES: minutes between scheduled runs; 0 creates no schedule (and leaves an existing one alone). */
export const reconciliationIntervalFromEnv = () => intEnv('RECONCILIATION_INTERVAL_MINUTES', 60);

/** The schedule's id: one per task queue, as the workflows it starts run there. */
export const reconciliationScheduleId = (taskQueue: string) => `reconciliation/${taskQueue}`;

export async function ensureReconciliationSchedule(temporal: TemporalConnection, intervalMinutes: number): Promise<void> {
  const scheduleId = reconciliationScheduleId(temporal.taskQueue);
  const spec: ScheduleSpec = { intervals: [{ every: `${intervalMinutes} minutes` }] };
  // Scheduled workflow ids get the start time appended by Temporal: each run's id is unique and still says what it is.
  const action: ScheduleOptionsAction = { type: 'startWorkflow', workflowType: 'reconciliationWorkflow', taskQueue: temporal.taskQueue, workflowId: scheduleId, args: [] };
  try {
    await temporal.client.schedule.create({ scheduleId, spec, action, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' } });
    log.info({ scheduleId, intervalMinutes }, 'reconciliation schedule created');
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await temporal.client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
}

/** A worker process's part: the schedule made sure of once at start (a failure is logged; the next start tries again). */
export function startReconciliationSchedule(temporal: TemporalConnection): BackgroundTask[] {
  const interval = reconciliationIntervalFromEnv();
  if (interval === 0) return [];
  const ensured = ensureReconciliationSchedule(temporal, interval).catch((error: unknown) => log.error({ err: error }, 'the reconciliation schedule could not be made'));
  return [{ stop: () => ensured }];
}
