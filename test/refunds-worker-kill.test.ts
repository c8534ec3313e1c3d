
import pg from 'pg';

import { keyHeaders, newWorkspace } from './support/api.js';
import { lockWaiters } from './support/database.js';
import { checkResponse } from './support/openapi.js';
import { ownTaskQueueEnv, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';
import { eventsAbout, salesDb } from './support/sales.js';
import { paidOrder, sellingElement, TEST } from './support/refunds.js';

// A worker killed (SIGKILL) after the processor refunded and before the bookkeeping committed,
// then a new worker: exactly one processor refund, one refund row, one payment_refunded event.
// Its own API server (no worker) and workers on a task queue of their own, on the suite's
// database and Temporal dev server. The bookkeeping is held at the order's row lock (taken by the
// test) so the kill lands between the two steps every time.

const SLOW = 240_000;

let api: ServerProcess | undefined;
const workers: StartedProcess[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGKILL')));
  await api?.stop();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test(
  'killed between the processor refund and the bookkeeping: one processor refund, one row, one event',
  async () => {
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      ...ownTaskQueueEnv('refund-kill'),
      SANDBOX_WEBHOOK_DELIVERY: 'false',
      RATE_LIMIT_POINTS: '1000000',
    };
    api = await startServerProcess({ ...env, WORKER_IN_PROCESS: 'false', REFUND_WAIT_MS: '300' });
    const ws = await newWorkspace('Refund worker kill', ['testMode=true']);
    const { order, payment } = await paidOrder((await sellingElement(ws)).id);

    // No worker yet: the refund is created, its workflow waits on the task queue.
    const url = `${api.url}/v0/orders/${order.id}/refund`;
    const response = await fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json', ...keyHeaders(ws, TEST) }, body: JSON.stringify({ idempotencyKey: 'kill-me' }) });
    const answer = await response.json();
    checkResponse('PATCH', url, response.status, answer);
    expect(answer.data).toMatchObject({ status: 'pending', amount: 1000 });

    const lock = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await lock.connect();
    try {
      await lock.query('BEGIN');
      const holder = (await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid FROM "Order" WHERE id = $1 FOR UPDATE', [order.id])).rows[0]!.pid;
      workers.push(await startWorkerProcess(env));
      const refunded = await until(() => salesDb().sandboxRefund.count({ where: { charge: { paymentId: payment.id } } }), (n) => n > 0);
      expect(refunded).toBe(1);
      // Once the bookkeeping activity waits for the order's lock (pg_stat_activity says so), kill the worker under it.
      await lockWaiters(process.env.DATABASE_URL!, holder, 1);
      await workers[0]!.stop('SIGKILL');
      expect(await salesDb().refund.findFirstOrThrow({ where: { orderId: order.id } })).toMatchObject({ status: 'pending' });
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }

    workers.push(await startWorkerProcess(env));
    const done = await until(() => salesDb().refund.findFirstOrThrow({ where: { orderId: order.id } }), (r) => r.status !== 'pending');
    expect(done).toMatchObject({ status: 'succeeded', amount: 1000 });
    expect(await salesDb().sandboxRefund.count({ where: { charge: { paymentId: payment.id } } })).toBe(1);
    expect(await salesDb().refund.count({ where: { orderId: order.id } })).toBe(1);
    expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(1);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'REFUNDED', refundedAmount: 1000 });
  },
  SLOW,
);
