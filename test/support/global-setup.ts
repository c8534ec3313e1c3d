import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scratchDatabase, startAdminDatabase, type AdminDatabase } from './database.ts';
import globalTeardown from './global-teardown.ts';
import { buildDist, startProcess, startServerProcess, type ServerProcess, type StartedProcess } from './processes.ts'; // Jest loads global setup as CommonJS without moduleNameMapper.

// One fresh database per run on the suite's PostgreSQL (TEST_ADMIN_DATABASE_URL, or an embedded
// one when it is unset), and one server process on it. Two switches run the suite as production
// does (docs/decisions.md, "CI"): TEST_TEMPORAL=server, TEST_PGBOUNCER=true.

declare global {
  var __commerceServer: ServerProcess | undefined;
  var __temporalServer: StartedProcess | undefined;
  var __adminDatabase: AdminDatabase | undefined;
  var __pgBouncer: StartedProcess | undefined;
}

// Building the CLI (or the server) on a cold Go cache takes minutes; `npm test` provisions the CLI before Jest starts.
const TEMPORAL_START_TIMEOUT_MS = 15 * 60_000;

/**
 * The suite's Temporal: TEST_TEMPORAL_ADDRESS when it is set (a server run apart, such as
 * `npm run temporal:server`); with TEST_TEMPORAL=server a Temporal server on PostgreSQL
 * (src/temporal/serve-server.ts) whose databases are on the suite's PostgreSQL, dropped at the end;
 * otherwise one dev server in the suite's DATA_DIR, which a server a test starts without
 * TEMPORAL_ADDRESS reuses through the lock file instead of starting its own.
 */
async function startTemporal(dataDir: string, databaseReady: Promise<unknown>): Promise<string> {
  if (process.env.TEST_TEMPORAL_ADDRESS) return process.env.TEST_TEMPORAL_ADDRESS;
  if (process.env.TEST_TEMPORAL === 'server') {
    await databaseReady;
    const { name, url } = await scratchDatabase('temporal_suite');
    process.env.TEST_TEMPORAL_DATABASE = name;
    // Few connections per service (each of its four services has a pool): the machine's PostgreSQL
    // (100 connections) also serves PgBouncer's 40 and the tests' direct connections.
    const server = await startProcess(
      'src/temporal/serve-server.ts',
      { TEMPORAL_SERVER_DATABASE_URL: url, TEMPORAL_SERVER_PORT: '0', TEMPORAL_SERVER_DB_MAX_CONNS: '5' },
      /Temporal server ready at (\S+) /,
      TEMPORAL_START_TIMEOUT_MS,
    );
    globalThis.__temporalServer = server;
    return server.ready[1]!;
  }
  const devServer = await startProcess('src/temporal/serve-dev.ts', { DATA_DIR: dataDir }, /Temporal dev server ready at (\S+),/, TEMPORAL_START_TIMEOUT_MS);
  globalThis.__temporalServer = devServer;
  return devServer.ready[1]!;
}

/**
 * With TEST_PGBOUNCER=true, the suite's database through PgBouncer in transaction mode
 * (src/db/serve-pgbouncer.ts): DATABASE_URL, which the suite's server and the tests' own clients use,
 * goes through it with unnamed statements (PgBouncer 1.18 keeps no prepared statements), and
 * DATABASE_DIRECT_URL (migrations, LISTEN) straight to PostgreSQL; every process the tests start
 * inherits the three.
 */
/**
 * Server connections for the suite's shared database behind PgBouncer: the tests that hold a row
 * lock while 20 callers queue behind it (payment-processors) take 21 of them, and the files running
 * beside them need the rest; the machine's PostgreSQL allows 100 in all.
 */
const SUITE_POOL_SIZE = 40;

async function poolDatabase(dataDir: string, url: string): Promise<string> {
  if (process.env.TEST_PGBOUNCER !== 'true') return url;
  const bouncer = await startProcess('src/db/serve-pgbouncer.ts', { DATA_DIR: dataDir, PGBOUNCER_UPSTREAM_URL: url, PGBOUNCER_PORT: '0', PGBOUNCER_POOL_SIZE: String(SUITE_POOL_SIZE) }, /PgBouncer ready on port (\d+)/);
  globalThis.__pgBouncer = bouncer;
  process.env.DATABASE_DIRECT_URL = url;
  process.env.DATABASE_PREPARED_STATEMENTS = 'false';
  const pooled = new URL(url);
  pooled.port = bouncer.ready[1]!;
  return pooled.toString();
}

export default async function globalSetup() {
  // The suite's DATA_DIR (Temporal's history, the embedded PostgreSQL): a temporary one, so that
  // nothing touches the working copy's ./.data.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'commerce-suite-'));
  process.env.DATA_DIR = dataDir;
  process.env.TEST_DATA_DIR = dataDir;
  // Where the end-of-suite money check's reconciliation window starts (suite-money-check.ts).
  process.env.TEST_SUITE_STARTED_AT = String(Date.now());
  try {
    const admin = startAdminDatabase(dataDir).then((started) => (globalThis.__adminDatabase = started));
    const database = async () => {
      await admin;
      const { name, url } = await scratchDatabase('commerce_test');
      process.env.TEST_DATABASE_NAME = name;
      process.env.DATABASE_URL = await poolDatabase(dataDir, url);
      return process.env.DATABASE_URL;
    };
    // The server processes run the compiled code, as `npm start` does.
    const [temporalAddress, , databaseUrl] = await Promise.all([startTemporal(dataDir, admin), buildDist(), database()]);
    process.env.TEST_TEMPORAL_ADDRESS = temporalAddress;
    // Generous edge and per-address limits for the suite (every test calls from loopback); the
    // rate-limit and license-key budget tests start servers of their own.
    // The sandbox's outbox stays undelivered: tests read it (test/sandbox-webhook-relay.test.ts runs the relay).
    // No reconciliation schedule on the suite's Temporal (for the suite's server nor the servers tests start): a scheduled
    // run would repair what tests hold back on purpose (the sandbox's undelivered webhooks). test/reconciliation.test.ts makes one.
    process.env.RECONCILIATION_INTERVAL_MINUTES = '0';
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, RATE_LIMIT_POINTS: '1000000', LICENSE_KEY_VALIDATIONS_PER_ADDRESS_PER_MINUTE: '1000000', SANDBOX_WEBHOOK_DELIVERY: 'false' });
    globalThis.__commerceServer = server;
    process.env.TEST_BASE_URL = server.url;
  } catch (error) {
    // Jest skips the teardown when the setup fails: the dev server and the database would outlive the run.
    await globalTeardown();
    throw error;
  }
}
