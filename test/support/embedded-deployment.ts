import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { Client, Connection } from '@temporalio/client';

import type { Workspace } from './api.js';
import { embeddedDatabaseUrl } from './database.js';
import { freePort, runCli, startProcess, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './processes.js';

/**
 * A deployment of the kill tests' own: the embedded default database (a PostgreSQL of its own in a
 * fresh DATA_DIR, as `npm run db:embedded` keeps one up), an API process (WORKER_IN_PROCESS=false)
 * and a worker process as a deployment runs them, on the suite's Temporal and a task queue of their
 * own, and one workspace made with the CLI. A test that kills the API or the worker starts it again
 * with `env` (the API on the same port, so that its clients keep their address) and puts it back.
 */
export interface EmbeddedDeployment {
  env: Record<string, string>;
  api: ServerProcess;
  worker: StartedProcess;
  ws: Workspace;
  /** The embedded PostgreSQL's URL, for reading the books directly. */
  databaseUrl: string;
  /** A client of the suite's Temporal, for the workflows' states. */
  temporal: Client;
  stop(): Promise<void>;
}

/** Starts an embedded deployment named `name` (its task queue and workspace); `settings` are `workspace set` pairs such as `testMode=true`. */
export async function startEmbeddedDeployment(name: string, settings: string[] = []): Promise<EmbeddedDeployment> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `commerce-${name}-`));
  // DATABASE_URL empty: the embedded default, found by every process through DATA_DIR's lock file.
  const embedded = { DATA_DIR: dataDir, DATABASE_URL: '' };
  const database = await startProcess('src/db/serve-embedded.ts', embedded, /Embedded PostgreSQL ready at /, 120_000);
  const env = {
    ...embedded,
    PORT: String(await freePort()),
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `${name}-${randomUUID()}`,
    WORKER_IN_PROCESS: 'false',
    RATE_LIMIT_POINTS: '1000000',
  };
  const [api, worker] = await Promise.all([startServerProcess(env), startWorkerProcess(env)]);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', name], embedded);
  if (settings.length > 0) await runCli(['workspace', 'set', ws.workspaceId, ...settings], embedded);
  const temporal = new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });
  const deployment: EmbeddedDeployment = {
    env,
    api,
    worker,
    ws,
    databaseUrl: await embeddedDatabaseUrl(dataDir),
    temporal,
    async stop() {
      await temporal.connection.close();
      for (const started of [deployment.api, deployment.worker]) await started.stop('SIGKILL');
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return deployment;
}
