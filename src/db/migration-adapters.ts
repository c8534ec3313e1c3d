// The schema engine's database connections for src/db/migrate.ts: one connection to the main
// database (its advisory lock then covers every statement of a run), shadow databases created and
// dropped here, and the column-type fix adapter-pg needs for the engine's catalogue queries.
import { randomUUID } from 'node:crypto';

import { PrismaPg } from '@prisma/adapter-pg';
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlQueryable,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';

type PgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

/**
 * The engine's connections. The main database is reached through one connection, as with the
 * native engine: its advisory lock then covers every statement of the run. Shadow databases
 * are created here (PrismaPg's own factory reuses the main database when given a URL and leaks
 * the ones it creates) and dropped again whatever happens.
 */
export class EngineAdapters implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName = '@prisma/adapter-pg';
  private readonly cleanups: (() => Promise<void>)[] = [];

  constructor(private readonly url: string) {}

  async connect(): Promise<SqlDriverAdapter> {
    return this.adapter(this.url);
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
    await this.query(`CREATE DATABASE "${name}"`);
    this.cleanups.push(async () => void (await this.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));
    const url = new URL(this.url);
    url.pathname = `/${name}`;
    const adapter = await this.adapter(url.toString());
    // The engine wipes its shadow database: never let that be any other database.
    const { rows } = await adapter.underlyingDriver().query<{ db: string }>('SELECT current_database() AS db');
    if (rows[0]?.db !== name) throw new Error(`connected to ${rows[0]?.db} instead of the shadow database ${name}`);
    return adapter;
  }

  /** Disposes everything the engine left open and drops the shadow databases. */
  async dispose(): Promise<void> {
    let failure: unknown;
    // In reverse: an adapter is disposed before its database is dropped.
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => (failure ??= error));
    }
    if (failure !== undefined) throw failure;
  }

  private async adapter(url: string): Promise<PgAdapter> {
    const adapter = await new PrismaPg({ connectionString: url, max: 1, idleTimeoutMillis: 0 }).connect();
    let disposed: Promise<void> | undefined;
    // The engine disposes some adapters itself, we dispose all of them at the end: once is enough.
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = () => (disposed ??= dispose());
    this.cleanups.push(adapter.dispose);
    withCharColumns(adapter);
    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (level) => withCharColumns(await startTransaction(level));
    // adapter-pg splits a script at every ";" (also inside strings and function bodies) and runs
    // the pieces one by one. Send it whole in one simple-protocol query, as the native engine does:
    // PostgreSQL then runs it as one implicit transaction, and a failing migration changes nothing.
    adapter.executeScript = async (script) => {
      try {
        await adapter.underlyingDriver().query(script);
      } catch (error) {
        throw asDriverError(error);
      }
    };
    return adapter;
  }

  private async query<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      return (await client.query<R>(sql)).rows;
    } finally {
      await client.end();
    }
  }
}

function asDriverError(error: unknown): unknown {
  if (!(error instanceof pg.DatabaseError)) return error;
  return new DriverAdapterError({
    kind: 'postgres',
    code: error.code ?? 'N/A',
    severity: error.severity ?? 'N/A',
    message: error.message,
    detail: error.detail,
    column: error.column,
    hint: error.hint,
  });
}

const CHAR_OID = 18;
const TEXT_OID = 25;

/**
 * adapter-pg rejects PostgreSQL's internal "char" type (OID 18), which the engine's catalogue
 * queries return (pg_class.relkind and the like). Relabel those columns as text where adapter-pg
 * reads the result, then report them to the engine as Character, the type it decodes them as.
 */
function withCharColumns<T extends SqlQueryable>(queryable: T): T {
  const io = queryable as unknown as { performIO?: (query: SqlQuery) => Promise<pg.QueryResult> };
  if (typeof io.performIO !== 'function') {
    throw new Error('@prisma/adapter-pg no longer has performIO: update withCharColumns in src/db/migrate.ts');
  }
  const performIO = io.performIO.bind(queryable);
  const charColumns = new WeakMap<SqlQuery, number[]>();
  io.performIO = async (query) => {
    const result = await performIO(query);
    const columns = result.fields.flatMap((field, i) => (field.dataTypeID === CHAR_OID ? [i] : []));
    for (const i of columns) result.fields[i]!.dataTypeID = TEXT_OID;
    if (columns.length > 0) charColumns.set(query, columns);
    return result;
  };
  const target: SqlQueryable = queryable;
  const queryRaw = target.queryRaw.bind(queryable);
  target.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumns.get(query) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}
