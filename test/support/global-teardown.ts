import { rm } from 'node:fs/promises';
import pg from 'pg';

export default async function globalTeardown() {
  await globalThis.__commerceServer?.stop();
  await globalThis.__temporalDevServer?.stop();
  // The suite's DATA_DIR (see global-setup.ts): the dev server's history and any embedded database.
  if (process.env.TEST_DATA_DIR) await rm(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  const name = process.env.TEST_DATABASE_NAME;
  if (!name) return;
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
