// The database to use: DATABASE_URL when set, otherwise the embedded PostgreSQL (PGlite in a
// child process, see pglite-server.ts) with its data under DATA_DIR (default ./.data).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { isTuningFlag } from '../node-flags.js';
import { isAlive, readLock } from './lockfile.js';
import type { ServerMessage } from './pglite-server.js';

export interface Database {
  url: string;
  /** True when the database is the embedded PGlite. */
  embedded: boolean;
  /** Stops what connectDatabase started; a no-op for a database it did not start. */
  close(): Promise<void>;
}

// A first start runs initdb (about 4 s on a 2-core machine); leave room for slow machines.
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export function embeddedPaths(dataDir = process.env.DATA_DIR ?? '.data') {
  const dir = path.resolve(dataDir);
  return { dir, pgliteDir: path.join(dir, 'pglite'), lockFile: path.join(dir, 'pglite.lock') };
}

export function embeddedUrl(port: number): string {
  return `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
}

export async function connectDatabase(): Promise<Database> {
  const configured = process.env.DATABASE_URL;
  if (configured) return { url: configured, embedded: false, close: async () => undefined };

  const { dir, lockFile } = embeddedPaths();
  const runningPort = await waitForOwner(lockFile);
  if (runningPort !== undefined) return shared(runningPort);

  const child = spawnServer(dir);
  const message = await firstMessage(child);
  if (message.type === 'ready') {
    // Let this process exit without close(); the server follows when the IPC channel closes.
    child.unref();
    child.channel?.unref();
    return { url: embeddedUrl(message.port), embedded: true, close: stopper(child) };
  }
  await exited(child);
  if (message.type === 'error') throw new Error(message.message);
  // Another process started a server for this directory at the same moment: use that one.
  const port = await waitForOwner(lockFile);
  if (port === undefined) throw new Error(`the embedded PostgreSQL in ${dir} stopped while starting`);
  return shared(port);
}

function shared(port: number): Database {
  return { url: embeddedUrl(port), embedded: true, close: async () => undefined };
}

/**
 * The port of the live server that holds the lock, waiting while it starts;
 * undefined when no live process holds the lock.
 */
async function waitForOwner(lockFile: string): Promise<number | undefined> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const owner = await readLock(lockFile);
    if (!owner || !isAlive(owner.pid)) return undefined;
    if (owner.port !== undefined && (await accepts(owner.port))) return owner.port;
    if (Date.now() > deadline) {
      throw new Error(
        `${lockFile} is held by pid ${owner.pid}, which does not accept connections` +
          `${owner.port === undefined ? '' : ` on port ${owner.port}`}; remove the file if that process is not the embedded PostgreSQL`,
      );
    }
    await sleep(100);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function spawnServer(dir: string) {
  const self = fileURLToPath(import.meta.url);
  // The same extension as this file: .ts under tsx, .js once compiled.
  const script = path.join(path.dirname(self), `pglite-server${path.extname(self)}`);
  // Same Node and loader flags (tsx registers itself there); debugger flags would clash on the
  // port, and the memory flags of src/node-flags.ts would slow the database down.
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--inspect') && !isTuningFlag(arg));
  return spawn(process.execPath, [...execArgv, script], {
    env: { ...process.env, DATA_DIR: dir },
    // The server's output goes to our stderr: our stdout may be a structured log.
    stdio: ['ignore', 2, 'inherit', 'ipc'],
    // Its own process group, so a terminal's Ctrl-C reaches only us and we stop it in order.
    detached: true,
  });
}

type ServerProcess = ReturnType<typeof spawnServer>;

async function firstMessage(child: ServerProcess): Promise<ServerMessage> {
  const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
  try {
    return await new Promise<ServerMessage>((resolve, reject) => {
      child.once('message', (message) => resolve(message as ServerMessage));
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        reject(new Error(`the embedded PostgreSQL exited while starting (${signal ?? `exit code ${code}`})`)),
      );
    });
  } finally {
    clearTimeout(timer);
  }
}

async function exited(child: ServerProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
}

function stopper(child: ServerProcess): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      const exit = exited(child);
      child.kill('SIGTERM');
      // PGlite's files survive a kill; this is only for a server that hangs while stopping.
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exit;
      clearTimeout(timer);
    })();
    return stopped;
  };
}
