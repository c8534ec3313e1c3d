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

/**
 * Holds an uncommitted workspace row with this id (an insert of the same id waits on it), until
 * `releaseAfter(ms)` rolls it back `ms` later. Counted from inside the transaction under test (its
 * timeout runs from its start): on a busy machine its start (a new connection, BEGIN) can take
 * longer than the whole hold, and its insert then found the row released and succeeded in time.
 */
async function holdWorkspaceId(id: string): Promise<{ releaseAfter: (ms: number) => void; released: Promise<void> }> {
  await holder.query('BEGIN');
  await holder.query(`INSERT INTO "Workspace" (id, name, "updatedAt") VALUES ($1, 'held', now())`, [id]);
  let releaseAfter!: (ms: number) => void;
  const released = new Promise<void>((resolve, reject) => {
    releaseAfter = (ms) => void setTimeout(() => holder.query('ROLLBACK').then(() => resolve(), reject), ms);
  });
  return { releaseAfter, released };
}

test('a create still running at the timeout: the transaction fails as busy (503), not on the null it answered, and nothing is written', async () => {
  const id = randomUUID();
  const { releaseAfter, released } = await holdWorkspaceId(id);
  const answered: unknown[] = [];
  const outcome = prisma
    .$transaction(async (tx) => {
      releaseAfter(TIMEOUT_MS * 3);
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

test('a deadlock met by statements of our own (raw SQL, which Prisma reports as P2010, not P2034) is busy too: 503, and the survivor commits', async () => {
  const patient = createPrismaClient(process.env.DATABASE_URL!, { maxWait: 5_000, timeout: 20_000 });
  try {
    const [a, b] = [randomUUID(), randomUUID()];
    await patient.workspace.createMany({ data: [{ id: a, name: 'a' }, { id: b, name: 'b' }] });
    let bothLocked!: () => void;
    const locked = new Promise<void>((resolve) => {
      let count = 0;
      bothLocked = () => {
        count += 1;
        if (count === 2) resolve();
      };
    });
    // Each locks its first row, waits until the other has too, then asks for the other's row.
    const crossing = (first: string, second: string) =>
      patient
        .$transaction(async (tx) => {
          await tx.$executeRaw`UPDATE "Workspace" SET name = 'locked' WHERE id = ${first}::uuid`;
          bothLocked();
          await locked;
          await tx.$executeRaw`UPDATE "Workspace" SET name = 'crossed' WHERE id = ${second}::uuid`;
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
    const outcomes = await Promise.all([crossing(a, b), crossing(b, a)]);
    const failed = outcomes.filter((outcome) => outcome !== null);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ code: 'P2010' });
    expect(isDatabaseBusy(failed[0])).toBe(true);
    expect((asApiError(failed[0]) as ApiError).status).toBe(503);
    // The survivor's two updates, and nothing of the other's.
    const names = (await patient.workspace.findMany({ where: { id: { in: [a, b] } } })).map((w) => w.name).sort();
    expect(names).toEqual(['crossed', 'locked']);
    await patient.workspace.deleteMany({ where: { id: { in: [a, b] } } });
  } finally {
    await patient.$disconnect();
  }
});
