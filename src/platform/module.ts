// The platform's health probe on Temporal: an activity and a workflow that prove a worker polls
// the task queue and reaches the database, plus the no-op workflow the benchmarks time.
import type { DomainModule } from '../domain-module.js';
import { createHealthActivities } from './activities.js';

export const platformModule: DomainModule = {
  createActivities: createHealthActivities,
  workflowModules: ['workflows/platform-health-check.ts', 'workflows/bench-noop.ts'],
};
