import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { config } from './config.js';
import { createPrismaClient } from './db/client.js';
import { createNotifications } from './db/notifications.js';
import { connectDatabase } from './db/embedded.js';
import { migrateDeploy } from './db/migrate.js';
import { buildSchemas } from './graphql/schema.js';
import { createApp } from './http/app.js';
import { answerNodeErrors } from './http/client-errors.js';
import { createMetrics } from './http/metrics.js';
import { connectRateLimitStore, createRateLimiter, createRateLimits } from './http/rate-limit.js';
import { domains, rateLimitRules } from './domains.js';
import { logger } from './logger.js';
import { DOCS_HEADERS, DOCS_SCRIPT_PATH, docsHtml, docsScript } from './rest/docs-page.js';
import { openApiDocument } from './rest/openapi.js';
import { connectTemporal } from './temporal/client.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from './payments/index.js';
import { webhookAllowHostsFromEnv } from './webhooks/index.js';

export interface RunningServer {
  url: string;
  temporal: {
    address: string;
    namespace: string;
    taskQueue: string;
    /** The dev server's web UI; undefined for a configured cluster. */
    uiUrl?: string;
    /** Whether this process runs a worker (WORKER_IN_PROCESS). */
    worker: boolean;
  };
  /** Rejects when a part running in the background (dev server, in-process worker) fails. */
  failure: Promise<never>;
  close(): Promise<void>;
}

/**
 * Connects (or starts) the database and Temporal, applies pending migrations, runs a worker
 * unless WORKER_IN_PROCESS=false, and serves HTTP.
 */
export async function startServer(options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  // A misconfigured SSRF allow-list (e.g. set in production) stops the start, not a later request.
  webhookAllowHostsFromEnv();
  // The worker SDK is loaded only where a worker runs: an API-only process stays smaller.
  const workerModule = config.temporal.workerInProcess ? import('./temporal/worker.js') : undefined;
  const workflowBundle = workerModule?.then((module) => module.bundleWorkflows());
  // Awaited below; a failure is reported there, not as an unhandled rejection meanwhile.
  workflowBundle?.catch(() => undefined);
  // Both may start a server process (the embedded PostgreSQL, the Temporal dev server): start them side by side.
  const [database, temporal] = await Promise.all([
    connectDatabase().then(async (db) => {
      const applied = await migrateDeploy(db.directUrl);
      if (applied.length) logger.info({ applied }, 'migrations applied');
      return db;
    }),
    connectTemporal(),
  ]);
  const prisma = createPrismaClient(database.url);
  const notifications = createNotifications(database.directUrl);
  const worker = workerModule && workflowBundle ? await (await workerModule).runWorker(prisma, temporal, await workflowBundle) : undefined;
  const processor = createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma });
  const schemas = await buildSchemas();
  // One Redis connection (REDIS_URL) for every limiter of the process: the edge limit and the domains' budgets.
  const rateLimitStore = await connectRateLimitStore(config.redisUrl);
  await rateLimitStore.ready();
  const app = await createApp({
    prisma,
    temporal,
    notifications,
    schema: schemas.client,
    subgraphSchema: schemas.subgraph,
    metrics: createMetrics(domains.flatMap((domain) => domain.metrics?.({ prisma }) ?? [])),
    rateLimiter: createRateLimiter(rateLimitStore, config.rateLimit),
    rateLimits: createRateLimits(rateLimitStore, rateLimitRules, config.rateLimit.keyPrefix),
    trustedProxies: config.trustedProxies,
    maxBodyBytes: config.maxBodyBytes,
    processor,
    documents: { openApi: () => openApiDocument(schemas.client), docsHtml, docsHeaders: DOCS_HEADERS, docsScript, docsScriptPath: DOCS_SCRIPT_PATH },
  });
  const server = http.createServer(app);
  answerNodeErrors(server);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, options.host ?? config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    temporal: { address: temporal.address, namespace: temporal.namespace, taskQueue: temporal.taskQueue, uiUrl: temporal.uiUrl, worker: Boolean(worker) },
    failure: Promise.race([temporal.failure, ...(worker ? [worker.failure] : [])]),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // Workers first (in-flight activities still use the database), then Temporal, then the database.
      await worker?.shutdown();
      await temporal.stop();
      await notifications.close();
      await prisma.$disconnect();
      await rateLimitStore.close();
      await database.close();
    },
  };
}
