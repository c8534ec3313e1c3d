// The one registry of activities the workers run. Each domain keeps its activities beside its
// service and adds its factory here; workflows type their proxies with `Activities`.
import type { PrismaClient } from '../generated/prisma/client.js';
import { createWebhookActivities } from '../webhooks/activities.js';
import { createHealthActivities } from '../platform/activities.js';

/** What activities may use; built once per worker process. */
export interface ActivityDependencies {
  prisma: PrismaClient;
}

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createHealthActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
