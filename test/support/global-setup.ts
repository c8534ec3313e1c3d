import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scratchDatabase, startAdminDatabase, type AdminDatabase } from './database.ts';
import globalTeardown from './global-teardown.ts';
import { buildDist, startProcess, startServerProcess, type ServerProcess, type StartedProcess } from './processes.ts'; // Jest loads global setup as CommonJS without moduleNameMapper.

// One fresh database per run on the suite's PostgreSQL (TEST_ADMIN_DATABASE_URL, or an embedded
// one when it is unset), and one server process on it.

declare global {
  var __commerceServer: ServerProcess | undefined;
  var __temporalDevServer: StartedProcess | undefined;
  var __adminDatabase: AdminDatabase | undefined;
}

// Building the CLI on a cold Go cache takes minutes; `npm test` provisions it before Jest starts.
const TEMPORAL_START_TIMEOUT_MS = 15 * 60_000;

/**
 * One Temporal dev server for the suite, in the suite's DATA_DIR: a server a test starts without
 * TEMPORAL_ADDRESS reuses it through the lock file instead of starting its own.
 */
async function startTemporal(dataDir: string): Promise<string> {
  const devServer = await startProcess('src/temporal/serve-dev.ts', { DATA_DIR: dataDir }, /Temporal dev server ready at (\S+),/, TEMPORAL_START_TIMEOUT_MS);
  globalThis.__temporalDevServer = devServer;
  return devServer.ready[1]!;
}

export default async function globalSetup() {
  // The suite's DATA_DIR (Temporal's history, the embedded PostgreSQL): a temporary one, so that
  // nothing touches the working copy's ./.data.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'commerce-suite-'));
  process.env.DATA_DIR = dataDir;
  process.env.TEST_DATA_DIR = dataDir;
  try {
    const database = async () => {
      globalThis.__adminDatabase = await startAdminDatabase(dataDir);
      const { name, url } = await scratchDatabase('commerce_test');
      process.env.TEST_DATABASE_NAME = name;
      process.env.DATABASE_URL = url;
      return url;
    };
    // The server processes run the compiled code, as `npm start` does.
    const [temporalAddress, , databaseUrl] = await Promise.all([startTemporal(dataDir), buildDist(), database()]);
    process.env.TEST_TEMPORAL_ADDRESS = temporalAddress;
    // Generous edge and per-address limits for the suite (every test calls from loopback); the
    // rate-limit and license-key budget tests start servers of their own.
    // The sandbox's outbox stays undelivered: tests read it (test/sandbox-webhook-relay.test.ts runs the relay).
    const server = await startServerProcess({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, RATE_LIMIT_POINTS: '1000000', LICENSE_KEY_VALIDATIONS_PER_ADDRESS_PER_MINUTE: '1000000', SANDBOX_WEBHOOK_DELIVERY: 'false' });
    globalThis.__commerceServer = server;
    process.env.TEST_BASE_URL = server.url;
  } catch (error) {
    // Jest skips the teardown when the setup fails: the dev server and the database would outlive the run.
    await globalTeardown();
    throw error;
  }
}
