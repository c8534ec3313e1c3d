import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';

import { createPrismaClient } from '../src/db/client.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { createWorkspace, setWorkspaceSettings } from '../src/workspaces/service.js';
import { keyHeaders, type Workspace } from './support/api.js';
import { card, orderBody } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { scratchDatabase, type ScratchDatabase } from './support/database.js';
import { ok } from './support/responses.js';
import { TEST } from './support/refunds.js';
import { startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';

// A refund committed whose workflow never started (the API SIGKILLed between the two, by the
// test-only fault point refund-before-workflow-start) still reaches the processor, once: without a
// retry, a worker's outbox starts it; with a same-key retry, the retry resumes it (200, the same
// refund). On a database of its own (no other worker's outbox sees its refunds) and a task queue of
// its own on the suite's Temporal dev server.

const SLOW = 300_000;
const FAULT = { FAULT_INJECTION: 'refund-before-workflow-start' };

let database: ScratchDatabase;
let prisma: PrismaClient;
let connection: Connection;
let env: Record<string, string>;
let ws: Workspace;
const running: Array<ServerProcess | StartedProcess> = [];

beforeAll(async () => {
  database = await scratchDatabase();
  env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!, TEMPORAL_TASK_QUEUE: `refund-outbox-${randomUUID()}`, REFUND_RESUME_AFTER_SECONDS: '1', REFUND_WAIT_MS: '500' };
  // A server with its worker migrates the scratch database and brings the workflow bundle up to date for the workers below.
  const first = await startServerProcess(env);
  prisma = createPrismaClient(database.url);
  ws = await createWorkspace(prisma, 'Refund outbox');
  await setWorkspaceSettings(prisma, ws.workspaceId, ['testMode=true']);
  await first.stop();
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
}, SLOW);

// Each test's processes end with it: a worker left running would start the next test's refund.
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

afterAll(async () => {
  await connection?.close();
  await prisma?.$disconnect();
  await database?.drop();
});

async function api(extra: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ ...env, WORKER_IN_PROCESS: 'false', ...extra });
  running.push(server);
  return server;
}

async function worker(): Promise<StartedProcess> {
  const started = await startWorkerProcess(env);
  running.push(started);
  return started;
}

/** An order of 1000 paid through the hosted checkout of `server` (its payment settled by a worker). */
async function paidOrder(server: ServerProcess) {
  const client = restClient(ws, TEST, server.url);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `Sold ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type: 'DigitalDownload' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 1000, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  const paid = await buyerClient({}, server.url).POST('/checkout/{checkoutElementId}/orders', { params: { path: { checkoutElementId: checkoutElement.id } }, body: orderBody({ card: card() }) });
  expect(paid.response.status).toBe(200);
  return paid.data!.data as { order: { id: string }; payment: { id: string; status: string } };
}

/** PATCH refund on `server`, expected to die under it: the request gets no answer. */
async function refundKilled(server: ServerProcess, orderId: string, idempotencyKey: string) {
  const answer = await fetch(`${server.url}/v0/orders/${orderId}/refund`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...keyHeaders(ws, TEST) }, body: JSON.stringify({ idempotencyKey }) }).then(
    (response) => response.status,
    (error: Error) => error.name,
  );
  expect(answer).toBe('TypeError');
  expect(await server.stop()).toBeNull();
  // Committed before the process died.
  expect(await prisma.refund.findFirstOrThrow({ where: { orderId } })).toMatchObject({ idempotencyKey, amount: 1000 });
}

async function settled(orderId: string) {
  for (let i = 0; i < 600; i += 1) {
    const refund = await prisma.refund.findFirstOrThrow({ where: { orderId } });
    if (refund.status !== 'pending') return refund;
    await sleep(100);
  }
  throw new Error(`the refund of order ${orderId} stayed pending`);
}

/** Exactly one refund, one processor refund and one payment_refunded event: the money moved once. */
async function expectOnce(orderId: string, paymentId: string) {
  expect(await prisma.refund.count({ where: { orderId } })).toBe(1);
  expect(await prisma.sandboxRefund.findMany({ where: { charge: { paymentId } } })).toEqual([expect.objectContaining({ amount: 1000, status: 'succeeded' })]);
  const events = await prisma.event.findMany({ where: { workspaceId: ws.workspaceId, type: 'payment_refunded' } });
  expect(events.filter((e) => (e.payload as { payment: { id: string } }).payment.id === paymentId)).toHaveLength(1);
  expect(await prisma.payment.findUniqueOrThrow({ where: { id: paymentId } })).toMatchObject({ status: 'REFUNDED', refundedAmount: 1000 });
}

test('killed between the commit and the start, nobody retries: a worker\'s outbox starts the refund, which settles once', async () => {
  const killer = await api(FAULT);
  await worker();
  const { order, payment } = await paidOrder(killer);
  expect(payment.status).toBe('PAID');
  await refundKilled(killer, order.id, 'no-retry');
  expect(await settled(order.id)).toMatchObject({ status: 'succeeded', amount: 1000 });
  expect((await prisma.refund.findFirstOrThrow({ where: { orderId: order.id } })).outboxCheckedAt).not.toBeNull();
  await expectOnce(order.id, payment.id);
}, SLOW);

test('killed between the commit and the start, the client retries with its key: the retry resumes the refund (200, the same refund), which settles once', async () => {
  const killer = await api(FAULT);
  const payer = await worker();
  const { order, payment } = await paidOrder(killer);
  // No worker until the retry answered: nobody but the retry starts the workflow.
  await payer.stop();
  await refundKilled(killer, order.id, 'retried');
  const refund = await prisma.refund.findFirstOrThrow({ where: { orderId: order.id } });

  const again = await api();
  const retried = await ok(restClient(ws, TEST, again.url).PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: order.id } }, body: { idempotencyKey: 'retried' } }));
  expect(retried).toMatchObject({ refundId: refund.id, replayed: true, status: 'pending', amount: 1000 });
  const description = await new Client({ connection }).workflow.getHandle(refund.workflowId).describe();
  expect(description.status.name).toBe('RUNNING');

  await worker();
  expect(await settled(order.id)).toMatchObject({ status: 'succeeded', amount: 1000 });
  await expectOnce(order.id, payment.id);
  // Settled, a further retry is the contract's replay of a full refund: 400, nothing moves.
  const late = await restClient(ws, TEST, again.url).PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: order.id } }, body: { idempotencyKey: 'retried' } });
  expect(late.response.status).toBe(400);
  await expectOnce(order.id, payment.id);
}, SLOW);
