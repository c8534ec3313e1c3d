import { rm } from 'node:fs/promises';
import { dropDatabase } from './database.ts'; // .ts: Jest loads it as CommonJS without moduleNameMapper.

// Also what a failed global setup runs: each step skips what was not started.
export default async function globalTeardown() {
  await globalThis.__commerceServer?.stop();
  await globalThis.__temporalServer?.stop();
  await globalThis.__pgBouncer?.stop();
  if (process.env.TEST_DATABASE_NAME) await dropDatabase(process.env.TEST_DATABASE_NAME);
  // The Temporal server's (TEST_TEMPORAL=server): history and visibility.
  const temporal = process.env.TEST_TEMPORAL_DATABASE;
  if (temporal) for (const name of [temporal, `${temporal}_visibility`]) await dropDatabase(name);
  await globalThis.__adminDatabase?.stop();
  // The suite's DATA_DIR (see global-setup.ts): the dev server's history and the embedded database.
  if (process.env.TEST_DATA_DIR) await rm(process.env.TEST_DATA_DIR, { recursive: true, force: true });
}
