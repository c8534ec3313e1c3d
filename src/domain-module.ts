// What one domain contributes to the service. src/domains.ts lists the domains; the GraphQL schema,
// the route table, the other HTTP endpoints, the OpenAPI tags, the event types, the rate limits, the worker's activities and the workflow
// bundle are assembled from that list, so adding a domain touches that list and nothing else shared.
import type { RateLimitRule } from './core/rate-limits.js';
import type { Metric } from 'prom-client';

import type { EventDefinitions } from './events/event-types.js';
import type { PrismaClient } from './generated/prisma/client.js';
import type { HttpEndpoint } from './http/endpoint.js';
import type { RestRoute } from './rest/route.js';
import type { TemporalConnection } from './temporal/client.js';

/** What activities may use; built once per worker process. */
export interface ActivityDependencies {
  prisma: PrismaClient;
  /** Activities may start or signal workflows. */
  temporal: TemporalConnection;
}

/** Activities are plain async functions; a domain returns them from its factory. */
export type ActivityFunctions = Record<string, (...args: never[]) => Promise<unknown>>;

/** A loop a worker process runs beside its activities (an outbox poller), until stopped. */
export interface BackgroundTask {
  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void>;
}

export interface DomainModule {
  /** The OpenAPI tag of the domain's routes. */
  tag?: { name: string; description: string };
  /**
   * Registers the domain's GraphQL types and fields on the shared builder (its types.ts). `events`
   * is every domain's event types, for a domain that works on all of them (webhooks).
   */
  registerTypes?: (shared: { events: EventDefinitions }) => Promise<unknown>;
  /** Its /v0 routes, each served by one of its GraphQL fields. */
  routes?: readonly RestRoute[];
  /** Its HTTP endpoints that are not routes (pages, webhook ingresses). */
  endpoints?: readonly HttpEndpoint[];
  /** The event types it records (webhooks subscribe to them), each with its test-event sample. */
  events?: EventDefinitions;
  /** The budgets its services spend (ctx.rateLimits); the server builds their limiters at start. */
  rateLimits?: readonly RateLimitRule[];
  createActivities?: (deps: ActivityDependencies) => ActivityFunctions;
  /** Its background loops, started by every worker process. */
  startBackgroundTasks?: (deps: ActivityDependencies) => BackgroundTask[];
  /** Its Prometheus metrics, served by every API process's /metrics (collected when scraped). */
  metrics?: (deps: { prisma: PrismaClient }) => Metric[];
  /** Its workflow modules, relative to the project root (bundled together for the workflow sandbox). */
  workflowModules?: readonly string[];
}
