import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { config } from './config.js';
import { createPrismaClient } from './db/client.js';
import { connectDatabase } from './db/embedded.js';
import { migrateDeploy } from './db/migrate.js';
import { buildSchemas } from './graphql/schema.js';
import { createApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter } from './http/rate-limit.js';
import { logger } from './logger.js';
import { docsHtml, openApiDocument } from './rest/openapi.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Connects (or starts) the database, applies pending migrations and serves HTTP. */
export async function startServer(options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const database = await connectDatabase();
  const applied = await migrateDeploy(database.url);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  const prisma = createPrismaClient(database.url);
  const schemas = buildSchemas();
  const rateLimiter = createRateLimiter();
  const app = createApp({
    prisma,
    schema: schemas.client,
    subgraphSchema: schemas.subgraph,
    metrics: createMetrics(),
    rateLimiter,
    trustProxy: config.trustProxy,
    documents: { openApi: () => openApiDocument(schemas.client), docsHtml: () => docsHtml() },
  });
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.port, options.host ?? config.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host ?? config.host}:${port}`;
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await prisma.$disconnect();
      await rateLimiter.close();
      await database.close();
    },
  };
}
