import pg from 'pg';

export default async function globalTeardown() {
  await globalThis.__commerceServer?.stop();
  const name = process.env.TEST_DATABASE_NAME;
  if (!name) return;
  const admin = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
