// Temporal workers on the deployment's task queue: every domain's activities and workflows, as
// src/domains.ts lists them (each domain's module.ts names its activity factory and its workflow
// modules), plus the domains' background tasks (the dispatcher that hands the event outbox to
// webhook delivery, the sandbox's webhook relay).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';

import type { ActivityDependencies, ActivityFunctions } from '../domain-module.js';
import { domains } from '../domains.js';
import { logger } from '../logger.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { TemporalConnection } from './client.js';
import { cachedWorkflowBundle } from './workflow-bundle.js';

// src/temporal/ under tsx, dist/temporal/ once compiled: the project root is two levels up either way.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUNDLE_CACHE_DIR = path.join(root, 'node_modules', '.cache', 'temporal-workflow-bundle');

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

const sdkLogger = logger.child({ component: 'temporal' });
const sdkLog = new DefaultLogger('INFO', ({ level, message, meta }) => sdkLogger[PINO_LEVEL[level]](meta ?? {}, message));

let runtimeInstalled = false;

/**
 * The SDK's runtime, once per process: its logs (and the native core's) go to our logger, and it
 * leaves SIGTERM/SIGINT to us so that shutdown happens in order (worker, connections, database).
 */
function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: sdkLog,
    telemetryOptions: { logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} } },
    shutdownSignals: [],
  });
}

/**
 * Bundles every domain's workflow modules for the sandbox, or takes the cached bundle when no
 * input changed (bundling costs seconds of CPU). Start it early so that it overlaps with starting
 * the database and Temporal, and hand the result to runWorker.
 */
export function bundleWorkflows(): Promise<WorkflowBundle> {
  // Bundled from the TypeScript source, under tsx and compiled alike (the bundler compiles it).
  const workflowModules = domains.flatMap((domain) => domain.workflowModules ?? []).map((module) => path.join(root, module));
  return cachedWorkflowBundle({ root, workflowModules, cacheDir: BUNDLE_CACHE_DIR, logger: sdkLog });
}

/** The union of every domain's activities; two domains naming the same activity is a programming error. */
function domainActivities(deps: ActivityDependencies): ActivityFunctions {
  const activities: ActivityFunctions = {};
  for (const domain of domains) {
    for (const [name, activity] of Object.entries(domain.createActivities?.(deps) ?? {})) {
      if (name in activities) throw new Error(`Two domains define the activity ${name}`);
      activities[name] = activity;
    }
  }
  return activities;
}

export interface RunningWorker {
  taskQueue: string;
  /** Rejects when the worker stops without shutdown() (it failed); never resolves. */
  failure: Promise<never>;
  /** Stops the background tasks and polling, lets in-flight tasks finish, then closes the worker's connection. */
  shutdown(): Promise<void>;
}

/**
 * The worker side of a process (`npm run worker`, or the server unless WORKER_IN_PROCESS=false):
 * a Temporal worker running the activities on the cluster of `temporal` and, as in every worker
 * process, the domains' background tasks (the event dispatcher, the sandbox's webhook relay); until shutdown().
 */
export async function runWorker(prisma: PrismaClient, temporal: TemporalConnection, workflowBundle: WorkflowBundle): Promise<RunningWorker> {
  installRuntime();
  const connection = await NativeConnection.connect(temporal.connectionOptions);
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: temporal.namespace,
      taskQueue: temporal.taskQueue,
      workflowBundle,
      activities: domainActivities({ prisma, temporal }),
      // In-flight activities (a webhook delivery) get this long to finish when the process stops.
      shutdownGraceTime: '10 seconds',
    });
  } catch (error) {
    await connection.close();
    throw error;
  }
  const done = worker.run();
  const backgroundTasks = domains.flatMap((domain) => domain.startBackgroundTasks?.({ prisma, temporal }) ?? []);
  let stopped: Promise<void> | undefined;
  const failure = new Promise<never>((_, reject) => {
    done.then(
      () => stopped || reject(new Error('the Temporal worker stopped')),
      (error: unknown) => stopped || reject(error),
    );
  });
  return {
    taskQueue: temporal.taskQueue,
    failure,
    shutdown() {
      stopped ??= (async () => {
        await Promise.all(backgroundTasks.map((task) => task.stop()));
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done.catch(() => undefined);
        await connection.close();
      })();
      return stopped;
    },
  };
}
