import { createHash } from 'node:crypto';

import { PrismaPg } from '@prisma/adapter-pg';

import { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The client or a transaction: what a service function that may run inside a caller's transaction takes. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** The driver adapter's kind of a raw statement's error (P2010), e.g. UniqueConstraintViolation. */
const adapterErrorKind = (error: Prisma.PrismaClientKnownRequestError) => (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause?.kind;

/** Whether a write failed on a unique constraint: Prisma's P2002, or a raw statement's (P2010) that the driver adapter says was one. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError && (error.code === 'P2002' || (error.code === 'P2010' && adapterErrorKind(error) === 'UniqueConstraintViolation'));

/**
 * Prisma's codes for a database too busy to serve the request now, with nothing written: no
 * pooled connection in time (P2024), a transaction that could not start within `maxWait` or
 * outlived `timeout` and was rolled back (P2028), a deadlock or serialization failure (P2034;
 * met by a statement of our own, P2010 with the adapter's TransactionWriteConflict: PostgreSQL's
 * 40P01 or 40001).
 */
const BUSY_CODES = new Set(['P2024', 'P2028', 'P2034']);

/** Whether a request failed only because the database was overloaded: the caller may retry it. */
export const isDatabaseBusy = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError && (BUSY_CODES.has(error.code) || (error.code === 'P2010' && adapterErrorKind(error) === 'TransactionWriteConflict'));

/** Statement texts named at most; past it, new texts run unnamed (a runaway of query shapes cannot grow memory). */
const MAX_NAMED_STATEMENTS = 2000;

/**
 * Names Prisma's statements so that each pooled connection prepares a statement once and then
 * only binds and executes it: a list's statement is several kilobytes of SQL, which PostgreSQL
 * would otherwise receive and parse on every request (the orders list: 15% less CPU per request).
 * One name per distinct text: the application's query shapes.
 */
function statementNames() {
  const names = new Map<string, string>();
  return ({ sql }: { sql: string }) => {
    let name = names.get(sql);
    if (name === undefined) {
      // An empty name is an unnamed statement for pg.
      if (names.size >= MAX_NAMED_STATEMENTS) return '';
      name = `prisma_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
      names.set(sql, name);
    }
    return name;
  };
}

/** How long an interactive transaction may wait for its connection, and then run, before Prisma rolls it back. */
export interface TransactionLimits {
  maxWait: number;
  timeout: number;
}

// Writes that serialise on an advisory lock (limits, unique codes) may queue behind each other
// under load; Prisma's 2 s / 5 s defaults would turn that wait into a 500.
const TRANSACTION_LIMITS: TransactionLimits = { maxWait: 10_000, timeout: 15_000 };

/**
 * Makes a transaction that outlived its timeout fail as expired (P2028: a busy database's 503)
 * whatever its callback did next. Prisma rolls such a transaction back under a statement still
 * running, and that statement can then answer as if nothing were there (a `create` with
 * `include` resolves to null): the callback fails on the missing row (a TypeError, a not-found),
 * which would reach the client as a 500 or a wrong 4xx. So when a callback fails, one more
 * statement asks the transaction whether it is still open; nothing was written either way.
 */
function failExpiredTransactionsAsBusy(client: PrismaClient): void {
  const transaction = client.$transaction.bind(client) as (operations: unknown, options?: unknown) => Promise<unknown>;
  const guarded = (operations: unknown, options?: unknown) => {
    if (typeof operations !== 'function') return transaction(operations, options);
    return transaction(async (tx: Prisma.TransactionClient) => {
      try {
        return await (operations as (tx: Prisma.TransactionClient) => Promise<unknown>)(tx);
      } catch (error) {
        if (!isDatabaseBusy(error)) {
          const expired = await tx.$executeRaw`SELECT 1`.then(
            () => null,
            (probe: unknown) => (isDatabaseBusy(probe) ? probe : null),
          );
          if (expired) throw expired;
        }
        throw error;
      }
    }, options);
  };
  client.$transaction = guarded as PrismaClient['$transaction'];
}

export function createPrismaClient(url: string, limits: TransactionLimits = TRANSACTION_LIMITS): PrismaClient {
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  if (!Number.isInteger(max) || max < 1) throw new Error('DATABASE_POOL_SIZE must be a positive integer');
  // 'minimal' skips capturing a stack trace on every query (used only to decorate error messages).
  const client = new PrismaClient({
    // DATABASE_PREPARED_STATEMENTS=false: for a pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
    adapter: new PrismaPg({ connectionString: url, max }, process.env.DATABASE_PREPARED_STATEMENTS === 'false' ? {} : { statementNameGenerator: statementNames() }),
    errorFormat: 'minimal',
    transactionOptions: limits,
  });
  failExpiredTransactionsAsBusy(client);
  return client;
}
