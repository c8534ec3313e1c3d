// The embedded PostgreSQL: PGlite served over the PostgreSQL wire protocol from its own process,
// so its queries never block the app's event loop. embedded.ts starts it with an IPC channel;
// `tsx src/db/pglite-server.ts` runs it by hand for processes to share (they find it through
// the lock file). It owns the data directory through the lock file, since PGlite has no lock.
import { mkdir } from 'node:fs/promises';

import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

import { embeddedPaths, embeddedUrl } from './embedded.js';
import { acquireLock, releaseLock, updateLock } from './lockfile.js';

/** What the server tells its parent over IPC: exactly one message. */
export type ServerMessage =
  | { type: 'ready'; port: number }
  | { type: 'busy'; pid: number }
  | { type: 'error'; message: string };

// Well above the app's pool size: PGLiteSocketServer refuses connections beyond this.
const MAX_CONNECTIONS = 50;

const paths = embeddedPaths();
const port = Number(process.env.PGLITE_PORT ?? 0);
let db: PGlite | undefined;
let server: PGLiteSocketServer | undefined;

// Resolves once the message is sent: the process may exit right after.
async function report(message: ServerMessage): Promise<void> {
  const send = process.send?.bind(process);
  if (send) await new Promise<void>((resolve) => send(message, undefined, undefined, () => resolve()));
  else if (message.type === 'ready') console.log(`embedded PostgreSQL ready at ${embeddedUrl(message.port)}`);
  else if (message.type === 'busy') console.error(`${paths.dir} is already served by pid ${message.pid}`);
  else console.error(message.message);
}

async function start(): Promise<boolean> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PGLITE_PORT is not a port: ${port}`);
  await mkdir(paths.dir, { recursive: true });
  const owner = await acquireLock(paths.lockFile, { pid: process.pid });
  if (owner) {
    await report({ type: 'busy', pid: owner.pid });
    return false;
  }
  db = await PGlite.create(paths.pgliteDir);
  server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: MAX_CONNECTIONS });
  await server.start();
  const listening = Number(server.getServerConn().split(':').pop());
  await updateLock(paths.lockFile, { pid: process.pid, port: listening });
  await report({ type: 'ready', port: listening });
  return true;
}

const started = start().catch(async (error: unknown) => {
  await report({ type: 'error', message: `embedded PostgreSQL failed to start: ${String(error)}` });
  process.exitCode = 1;
  return false;
});

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  // Wait for start-up to finish: stopping PGlite in the middle of initdb would leave a broken directory.
  stopping ??= started
    .then(async () => {
      await server?.stop();
      await db?.close();
    })
    .finally(() => releaseLock(paths.lockFile))
    .catch((error: unknown) => {
      console.error('embedded PostgreSQL did not stop cleanly:', error);
      process.exitCode = 1;
    })
    .finally(() => process.exit());
  return stopping;
}

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The IPC channel closes when the parent exits, however it dies.
process.on('disconnect', stop);
void started.then((running) => {
  if (!running) void stop();
});
