import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scratchDatabase } from './database.ts';
import { buildDist, startProcess, startServerProcess, type ServerProcess, type StartedProcess } from './processes.ts'; // Jest loads global setup as CommonJS without moduleNameMapper.

// One fresh database on the machine's PostgreSQL per run, and one server process on it.

declare global {
  var __commerceServer: ServerProcess | undefined;
  var __temporalDevServer: StartedProcess | undefined;
}

// Building the CLI on a cold Go cache takes minutes; `npm test` provisions it before Jest starts.
const TEMPORAL_START_TIMEOUT_MS = 15 * 60_000;

/**
 * One Temporal dev server for the suite, in a temporary DATA_DIR that also becomes the suite's
 * default: a server a test starts without TEMPORAL_ADDRESS reuses it through the lock file
 * instead of starting its own, and nothing touches the working copy's ./.data.
 */
async function startTemporal(): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'commerce-suite-'));
  process.env.DATA_DIR = dataDir;
  process.env.TEST_DATA_DIR = dataDir;
  const devServer = await startProcess('src/temporal/serve-dev.ts', { DATA_DIR: dataDir }, /Temporal dev server ready at (\S+),/, TEMPORAL_START_TIMEOUT_MS);
  globalThis.__temporalDevServer = devServer;
  return devServer.ready[1]!;
}

export default async function globalSetup() {
  const database = await scratchDatabase('commerce_test');
  process.env.TEST_DATABASE_NAME = database.name;
  process.env.DATABASE_URL = database.url;
  // The server processes run the compiled code, as `npm start` does.
  const [temporalAddress] = await Promise.all([startTemporal(), buildDist()]);
  process.env.TEST_TEMPORAL_ADDRESS = temporalAddress;
  try {
    // Generous edge limit for the suite; the rate-limit test starts its own server.
    const server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, TEMPORAL_ADDRESS: temporalAddress, RATE_LIMIT_POINTS: '1000000' });
    globalThis.__commerceServer = server;
    process.env.TEST_BASE_URL = server.url;
  } catch (error) {
    // Jest skips the teardown when the setup fails: the dev server would outlive the run.
    await globalThis.__temporalDevServer?.stop();
    await rm(process.env.TEST_DATA_DIR!, { recursive: true, force: true });
    await database.drop();
    throw error;
  }
}
