import { randomBytes } from 'node:crypto';
import pg from 'pg';

// Direct database access for the tests that check stored state beneath the API, and scratch
// databases for the tests that need a server of their own.
export const ADMIN_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

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

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Drops a database of the machine's PostgreSQL, closing its connections. */
export async function dropDatabase(name: string): Promise<void> {
  await sql(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A new empty database on the machine's PostgreSQL (the server migrates it when it starts). */
export async function scratchDatabase(prefix = 'commerce_scratch'): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await sql(ADMIN_URL, `CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => dropDatabase(name) };
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
