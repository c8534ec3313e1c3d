import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { newWorkspace, type Workspace } from './support/api.js';
import { orderBody, eventually } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { lockWaiters } from './support/database.js';
import { ownTaskQueueEnv, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';
import { suiteTemporal } from './support/refunds.js';
import { salesDb } from './support/sales.js';
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
  const { data, response } = await buyerClient({ 'idempotency-key': randomUUID() }, api.url).POST('/checkout/{checkoutElementId}/orders', {
    params: { path: { checkoutElementId: elementId } },
    body: orderBody(),
  });
  if (response.status !== 200) throw new Error(`checkout answered ${response.status}`);
  const number = data!.data.order.number;
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

const renewalsOf = (subscriptionIds: string[]) =>
  salesDb().payment.findMany({ where: { subscriptionId: { in: subscriptionIds }, subscriptionPeriod: { gt: 1 } }, include: { charges: true } });

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

    // Settled: every subscription renewed through period MONTHS + 1 (MONTHS × 31 days + 1 covers
    // exactly MONTHS period ends whatever the start day), nothing PENDING, each workflow there too.
    const handles = subs.map((s) => temporal.client.workflow.getHandle(`subscription/${ws.workspaceId}/${s.number}`));
    const read = async () => ({
      renewals: (await renewalsOf(ids)).sort((x, y) => x.number.localeCompare(y.number)),
      states: await Promise.all(handles.map((h) => h.query<{ status: string; period: number }>('state').catch(() => null))),
    });
    const { renewals, states } = await eventually(
      read,
      (now) =>
        now.renewals.length === SUBSCRIPTIONS * MONTHS && now.renewals.every((p) => p.status === 'PAID') && now.states.every((st) => st?.status === 'active' && st.period === MONTHS + 1),
      120_000,
      500,
    ).catch(async (error: Error) => {
      const now = await read();
      throw new Error(
        `Not settled (${error.message.slice(0, 30)}): workflow states ${JSON.stringify(now.states)}; renewals not PAID ${JSON.stringify(now.renewals.filter((p) => p.status !== 'PAID').map((p) => [p.number, p.status, p.charges.length]))} of ${now.renewals.length}`,
      );
    });

    // Exactly one renewal payment per (subscription, period), periods 2..n with no gap, numbered {order}-{n}.
    for (const [i, s] of subs.entries()) {
      const own = renewals.filter((p) => p.subscriptionId === s.id).sort((x, y) => x.subscriptionPeriod! - y.subscriptionPeriod!);
      const last = states[i]!.period;
      expect(own.map((p) => p.subscriptionPeriod)).toEqual(Array.from({ length: last - 1 }, (_, k) => k + 2));
      expect(own.map((p) => p.number)).toEqual(own.map((p) => `${s.number}-${p.sequence}`));
      expect(new Set(own.map((p) => p.sequence)).size).toBe(own.length);
    }
    expect(renewals.filter((p) => p.status !== 'PAID').map((p) => [p.number, p.status])).toEqual([]);
    expect(renewals.map((p) => p.amount)).toEqual(Array(renewals.length).fill(900));

    // The processor's books: each renewal exactly one succeeded charge, the one the payment names; no other charge.
    const paymentIds = renewals.map((p) => p.id);
    const atProcessor = await salesDb().sandboxCharge.findMany({ where: { paymentId: { in: paymentIds } } });
    expect(atProcessor.filter((c) => c.status !== 'succeeded')).toEqual([]);
    expect(atProcessor).toHaveLength(renewals.length);
    const byPayment = new Map(atProcessor.map((c) => [c.paymentId, c.id]));
    expect(renewals.filter((p) => p.processorChargeId !== byPayment.get(p.id)).map((p) => p.number)).toEqual([]);
    // Ours: one charge row per renewal, succeeded, the same processor charge.
    expect(renewals.filter((p) => p.charges.length !== 1 || p.charges[0]!.status !== 'succeeded' || p.charges[0]!.processorChargeId !== p.processorChargeId).map((p) => p.number)).toEqual([]);

    // One payment_success per renewal; no payment_failed.
    const events = await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: { in: ['payment_success', 'payment_failed'] } } });
    const about = (type: string) => events.filter((e) => e.type === type).map((e) => (e.payload as { payment: { id: string } }).payment.id).filter((id) => paymentIds.includes(id));
    expect(about('payment_success').sort()).toEqual([...paymentIds].sort());
    expect(about('payment_failed')).toEqual([]);

    // The workflows are healthy: running, active, the subscriptions' rows agreeing.
    for (const h of handles) expect((await h.describe()).status.name).toBe('RUNNING');
    const rows = await salesDb().subscription.findMany({ where: { id: { in: ids } } });
    expect(rows.map((r) => r.status)).toEqual(Array(SUBSCRIPTIONS).fill('active'));
  }
}
