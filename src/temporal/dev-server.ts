// The local Temporal dev server (`temporal server start-dev`) with its history in
// DATA_DIR/temporal/dev.db. Like the embedded PostgreSQL, one process owns it through a lock
// file (pid and ports); other processes on the same DATA_DIR reuse it, and it dies with its owner.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Connection } from '@temporalio/client';

import { releaseLock, updateLock } from '../db/lockfile.js';
import { freePort, joinOrLaunch, stopChild, SUPERVISOR } from '../local-service.js';
import { MAX_WORKFLOW_ID_LENGTH } from './limits.js';
import { findOrProvisionTemporalCli } from './temporal-cli-binary.js';

export interface DevServer {
  /** host:port of the frontend gRPC service. */
  address: string;
  uiUrl: string;
  /** False when another process on the same DATA_DIR runs it: then stop() leaves it running. */
  owned: boolean;
  /** Rejects when a dev server this process started exits without stop(); never resolves. */
  failure: Promise<never>;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  dataDir: string;
  /** 0 or unset: a free port. */
  port?: number;
  uiPort?: number;
  /** Namespaces to create besides "default". */
  namespaces?: string[];
}

const HOST = '127.0.0.1';
// A fresh database starts in about 2 s on a 2-core machine; leave room for slow ones.
const START_TIMEOUT_MS = 60_000;

export function devServerPaths(dataDir: string) {
  const dir = path.join(path.resolve(dataDir), 'temporal');
  return { dir, dbFile: path.join(dir, 'dev.db'), lockFile: path.join(dir, 'dev-server.lock') };
}

const address = (port: number) => `${HOST}:${port}`;
const uiUrl = (port: number) => `http://${HOST}:${port}`;

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const paths = devServerPaths(options.dataDir);
  await mkdir(paths.dir, { recursive: true });
  return joinOrLaunch(paths.lockFile, {
    what: 'a Temporal dev server',
    timeoutMs: START_TIMEOUT_MS,
    // The owner writes the ports only once the server answers.
    join: ({ port, uiPort }) =>
      port === undefined || uiPort === undefined
        ? undefined
        : { address: address(port), uiUrl: uiUrl(uiPort), owned: false, failure: new Promise<never>(() => undefined), stop: async () => undefined },
    launch: () => launch(paths, options),
  });
}

async function launch(paths: ReturnType<typeof devServerPaths>, options: DevServerOptions): Promise<DevServer> {
  const cli = await findOrProvisionTemporalCli();
  const port = options.port || (await freePort());
  const uiPort = options.uiPort || (await freePort());
  const args = ['server', 'start-dev', '--db-filename', paths.dbFile, '--ip', HOST, '--port', String(port), '--ui-port', String(uiPort), '--log-level', 'warn'];
  // The workflow id limit of a server on SQL persistence (VARCHAR(255)): what works here works there.
  args.push('--dynamic-config-value', `limit.maxIDLength=${MAX_WORKFLOW_ID_LENGTH}`);
  for (const namespace of options.namespaces ?? []) if (namespace !== 'default') args.push('--namespace', namespace);
  const child = spawn('/bin/sh', ['-c', SUPERVISOR, 'temporal-dev-server', cli, ...args], {
    // The server's own output is noise at start; keep its errors to explain a failure.
    stdio: ['pipe', 'ignore', 'pipe'],
    // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it in order.
    detached: true,
  });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-4000);
  });
  const exited = once(child, 'exit');
  let stopped: Promise<void> | undefined;
  const failure = exited.then(([code, signal]): Promise<never> => {
    if (stopped) return new Promise<never>(() => undefined);
    throw new Error(`the Temporal dev server exited (${signal ?? `exit code ${code}`}):\n${errors.trim()}`);
  });
  // Handled here so that a caller without interest in it gets no unhandled rejection.
  failure.catch(() => undefined);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    await Promise.race([untilServing(address(port), deadline), failure]);
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
  await updateLock(paths.lockFile, { pid: process.pid, port, uiPort });
  // This process may exit without stop(): the server follows when its stdin pipe closes.
  child.unref();
  for (const stream of [child.stdin, child.stderr]) (stream as Socket).unref();

  return {
    address: address(port),
    uiUrl: uiUrl(uiPort),
    owned: true,
    failure,
    stop: () => {
      stopped ??= stopChild(child, exited).then(() => releaseLock(paths.lockFile));
      return stopped;
    },
  };
}

/** Waits until the frontend answers a namespace lookup (the dev server creates its namespaces while starting). */
export async function untilServing(target: string, deadline: number, namespace = 'default'): Promise<void> {
  for (;;) {
    try {
      const connection = await Connection.connect({ address: target, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer on ${target}: ${(error as Error).message}`, { cause: error });
    }
    await sleep(200);
  }
}
