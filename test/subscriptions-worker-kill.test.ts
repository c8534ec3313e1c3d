import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { keyHeaders, newWorkspace } from './support/api.js';
import { card, orderBody } from './support/checkout.js';
import { checkResponse } from './support/openapi.js';
import { startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { newCatalogue, salesDb } from './support/sales.js';
import { TEST } from './support/subscriptions.js';

// A worker killed (SIGKILL) in the middle of a renewal, after the processor charged and before
// the booking committed, then a new worker: exactly one processor charge, one renewal payment,
// one payment_success. Its own API server (no worker) and workers on a task queue of their own,
// on the suite's database and Temporal dev server. The booking is held by a lock the test takes on
// the Charge table (writes to it wait a few seconds, other tests' included) so the kill lands
// between the two steps every time.

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
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test(
  'killed between the renewal charge and its booking: one charge, one payment, one event',
  async () => {
    const taskQueue = `subscription-kill-${randomUUID()}`;
    const env = {
      DATABASE_URL: process.env.DATABASE_URL!,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SANDBOX_WEBHOOK_DELIVERY: 'false',
      RATE_LIMIT_POINTS: '1000000',
    };
    api = await startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' });
    workers.push(await startWorkerProcess(env));
    const ws = await newWorkspace('Subscription worker kill', ['testMode=true']);
    const { offer } = await newCatalogue(ws, 900, TEST, { recurringInterval: 'month' });
    const { checkoutElement } = await ok(restClient(ws, TEST).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
    const bought = await fetch(`${api.url}/checkout/${checkoutElement.id}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(orderBody({ card: card() })) });
    const { order } = ((await bought.json()) as { data: { order: { number: string } } }).data;
    const subscription = await until(
      () => salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: order.number } }),
      (s) => s.currentPeriodEnd !== null,
    );
    expect(subscription.currentPeriodEnd).not.toBeNull();

    const lock = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await lock.connect();
    let advanced: Promise<Response>;
    const url = `${api.url}/v0/test-helpers/subscriptions/${order.number}/advance`;
    const to = Math.floor(subscription.currentPeriodEnd!.getTime() / 1000) + 60;
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE "Charge" IN SHARE MODE');
      advanced = fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders(ws, TEST) }, body: JSON.stringify({ to }) });
      const charged = await until(() => salesDb().sandboxCharge.count({ where: { idempotencyKey: { startsWith: `subscription/${subscription.id}/period/2/` } } }), (n) => n > 0);
      expect(charged).toBe(1);
      // The booking now waits for the Charge table: kill the worker under it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await workers[0]!.stop('SIGKILL');
      const renewal = await salesDb().payment.findFirstOrThrow({ where: { subscriptionId: subscription.id, subscriptionPeriod: 2 } });
      expect(renewal.status).toBe('PENDING');
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }

    workers.push(await startWorkerProcess(env));
    const response = await advanced!;
    const answer = await response.json();
    checkResponse('POST', url, response.status, answer);
    expect(answer.data.subscription).toMatchObject({ status: 'active' });
    const payments = await salesDb().payment.findMany({ where: { subscriptionId: subscription.id }, orderBy: { sequence: 'asc' }, include: { charges: true } });
    expect(payments.map((p) => [p.number, p.status])).toEqual([[order.number, 'PAID'], [`${order.number}-2`, 'PAID']]);
    expect(payments[1]!.charges).toHaveLength(1);
    expect(await salesDb().sandboxCharge.count({ where: { paymentId: payments[1]!.id } })).toBe(1);
    const successes = (await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_success' } })).filter(
      (e) => (e.payload as { payment: { id: string } }).payment.id === payments[1]!.id,
    );
    expect(successes).toHaveLength(1);
  },
  SLOW,
);
