import { PrismaPg } from '@prisma/adapter-pg';

import { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** The client or a transaction: what a service function that may run inside a caller's transaction takes. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** Whether a write failed on a unique constraint (Prisma's P2002). */
export const isUniqueViolation = (error: unknown): boolean => error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';

export function createPrismaClient(url: string): PrismaClient {
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  if (!Number.isInteger(max) || max < 1) throw new Error('DATABASE_POOL_SIZE must be a positive integer');
  // 'minimal' skips capturing a stack trace on every query (used only to decorate error messages).
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max }),
    errorFormat: 'minimal',
    // Writes that serialise on an advisory lock (limits, unique codes) may queue behind each
    // other under load; Prisma's 2 s / 5 s defaults would turn that wait into a 500.
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
}
