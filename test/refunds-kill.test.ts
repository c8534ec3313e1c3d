import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { PrismaClient } from '../src/generated/prisma/client.js';
import { createPrismaClient } from '../src/db/client.js';
import { createWorkspace, setWorkspaceSettings } from '../src/workspaces/service.js';
import type { Workspace } from './support/api.js';
import { card, orderBody } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { scratchDatabase, type ScratchDatabase } from './support/database.js';
import { freePort, killed, startServerProcess, startWorkerProcess, untilAnswered, type ServerProcess, type StartedProcess } from './support/processes.js';
import { TEST, type RefundBody } from './support/refunds.js';
import { ok } from './support/responses.js';

// Refunds survive process death (issue 31 §4): an API process (WORKER_IN_PROCESS=false) and a
// worker process as a deployment runs them, on a database of their own (no other worker's refund
// outbox sees its refunds) and a task queue of their own on the suite's Temporal. 200 refunds of
// 100 orders (two each: units then the rest, an amount then units, an amount then the rest), 10
// clients at a time, each retrying its request with the same key until it is answered, while the
// API is SIGKILLed three times and then the worker three times, each kill once refunds are in
// flight (rows seen in the database). Then, once every refund settled: one answer per key, one
// refund row per key, each refund's part refunded exactly once at the processor (the sandbox's
// own books), one payment_refunded per part, and every order where its two refunds leave it.

const ORDERS = 100;
const CONCURRENCY = 10;
const KILLS = 3;
const SLOW = 600_000;
/** How long one client keeps retrying, restarts included. */
const ANSWER_TIMEOUT_MS = 180_000;

let database: ScratchDatabase;
let prisma: PrismaClient;
let env: Record<string, string>;
let api: ServerProcess;
let worker: StartedProcess;
let ws: Workspace;

beforeAll(async () => {
  database = await scratchDatabase();
  env = {
    DATABASE_URL: database.url,
    PORT: String(await freePort()),
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `refund-kill-${randomUUID()}`,
    RATE_LIMIT_POINTS: '1000000',
    REFUND_WAIT_MS: '5000',
    REFUND_RESUME_AFTER_SECONDS: '2',
  };
  // A server with its worker migrates the scratch database and brings the workflow bundle up to date for the worker below.
  const first = await startServerProcess({ ...env, PORT: '0' });
  prisma = createPrismaClient(database.url);
  ws = await createWorkspace(prisma, 'Refund kill');
  await setWorkspaceSettings(prisma, ws.workspaceId, ['testMode=true']);
  await first.stop();
  [api, worker] = await Promise.all([startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' }), startWorkerProcess(env)]);
}, SLOW);

afterAll(async () => {
  for (const started of [api, worker]) if (started) await started.stop('SIGKILL');
  await prisma?.$disconnect();
  await database?.drop();
});

/** ORDERS orders of two units of 1000, paid through the API's hosted checkout, CONCURRENCY at a time. */
async function paidOrders() {
  const client = restClient(ws, TEST, api.url);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: 'Refunded under fire', projectId: ws.projectId, type: 'DigitalDownload' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 1000, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  const orders: Array<{ id: string; paymentId: string }> = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (orders.length < ORDERS) {
        const placeholder = orders.push({ id: '', paymentId: '' }) - 1;
        const paid = await ok(buyerClient({}, api.url).POST('/checkout/{checkoutElementId}/orders', { params: { path: { checkoutElementId: checkoutElement.id } }, body: orderBody({ card: card(), quantity: 2 }) }));
        if (paid.payment.status !== 'PAID') throw new Error(`the checkout's payment is ${paid.payment.status}`);
        orders[placeholder] = { id: paid.order.id, paymentId: paid.payment.id };
      }
    }),
  );
  const items = await prisma.orderItem.findMany({ where: { orderId: { in: orders.map((o) => o.id) } } });
  return orders.map((o) => ({ ...o, itemId: items.find((i) => i.orderId === o.id)!.id }));
}

/** The two refunds of an order (by its index) and where they leave it: [refunded amount, order status]. */
function refundsOf(index: number, itemId: string): { bodies: RefundBody[]; refunded: number; status: string } {
  const unit = { items: [{ id: itemId, quantity: 1 }] };
  if (index % 3 === 0) return { bodies: [unit, {}], refunded: 2000, status: 'REFUNDED' };
  if (index % 3 === 1) return { bodies: [{ amount: 300 }, unit], refunded: 1300, status: 'PARTIALLY_REFUNDED' };
  return { bodies: [{ amount: 500 }, {}], refunded: 2000, status: 'REFUNDED' };
}

interface Answer {
  status: number;
  refundId?: string;
  message?: string;
}

/** One client's refund: the same body and key until the API answers (not 5xx). */
async function refundUntilAnswered(orderId: string, body: RefundBody, idempotencyKey: string): Promise<Answer> {
  // api.url: the port stays the same across restarts.
  const send = () => restClient(ws, TEST, api.url).PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: orderId } }, body: { ...body, idempotencyKey } });
  const { data, error, response } = await untilAnswered(send, `refund key ${idempotencyKey}`, ANSWER_TIMEOUT_MS);
  return { status: response.status, refundId: data?.data.refundId, message: (error as { error?: { message?: string } } | undefined)?.error?.message };
}

