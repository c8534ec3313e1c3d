// What the embedded PostgreSQL and the local Temporal dev server share: one of each per DATA_DIR,
// started by the first process that needs it (the owner, named in a lock file with its ports) and
// used by every other process on that directory, on free loopback ports.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { acquireLock, isAlive, readLock, releaseLock, type LockInfo } from './db/lockfile.js';

export interface SharedServiceOptions<T> {
  /** What the lock guards, for the message when its holder never finishes starting it. */
  what: string;
  /** The running service as a user of the owner's sees it; undefined while the owner is still starting it. */
  join(owner: LockInfo): T | undefined | Promise<T | undefined>;
  /** Starts the service while this process holds the lock (launch writes its ports with updateLock). */
  launch(): Promise<T>;
  /** How long to wait for an owner that is starting the service. */
  timeoutMs: number;
}

/**
 * One service per data directory (the embedded PostgreSQL, the Temporal dev server), shared by
 * every process on it: joins the one the lock's live owner runs, waiting while it starts, or
 * takes the lock and launches it. A launch that fails releases the lock.
 */
export async function joinOrLaunch<T>(lockFile: string, options: SharedServiceOptions<T>): Promise<T> {
  for (;;) {
    const running = await waitForOwner(lockFile, options);
    if (running !== undefined) return running;
    // Another process may take the lock between our read and our attempt: then wait for it.
    if (!(await acquireLock(lockFile, { pid: process.pid }))) break;
  }
  try {
    return await options.launch();
  } catch (error) {
    await releaseLock(lockFile);
    throw error;
  }
}

/** The service of the live owner, waiting while it starts; undefined when no live process holds the lock. */
async function waitForOwner<T>(lockFile: string, options: SharedServiceOptions<T>): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const owner = await readLock(lockFile);
    if (!owner || !isAlive(owner.pid)) return undefined;
    const running = await options.join(owner);
    if (running !== undefined) return running;
    if (Date.now() > deadline) {
      throw new Error(`${lockFile} is held by pid ${owner.pid}, which has not started ${options.what}; remove the file if that process is not ours`);
    }
    await sleep(100);
  }
}

/** A port that was free on 127.0.0.1 a moment ago (a starting server may still lose it to another). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// A server that cannot watch its parent (the Temporal dev server and server, PgBouncer) runs under
// a shell: the shell's stdin is a pipe from us, and end of file (we stopped it, or died even by
// SIGKILL) makes it terminate the server. It exits with the server's status when the server exits
// on its own. Spawn it as `sh -c SUPERVISOR <name> <program> <args...>`, detached (a group of its own).
export const SUPERVISOR = `
exec 3<&0
"$@" </dev/null 3<&- &
server=$!
{ read -r _ <&3; kill -TERM "$server" 2>/dev/null; } &
watcher=$!
wait "$server"
status=$?
kill "$watcher" 2>/dev/null
exit $status
`;

const STOP_TIMEOUT_MS = 10_000;

/** Stops a supervised server (closing the shell's stdin), killing its whole group if it does not exit in time. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  const timer = setTimeout(() => {
    // The whole group: the shell and the server.
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  }, STOP_TIMEOUT_MS);
  await exited.catch(() => undefined);
  clearTimeout(timer);
}
