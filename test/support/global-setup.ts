import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startServerProcess, type ServerProcess } from './processes.ts'; // Jest loads global setup as CommonJS without moduleNameMapper.

// One fresh database on the machine's PostgreSQL per run, and one server process on it.
const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

declare global {
  var __commerceServer: ServerProcess | undefined;
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function globalSetup() {
  const name = `commerce_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  process.env.TEST_DATABASE_NAME = name;
  process.env.DATABASE_URL = databaseUrl(name);
  // Generous edge limit for the suite; the rate-limit test starts its own server.
  const server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL, RATE_LIMIT_POINTS: '1000000' });
  globalThis.__commerceServer = server;
  process.env.TEST_BASE_URL = server.url;
}
