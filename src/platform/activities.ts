// The platform's end-to-end probe for operators and tests: a worker takes the workflow from its
// task queue and reaches the database (workflows/platform-health-check.ts).
import os from 'node:os';

import { Context } from '@temporalio/activity';

import type { ActivityDependencies } from '../domain-module.js';

export interface HealthReport {
  /** Which worker process ran the activity. */
  workerPid: number;
  workerHost: string;
  taskQueue: string;
  /** Round trip of `SELECT 1`. */
  databaseMs: number;
}

export function createHealthActivities({ prisma }: ActivityDependencies) {
  return {
    async checkDatabase(): Promise<HealthReport> {
      const started = performance.now();
      await prisma.$queryRaw`SELECT 1`;
      return {
        workerPid: process.pid,
        workerHost: os.hostname(),
        taskQueue: Context.current().info.taskQueue,
        databaseMs: Math.round((performance.now() - started) * 10) / 10,
      };
    },
  };
}

export type HealthActivities = ReturnType<typeof createHealthActivities>;
