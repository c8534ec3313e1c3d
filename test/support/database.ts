import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { startProcess, type StartedProcess } from './processes.ts'; // .ts: see global-setup.ts

// Direct database access for the tests that check stored state beneath the API, and scratch
// databases for the tests that need a server of their own, on the PostgreSQL server the suite
// runs against: TEST_ADMIN_DATABASE_URL, or the embedded one that startAdminDatabase starts.
function adminUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL;
  if (!url) throw new Error('TEST_ADMIN_DATABASE_URL is not set (the suite and the benchmarks set it in startAdminDatabase)');
  return url;
}

export interface AdminDatabase {
  url: string;
  /** Stops the embedded server startAdminDatabase started; a no-op for a configured one. */
  stop(): Promise<void>;
}

/**
 * TEST_ADMIN_DATABASE_URL when it is set, otherwise the embedded PostgreSQL of `dataDir` (as
 * `npm run db:embedded` runs it), so that the suite needs no PostgreSQL installed; either way
 * TEST_ADMIN_DATABASE_URL names it afterwards, for this process and the ones it starts.
 */
export async function startAdminDatabase(dataDir: string): Promise<AdminDatabase> {
  const configured = process.env.TEST_ADMIN_DATABASE_URL;
  if (configured) return { url: configured, stop: async () => undefined };
  // Room for the suite's servers and workers, each with a pool of its own.
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', EMBEDDED_POSTGRES_MAX_CONNECTIONS: '400' };
  const server: StartedProcess = await startProcess('src/db/serve-embedded.ts', env, /Embedded PostgreSQL ready at /, 120_000);
  const url = await embeddedDatabaseUrl(dataDir);
  process.env.TEST_ADMIN_DATABASE_URL = url;
  return { url, stop: async () => void (await server.stop()) };
}

/** The URL of the embedded PostgreSQL running on `dataDir`, from the files it keeps there. */
export async function embeddedDatabaseUrl(dataDir: string): Promise<string> {
  const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
  const port = (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[3];
  return `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
}

/** Runs one query on a short-lived connection. */
export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Waits until `count` backends of the server at `url` wait behind the backend `holderPid`'s lock,
 * directly or queued behind another waiter (a row's second waiter waits for the first's tuple
 * lock), as pg_blocking_pids over pg_stat_activity shows them: a race lined up by the database's
 * own word, not by a sleep. Returns their number.
 */
export async function lockWaiters(url: string, holderPid: number, count: number, timeoutMs = 60_000): Promise<number> {
  // Straight on PostgreSQL when the suite's database is behind PgBouncer: through it, the watcher
  // would queue for a server connection behind the very waiters it counts.
  const direct = url === process.env.DATABASE_URL && process.env.DATABASE_DIRECT_URL ? process.env.DATABASE_DIRECT_URL : url;
  const client = new pg.Client({ connectionString: direct });
  await client.connect();
  try {
    for (const deadline = Date.now() + timeoutMs; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const { rows } = await client.query<{ n: number }>(
        `WITH RECURSIVE behind(pid) AS (
           SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))
           UNION SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid))
         ) SELECT count(*)::int AS n FROM behind`,
        [holderPid],
      );
      if (rows[0]!.n >= count) return rows[0]!.n;
      if (Date.now() > deadline) throw new Error(`${rows[0]!.n} of ${count} backends waiting for backend ${holderPid}'s lock after ${timeoutMs} ms`);
    }
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Drops a database of the suite's PostgreSQL, closing its connections. */
export async function dropDatabase(name: string): Promise<void> {
  await sql(adminUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** The databases this test file made: the money invariants check those still there after the file (test/support/money-invariants.ts). */
export const scratchDatabases: ScratchDatabase[] = [];

/** A new empty database on the suite's PostgreSQL (the server migrates it when it starts). */
export async function scratchDatabase(prefix = 'commerce_scratch'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await sql(adminUrl(), `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const database = { name, url: url.toString(), drop: () => dropDatabase(name) };
  scratchDatabases.push(database);
  return database;
}

/** Whether the database is still there and holds the service's tables (a server or the CLI migrated it). */
export async function migratedDatabase(name: string): Promise<boolean> {
  const [row] = await sql<{ migrated: boolean }>(adminUrl(), `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS migrated`, [name]);
  if (!row!.migrated) return false;
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const [tables] = await sql<{ n: number }>(url.toString(), `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('Payment', 'ReconciliationRun')`);
  return tables!.n === 2;
}

/**
 * Every row of every table of the database as text, one per line (what a data-only pg_dump holds;
 * Debian's pg_dump refuses a newer server, such as the embedded PostgreSQL).
 */
export async function databaseText(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`);
    // One table after the other: a client runs one query at a time (pg deprecates queueing them).
    const rows: string[] = [];
    for (const { table_name: table } of tables.rows) rows.push(...(await client.query<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`)).rows.map((r) => r.row));
    return rows.join('\n');
  } finally {
    await client.end();
  }
}

/**
 * A fingerprint of every row of every application table: equal fingerprints mean nothing was
 * inserted, updated or deleted in between. Keeps one connection open for repeated use.
 */
export async function fingerprinter(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_prisma%'
      ORDER BY table_name`,
  );
  const query = tables.rows
    .map(({ table_name: table }) => `SELECT '${table}' AS name, count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS digest FROM "${table}" t`)
    .join(' UNION ALL ');
  return {
    tables: tables.rows.map((row) => row.table_name),
    async fingerprint(): Promise<Record<string, string>> {
      const rows = await client.query<{ name: string; digest: string }>(query);
      return Object.fromEntries(rows.rows.map((row) => [row.name, row.digest]));
    },
    close: () => client.end(),
  };
}