/** Kills (and starts again) the API after each seventh of the refunds' rows, three times, then the worker three times; each once a refund is in flight. */
async function killer(done: () => boolean) {
  const victims: Array<'api' | 'worker'> = [...Array<'api'>(KILLS).fill('api'), ...Array<'worker'>(KILLS).fill('worker')];
  const figures: Array<{ victim: string; atRefunds: number; restartMs: number }> = [];
  for (const [k, victim] of victims.entries()) {
    const threshold = ((k + 1) * ORDERS * 2) / (victims.length + 1);
    // Positive markers: this many refund rows committed, and one of them not yet answered by the processor.
    for (;;) {
      if (done()) return figures;
      const rows = await prisma.refund.count({ where: { workspaceId: ws.workspaceId } });
      const inFlight = await prisma.refundPart.count({ where: { refund: { workspaceId: ws.workspaceId }, processorRefundId: null } });
      if (rows >= threshold && inFlight > 0) break;
      await sleep(20);
    }
    const atRefunds = await prisma.refund.count({ where: { workspaceId: ws.workspaceId } });
    const started = Date.now();
    if (victim === 'api') {
      await killed(api);
      api = await startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' });
    } else {
      await killed(worker);
      worker = await startWorkerProcess(env);
    }
    figures.push({ victim, atRefunds, restartMs: Date.now() - started });
  }
  return figures;
}

async function settled(timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await prisma.refund.count({ where: { workspaceId: ws.workspaceId, status: 'pending' } });
    if (pending === 0) return;
    if (Date.now() > deadline) throw new Error(`${pending} refunds still pending after ${timeoutMs} ms`);
    await sleep(500);
  }
}

test(
  `${ORDERS * 2} refunds at ${CONCURRENCY} at a time, the API SIGKILLed ${KILLS} times then the worker ${KILLS} times: one answer per key, one processor refund per part`,
  async () => {
    const started = Date.now();
    const orders = await paidOrders();
    const loaded = Date.now();
    const answers = new Map<string, Answer>();
    let next = 0;
    const lane = async () => {
      while (next < orders.length) {
        const index = next++;
        const order = orders[index]!;
        for (const [step, body] of refundsOf(index, order.itemId).bodies.entries()) {
          const key = `kill-${index}-${step}`;
          answers.set(key, await refundUntilAnswered(order.id, body, key));
        }
      }
    };
    let lanesDone = false;
    const kills = killer(() => lanesDone);
    await Promise.all(Array.from({ length: CONCURRENCY }, lane)).finally(() => (lanesDone = true));
    const figures = await kills;
    const answered = Date.now();
    await settled();
    console.log(JSON.stringify({ checkoutsMs: loaded - started, refundsMs: answered - loaded, settleMs: Date.now() - answered, kills: figures }));
    // Each kill came with refunds still to make (the load outlasting the restarts is part of the test).
    expect(figures.map((f) => f.victim)).toEqual(['api', 'api', 'api', 'worker', 'worker', 'worker']);

    // One answer per key: 200 with its refund, or, for a retry whose first answer was lost with the
    // API after the processor answered, the contract's 400 of a fresh eligibility check (a full
    // refund, an exhausting partial, or more than is refundable now beside it); one refund row per key.
    const refunds = await prisma.refund.findMany({ where: { workspaceId: ws.workspaceId }, include: { parts: true } });
    expect(answers.size).toBe(ORDERS * 2);
    expect(refunds).toHaveLength(ORDERS * 2);
    const byKey = new Map(refunds.map((r) => [r.idempotencyKey!, r]));
    const refusedReplays = [...answers].filter(([key, a]) => a.status === 400 && byKey.has(key) && /^idempotencyKey belongs to a (full )?refund/.test(a.message ?? ''));
    const wrong = [...answers].filter(([key, a]) => !(a.status === 200 && a.refundId === byKey.get(key)?.id) && !refusedReplays.some(([k]) => k === key));
    expect(wrong).toEqual([]);
    console.log(JSON.stringify({ answered200: answers.size - refusedReplays.length, refusedReplays: refusedReplays.length }));

    // Every refund succeeded, each of its parts refunded exactly once at the processor, with the amount and id the part names.
    expect(refunds.filter((r) => r.status !== 'succeeded').map((r) => [r.idempotencyKey, r.status])).toEqual([]);
    const parts = refunds.flatMap((r) => r.parts);
    const atProcessor = await prisma.sandboxRefund.findMany({ where: { charge: { paymentId: { in: orders.map((o) => o.paymentId) } } } });
    expect(atProcessor).toHaveLength(parts.length);
    const processorRefunds = new Map(atProcessor.map((r) => [r.id, r]));
    expect(parts.filter((p) => p.status !== 'succeeded' || processorRefunds.get(p.processorRefundId!)?.amount !== p.amount || processorRefunds.get(p.processorRefundId!)?.status !== 'succeeded')).toEqual([]);
    expect(new Set(parts.map((p) => p.processorRefundId)).size).toBe(parts.length);

    // One payment_refunded per part; each order where its two refunds leave it.
    const events = await prisma.event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_refunded' } });
    expect(events).toHaveLength(parts.length);
    const stored = await prisma.order.findMany({ where: { id: { in: orders.map((o) => o.id) } }, include: { payments: true } });
    const expected = orders.map((o, i) => ({ id: o.id, ...refundsOf(i, o.itemId) }));
    expect(stored.map((o) => [o.id, o.payments[0]!.refundedAmount, o.status]).sort()).toEqual(expected.map((o) => [o.id, o.refunded, o.status]).sort());
  },
  SLOW,
);
