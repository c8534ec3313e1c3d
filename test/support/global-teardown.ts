import { rm } from 'node:fs/promises';
import { dropDatabase } from './database.ts'; // .ts: Jest loads it as CommonJS without moduleNameMapper.

export default async function globalTeardown() {
  await globalThis.__commerceServer?.stop();
  await globalThis.__temporalDevServer?.stop();
  // The suite's DATA_DIR (see global-setup.ts): the dev server's history and any embedded database.
  if (process.env.TEST_DATA_DIR) await rm(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  if (process.env.TEST_DATABASE_NAME) await dropDatabase(process.env.TEST_DATABASE_NAME);
}
