import { createHash } from 'node:crypto';

import { PrismaPg } from '@prisma/adapter-pg';

import { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The client or a transaction: what a service function that may run inside a caller's transaction takes. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** Whether a write failed on a unique constraint: Prisma's P2002, or a raw statement's (P2010) that the driver adapter says was one. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError &&
  (error.code === 'P2002' || (error.code === 'P2010' && (error.meta?.driverAdapterError as { cause?: { kind?: string } } | undefined)?.cause?.kind === 'UniqueConstraintViolation'));

/**
 * Prisma's codes for a database too busy to serve the request now, with nothing written: no
 * pooled connection in time (P2024), a transaction that could not start within `maxWait` or
 * outlived `timeout` and was rolled back (P2028), a deadlock or serialization failure (P2034).
 */
const BUSY_CODES = new Set(['P2024', 'P2028', 'P2034']);

/** Whether a request failed only because the database was overloaded: the caller may retry it. */
export const isDatabaseBusy = (error: unknown): boolean => error instanceof Prisma.PrismaClientKnownRequestError && BUSY_CODES.has(error.code);

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

export function createPrismaClient(url: string): PrismaClient {
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  if (!Number.isInteger(max) || max < 1) throw new Error('DATABASE_POOL_SIZE must be a positive integer');
  // 'minimal' skips capturing a stack trace on every query (used only to decorate error messages).
  return new PrismaClient({
    // DATABASE_PREPARED_STATEMENTS=false: for a pooler that cannot keep them (PgBouncer in transaction mode before 1.21).
    adapter: new PrismaPg({ connectionString: url, max }, process.env.DATABASE_PREPARED_STATEMENTS === 'false' ? {} : { statementNameGenerator: statementNames() }),
    errorFormat: 'minimal',
    // Writes that serialise on an advisory lock (limits, unique codes) may queue behind each
    // other under load; Prisma's 2 s / 5 s defaults would turn that wait into a 500.
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
}
