import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { newWorkspace, type Workspace } from './support/api.js';
import { orderBody, eventually, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { lockWaiters } from './support/database.js';
import { ownTaskQueueEnv, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';
import { suiteTemporal } from './support/refunds.js';
import { salesDb } from './support/sales.js';
import { expectEachRenewalOnce, renewalPayments } from './support/renewals.js';
import { DAY, seconds, subscriptionElement, TEST } from './support/subscriptions.js';
import type { TemporalConnection } from '../src/temporal/client.js';

// Renewals survive the worker's death (issue #25 §5): an API process (WORKER_IN_PROCESS=false)
// and a worker process as a deployment runs them, on the suite's database and Temporal dev server
// and a task queue of their own. Subscriptions are bought, then their test clocks are advanced
// while the worker is SIGKILLed and started again, three times:
// 1. at two chosen points, held there by row locks the test takes (so the kill lands there every
//    time): one renewal whose payment exists but whose charge has not reached the processor (its
//    saved card's row is locked: the sandbox's charge insert waits on its foreign key), and one
//    whose charge the processor has made but whose bookkeeping has not committed (the
//    subscription's row is locked: bookAttempt waits for it);
// 2. and 3. wherever the renewals of a three-month advance happen to be when a third of them exist.
// Then, once every workflow has caught up with its clock: exactly one renewal payment per
// (subscription, period), each PAID with exactly one succeeded charge at the processor (the
// sandbox's own books) and one in ours, one payment_success each, nothing PENDING, every workflow
// running and active on its last period.

const SUBSCRIPTIONS = 6;
/** Months each subscription is advanced through, over the three kills. */
const MONTHS = 7;
const SLOW = 300_000;

let api: ServerProcess;
let worker: StartedProcess;
let env: Record<string, string>;
let ws: Workspace;
let temporal: TemporalConnection;
const locks: pg.Client[] = [];

beforeAll(async () => {
  env = {
    DATABASE_URL: process.env.DATABASE_URL!,
    ...ownTaskQueueEnv('subscription-kill'),
    SANDBOX_WEBHOOK_DELIVERY: 'false',
    RATE_LIMIT_POINTS: '1000000',
  };
  [api, worker, ws, temporal] = await Promise.all([
    startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' }),
    startWorkerProcess(env),
    newWorkspace('Subscription kill', ['testMode=true']),
    suiteTemporal(),
  ]);
}, SLOW);

afterAll(async () => {
  for (const lock of locks) await lock.end().catch(() => undefined);
  await temporal?.stop();
  for (const started of [api, worker]) if (started) await started.stop('SIGKILL');
});

/** A transaction of its own holding `FOR UPDATE` on one row, until it is ended. */
async function rowLock(table: 'Subscription' | 'SandboxPaymentMethod', id: string) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  locks.push(client);
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid FROM "${table}" WHERE id = $1 FOR UPDATE`, [id]);
  return { pid: rows[0]!.pid, release: () => client.query('COMMIT').then(() => client.end()) };
}

async function killWorker() {
  await worker.stop('SIGKILL');
}

/** One subscription bought through the API under test (its workflows run on this test's worker); waits for its first period's end. */
async function buy(elementId: string) {
  const { number } = (await placeOrder(elementId, orderBody(), randomUUID(), api.url)).order;
  return eventually(
    () => salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number } }),
    (s) => s.currentPeriodEnd !== null,
    60_000,
  );
}

/**
 * Advances a subscription's test clock through the API under test. Not awaited by the killer: the
 * answer waits for the workflow (up to 60 s, then 503), which waits for a worker.
 */
async function advanceTo(number: string, to: number) {
  const { response } = await restClient(ws, TEST, api.url).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', {
    params: { path: { subscriptionIdOrNumber: number } },
    body: { to },
  });
  return response.status;
}

const renewalsOf = (subscriptionIds: string[]) => renewalPayments(salesDb(), subscriptionIds);

test(
  `the worker SIGKILLed mid-renewal 3 times while ${SUBSCRIPTIONS} subscriptions renew ${MONTHS} months: one payment, one processor charge, one payment_success per renewal`,
  async () => {
    const elementId = await subscriptionElement(ws, 900);
    const subs = await Promise.all(Array.from({ length: SUBSCRIPTIONS }, () => buy(elementId)));
    const ids = subs.map((s) => s.id);
    try {
      await scenario(subs, ids);
    } catch (error) {
      const decode = (p?: { data?: Uint8Array | null } | null) => (p?.data ? Buffer.from(p.data).toString('utf8') : '');
      for (const s of subs) {
        const handle = temporal.client.workflow.getHandle(`subscription/${ws.workspaceId}/${s.number}`);
        const history = await handle.fetchHistory();
        const pending = await salesDb().payment.findMany({ where: { subscriptionId: s.id, status: 'PENDING' }, include: { charges: true } });
        if (pending.length === 0) continue;
        const sandbox = await salesDb().sandboxCharge.findMany({ where: { paymentId: { in: pending.map((p) => p.id) } } });
        const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: s.id } });
        console.log(
          JSON.stringify({ number: s.number, status: row.status, nextRetryAt: row.nextRetryAt, pending, sandbox: sandbox.map((c) => [c.id, c.status, c.idempotencyKey, c.createdAt]) }, null, 1),
          history.events!.map((e) => {
            const m = e.markerRecordedEventAttributes;
            return [e.eventId?.toString(), e.eventType, new Date(Number(e.eventTime?.seconds ?? 0) * 1000).toISOString(), m ? `${decode(m.details?.data?.payloads?.[0]).slice(0, 120)} => ${decode(m.details?.result?.payloads?.[0]).slice(0, 400)} ${m.failure?.message ?? ''}` : ''].join(' ');
          }).join('\n'),
        );
      }
      throw error;
    }
  },
  SLOW,
);

async function scenario(subs: Awaited<ReturnType<typeof buy>>[], ids: string[]) {
  {
    const start = Math.min(...subs.map((s) => seconds(s.currentPeriodStart!)));
    /** A day after the end of month `m` from the earliest start (every subscription's period m has ended). */
    const afterMonth = (m: number) => start + m * 31 * DAY + DAY;
    const answers: Promise<number>[] = [];

    // Kill 1, at chosen points. A: the renewal exists, its charge waits at the processor's door.
    // B: the processor has charged, the bookkeeping waits for the subscription's row.
    const [a, b] = subs;
    const cardA = await rowLock('SandboxPaymentMethod', a!.paymentMethodRef!);
    const cardB = await rowLock('SandboxPaymentMethod', b!.paymentMethodRef!);
    for (const s of subs) answers.push(advanceTo(s.number, afterMonth(1)));
    const [renewalA, renewalB] = await Promise.all(
      [a!, b!].map((s) => eventually(() => salesDb().payment.findFirst({ where: { subscriptionId: s.id, subscriptionPeriod: 2 } }), (p) => p !== null, 60_000)),
    );
    const subscriptionB = await rowLock('Subscription', b!.id);
    await cardB.release();
    await eventually(() => salesDb().sandboxCharge.count({ where: { paymentId: renewalB!.id } }), (n) => n === 1, 60_000);
    // bookAttempt waits for the subscription's row.
    await lockWaiters(process.env.DATABASE_URL!, subscriptionB.pid, 1);
    await killWorker();
    // The kill landed where it was aimed.
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: renewalA!.id } })).toMatchObject({ status: 'PENDING' });
    expect(await salesDb().sandboxCharge.count({ where: { paymentId: renewalA!.id } })).toBe(0);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: renewalB!.id } })).toMatchObject({ status: 'PENDING' });
    expect(await salesDb().sandboxCharge.findMany({ where: { paymentId: renewalB!.id } })).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(await salesDb().charge.count({ where: { paymentId: renewalB!.id } })).toBe(0);
    await Promise.all([cardA.release(), subscriptionB.release()]);
    worker = await startWorkerProcess(env);

    // Kills 2 and 3: wherever a three-month advance is when a third of its renewals exist.
    for (const [from, to] of [
      [1, 4],
      [4, MONTHS],
    ] as const) {
      const before = (await renewalsOf(ids)).length;
      // Earlier advances still answering are left to run: the workflows take signals in order.
      for (const s of subs) answers.push(advanceTo(s.number, afterMonth(to)));
      const expected = SUBSCRIPTIONS * (to - from);
      await eventually(() => renewalsOf(ids), (rows) => rows.length >= before + expected / 3, 120_000, 50);
      await killWorker();
      worker = await startWorkerProcess(env);
    }

    // Every advance is answered: with the subscription (200), or 503 when the kill kept its workflow past 60 s.
    expect((await Promise.all(answers)).filter((status) => status !== 200 && status !== 503)).toEqual([]);
    await expectEachRenewalOnce({ db: salesDb(), temporal: temporal.client, workspaceId: ws.workspaceId }, subs, MONTHS);
  }
}
