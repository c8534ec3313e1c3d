import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { createPrismaClient, isDatabaseBusy } from '../src/db/client.js';
import { ApiError, asApiError } from '../src/errors.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';

// Interactive transactions at their timeout, against the suite's PostgreSQL: a statement still
// running when Prisma rolls the transaction back can answer as if its row were not there (a
// `create` with `include` resolves to null), and the callback then fails on the missing row.
// Such a request must answer the busy database's 503, never a 500 or a wrong 4xx.

const TIMEOUT_MS = 500;
let prisma: PrismaClient;
let holder: pg.Client;

beforeAll(async () => {
  prisma = createPrismaClient(process.env.DATABASE_URL!, { maxWait: 5_000, timeout: TIMEOUT_MS });
  holder = new pg.Client({ connectionString: process.env.DATABASE_URL! });
  await holder.connect();
});
afterAll(() => Promise.all([prisma.$disconnect(), holder.end()]));

/** Holds an uncommitted workspace row with this id (an insert of the same id waits on it) for `ms`, then rolls it back. */
async function holdWorkspaceId(id: string, ms: number): Promise<{ released: Promise<void> }> {
  await holder.query('BEGIN');
  await holder.query(`INSERT INTO "Workspace" (id, name, "updatedAt") VALUES ($1, 'held', now())`, [id]);
  return { released: new Promise((resolve, reject) => setTimeout(() => holder.query('ROLLBACK').then(() => resolve(), reject), ms)) };
}

test('a create still running at the timeout: the transaction fails as busy (503), not on the null it answered, and nothing is written', async () => {
  const id = randomUUID();
  const { released } = await holdWorkspaceId(id, TIMEOUT_MS * 3);
  const answered: unknown[] = [];
  const outcome = prisma
    .$transaction(async (tx) => {
      const created = await tx.workspace.create({ data: { id, name: 'mine' }, include: { projects: true, apiKeys: true } });
      answered.push(created);
      return created.projects.length;
    })
    .then(
      () => null,
      (error: unknown) => error,
    );
  await released;
  const error = await outcome;
  // The race this guards against: without the answer being null, the test proves nothing.
  expect(answered).toEqual([null]);
  expect(isDatabaseBusy(error)).toBe(true);
  const reported = asApiError(error);
  expect(reported).toBeInstanceOf(ApiError);
  expect((reported as ApiError).status).toBe(503);
  expect(await prisma.workspace.findUnique({ where: { id } })).toBeNull();
});

test('an error of an open transaction passes through unchanged, and the transaction is rolled back', async () => {
  const id = randomUUID();
  class Refused extends Error {}
  await expect(
    prisma.$transaction(async (tx) => {
      await tx.workspace.create({ data: { id, name: 'refused' } });
      throw new Refused('no');
    }),
  ).rejects.toBeInstanceOf(Refused);
  expect(await prisma.workspace.findUnique({ where: { id } })).toBeNull();
});

test('a statement error passes through unchanged (the aborted transaction is not taken for an expired one)', async () => {
  const id = randomUUID();
  await prisma.workspace.create({ data: { id, name: 'first' } });
  const error = await prisma
    .$transaction(async (tx) => {
      await tx.workspace.create({ data: { id, name: 'second' } });
    })
    .catch((e: unknown) => e);
  expect(isDatabaseBusy(error)).toBe(false);
  expect(error).toMatchObject({ code: 'P2002' });
  await prisma.workspace.delete({ where: { id } });
});
