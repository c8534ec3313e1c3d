// The database to use: DATABASE_URL when set, otherwise the embedded PostgreSQL, a real
// PostgreSQL server (postgres-server.ts) on DATA_DIR/postgres. The first process on a DATA_DIR
// starts it and stops it when it stops; the others (workers, the CLI, a second server) use it.
// A server left running by a process that died without stopping it is taken over by the next one.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { config } from '../config.js';
import { joinOrLaunch } from '../local-service.js';
import { logger } from '../logger.js';
import { releaseLock, updateLock } from './lockfile.js';
import { generatePassword, initialise, postgresBinaries, runningPostmaster, startPostmaster, stopPostmaster } from './postgres-server.js';

export interface Database {
  /** What the connection pools use: DATABASE_URL, possibly through a pooler such as PgBouncer. */
  url: string;
  /**
   * Straight to PostgreSQL, for what a pooler in transaction mode cannot carry: migrations (the
   * schema engine holds a session-level advisory lock across its transactions) and the LISTEN
   * connection (src/db/notifications.ts). DATABASE_DIRECT_URL, else the same as `url`.
   */
  directUrl: string;
  /** True when the database is the embedded PostgreSQL. */
  embedded: boolean;
  /** Stops what connectDatabase started; a no-op for a database it did not start. */
  close(): Promise<void>;
}

// Room for a first start (initdb) on a slow machine.
const START_TIMEOUT_MS = 90_000;

/**
 * Settings for a small footprint, measured on the products-list benchmark (README, "Embedded
 * PostgreSQL"): a 32 MB buffer cache holds this service's working set; no parallel query
 * workers (each needs dynamic shared memory, scarce in containers) and no I/O worker processes;
 * minimal WAL, since nothing replicates from it. Durability settings stay at PostgreSQL's defaults.
 */
export function embeddedSettings(maxConnections = config.embeddedPostgres.maxConnections): string[] {
  return [
    'listen_addresses=127.0.0.1',
    // TCP only: no socket file in a system directory that another PostgreSQL may use.
    'unix_socket_directories=',
    `max_connections=${maxConnections}`,
    'shared_buffers=32MB',
    'max_worker_processes=4',
    'max_parallel_workers=0',
    'max_parallel_workers_per_gather=0',
    'max_parallel_maintenance_workers=0',
    'io_method=sync',
    'jit=off',
    'huge_pages=off',
    'wal_level=minimal',
    'max_wal_senders=0',
    'max_wal_size=256MB',
  ];
}

export function embeddedPaths(dataDir = config.dataDir) {
  const dir = path.resolve(dataDir);
  return {
    dir,
    pgData: path.join(dir, 'postgres'),
    passwordFile: path.join(dir, 'postgres.password'),
    lockFile: path.join(dir, 'postgres.lock'),
    logFile: path.join(dir, 'postgres.log'),
    pglite: path.join(dir, 'pglite'),
  };
}

type EmbeddedPaths = ReturnType<typeof embeddedPaths>;

export const embeddedUrl = (port: number, password: string): string => `postgresql://postgres:${password}@127.0.0.1:${port}/postgres?sslmode=disable`;

export async function connectDatabase(): Promise<Database> {
  const configured = process.env.DATABASE_URL;
  const direct = process.env.DATABASE_DIRECT_URL;
  if (configured) return { url: configured, directUrl: direct || configured, embedded: false, close: async () => undefined };
  if (direct) throw new Error('DATABASE_DIRECT_URL is set without DATABASE_URL: set DATABASE_URL too (through the pooler), or neither for the embedded PostgreSQL');

  const paths = embeddedPaths();
  refuseLegacyData(paths);
  await mkdir(paths.dir, { recursive: true });
  return joinOrLaunch(paths.lockFile, {
    what: 'the embedded PostgreSQL',
    timeoutMs: START_TIMEOUT_MS,
    // The owner writes the port once the server accepts connections.
    join: async ({ port }) =>
      port === undefined ? undefined : embeddedDatabase(embeddedUrl(port, await readPassword(paths)), async () => undefined),
    launch: () => launch(paths),
  });
}

async function launch(paths: EmbeddedPaths): Promise<Database> {
  const binaries = await postgresBinaries();
  const password = await passwordFor(paths);
  if (!existsSync(path.join(paths.pgData, 'PG_VERSION'))) {
    logger.info({ dataDir: paths.pgData }, 'creating the embedded PostgreSQL cluster');
    await initialise(binaries, paths.pgData, password);
  }
  const { port } = config.embeddedPostgres;
  let postmaster = await runningPostmaster(paths.pgData);
  if (postmaster && (postmaster.status !== 'ready' || (port && postmaster.port !== port))) {
    // Half started or stopped, or on another port than configured now: start it afresh.
    await stopPostmaster(postmaster.pid);
    postmaster = undefined;
  }
  if (postmaster) {
    logger.warn({ pid: postmaster.pid, port: postmaster.port }, 'took over the embedded PostgreSQL that a process which ended without stopping it left running');
  }
  const { pid, port: listening } = postmaster ?? (await startPostmaster(binaries, paths.pgData, { port, settings: embeddedSettings(), logFile: paths.logFile }));
  await updateLock(paths.lockFile, { pid: process.pid, port: listening });
  let stopped: Promise<void> | undefined;
  return embeddedDatabase(embeddedUrl(listening, password), () => (stopped ??= stopPostmaster(pid).finally(() => releaseLock(paths.lockFile))));
}

const embeddedDatabase = (url: string, close: () => Promise<void>): Database => ({ url, directUrl: url, embedded: true, close });

/** The superuser's password, generated with the cluster and kept beside it, readable by its owner only. */
async function passwordFor(paths: EmbeddedPaths): Promise<string> {
  if (existsSync(paths.passwordFile)) return readPassword(paths);
  if (existsSync(paths.pgData)) {
    throw new Error(`${paths.passwordFile} is missing, so the embedded PostgreSQL in ${paths.pgData} cannot be reached; restore the file, or move ${paths.pgData} away to start with an empty database`);
  }
  const password = generatePassword();
  await writeFile(paths.passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

const readPassword = async (paths: EmbeddedPaths): Promise<string> => (await readFile(paths.passwordFile, 'utf8')).trim();

/** The embedded database used to be PGlite, whose files PostgreSQL cannot read; never touch them. */
function refuseLegacyData(paths: EmbeddedPaths): void {
  if (!existsSync(paths.pglite)) return;
  throw new Error(
    `${paths.dir} holds a database of the earlier embedded default (PGlite, in ${paths.pglite}), which the embedded PostgreSQL server cannot open. ` +
      'Nothing was changed. To keep that data, start the earlier version on it and copy it out with pg_dump (through its DATABASE_URL), ' +
      `then restore it here; otherwise move ${paths.pglite} away, or set DATA_DIR to another directory.`,
  );
}
