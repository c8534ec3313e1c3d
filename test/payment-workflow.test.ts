import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

import { createPaymentActivities } from '../src/payments/activities.js';
import { startPayment } from '../src/payments/payment-flow.js';
import { cancelOrder } from '../src/orders/service.js';
import { handleProcessorEvents, signalCancelRequested, signalOrderCancelRequests } from '../src/payments/processor-callbacks.js';
import { requestPaymentCancel } from '../src/payments/service.js';
import { CardDeclined, ProcessorUnavailable, type PaymentProcessor, type ProcessorEvent } from '../src/payments/processors/processor.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { bundleWorkflows } from '../src/temporal/worker.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { sandboxWebhooksOf } from './support/refunds.js';
import { salesDb, scopeOf, seedOrder } from './support/sales.js';

// The payment workflow on the suite's Temporal dev server and PostgreSQL, with an in-process
// worker on a task queue of its own (so the suite server's worker never runs these workflows).

const SLOW = 120_000;
const card = (number: string) => ({ number, expMonth: 12, expYear: 2034, cvc: '123' });

let client: Client;
let temporal: TemporalConnection;
let worker: Worker;
let workerConnection: NativeConnection;
let running: Promise<void>;
let sandbox: SandboxProcessor;
let ws: Workspace;
let workflowBundle: Awaited<ReturnType<typeof bundleWorkflows>>;

async function startWorker() {
  worker = await Worker.create({ connection: workerConnection, taskQueue: temporal.taskQueue, workflowBundle, activities: createPaymentActivities({ prisma: salesDb(), temporal }) });
  running = worker.run();
}

async function stopWorker() {
  worker.shutdown();
  await running;
}

beforeAll(async () => {
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  client = new Client({ connection });
  const taskQueue = `payments-${randomUUID()}`;
  temporal = {
    client,
    namespace: 'default',
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue,
    connectionOptions: { address: process.env.TEST_TEMPORAL_ADDRESS! },
    failure: new Promise<never>(() => undefined),
    stop: () => connection.close(),
  };
  const prisma = salesDb();
  sandbox = new SandboxProcessor({ prisma });
  workerConnection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  workflowBundle = await bundleWorkflows();
  await startWorker();
  ws = await newWorkspace('Payment workflow');
}, SLOW);

afterAll(async () => {
  if (worker) await stopWorker();
  await workerConnection?.close();
  await client?.connection.close();
});

async function checkout(number: string, expireAfterMs = 60_000) {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } });
  const { workflowId } = await startPayment(salesDb(), temporal, sandbox, { paymentId: payment.id, card: card(number), expireAfterMs });
  return { paymentId: payment.id, handle: client.workflow.getHandle(workflowId) };
}

const paymentOf = (paymentId: string) => salesDb().payment.findUniqueOrThrow({ where: { id: paymentId }, include: { charges: true, order: true } });

/** The sandbox outbox's events about one charge, verified as the webhook route would. */
async function outboxEvents(chargeId: string, type: ProcessorEvent['type']): Promise<ProcessorEvent[]> {
  for (let i = 0; i < 100; i += 1) {
    const parsed = (await Promise.all((await sandboxWebhooksOf([chargeId])).map((w) => sandbox.parseWebhook(w.rawBody, w.headers)))).flat();
    const found = parsed.filter((event) => event.type === type);
    if (found.length) return found;
    await sleep(200);
  }
  throw new Error(`no ${type} event for ${chargeId}`);
}

async function pendingCharge(paymentId: string) {
  for (let i = 0; i < 100; i += 1) {
    const { charges } = await paymentOf(paymentId);
    if (charges[0]?.processorChargeId) return charges[0].processorChargeId;
    await sleep(100);
  }
  throw new Error('no charge');
}

test('a succeeding card: PAID with one charge', async () => {
  const { paymentId, handle } = await checkout('4242424242424242');
  expect(await handle.result()).toBe('PAID');
  const payment = await paymentOf(paymentId);
  expect(payment.status).toBe('PAID');
  expect(payment.order.status).toBe('PAID');
  expect(payment.charges).toHaveLength(1);
  expect(payment.charges[0]).toMatchObject({ status: 'succeeded', cardLast4: '4242' });
  // The card never reaches Temporal.
  expect(JSON.stringify(await handle.fetchHistory())).not.toContain('4242424242424242');
}, SLOW);

test('a declined card: FAILED with the decline code', async () => {
  const { paymentId, handle } = await checkout('4000000000000002');
  expect(await handle.result()).toBe('FAILED');
  const payment = await paymentOf(paymentId);
  expect(payment).toMatchObject({ status: 'FAILED', failureCode: 'generic_decline' });
  expect(payment.charges).toHaveLength(1);
}, SLOW);

test('a 3-D Secure card: PENDING, then PAID when the processor confirms', async () => {
  const { paymentId, handle } = await checkout('4000002760003184');
  const chargeId = await pendingCharge(paymentId);
  const pending = await paymentOf(paymentId);
  expect(pending.status).toBe('PENDING');
  expect(pending.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  await sandbox.settle(chargeId);
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.succeeded'));
  expect(await handle.result()).toBe('PAID');
  expect((await paymentOf(paymentId)).charges).toMatchObject([{ status: 'succeeded' }]);
}, SLOW);

test('a cancel request stays PENDING until the processor confirms, then CANCELLED', async () => {
  const { paymentId, handle } = await checkout('4000002760003184');
  const chargeId = await pendingCharge(paymentId);
  // As PATCH /v0/payments/{id}/cancel does it: record the request, then signal the workflow.
  expect(await requestPaymentCancel(salesDb(), scopeOf(ws), paymentId)).toEqual({ success: true });
  await signalCancelRequested(temporal, paymentId);
  const cancelled = await outboxEvents(chargeId, 'charge.cancelled');
  expect((await paymentOf(paymentId)).status).toBe('PENDING');
  // At least once: the same event twice changes nothing.
  await handleProcessorEvents(salesDb(), temporal, [...cancelled, ...cancelled]);
  expect(await handle.result()).toBe('CANCELLED');
  expect(await paymentOf(paymentId)).toMatchObject({ status: 'CANCELLED', order: { status: 'CANCELLED' } });
}, SLOW);

test("an order's cancel reaches its pending payment's workflow", async () => {
  const { paymentId, handle } = await checkout('4000002760003184');
  const chargeId = await pendingCharge(paymentId);
  const { orderId } = await paymentOf(paymentId);
  // As PATCH /v0/orders/{id}/cancel does it.
  await cancelOrder(salesDb(), scopeOf(ws), orderId, {});
  await signalOrderCancelRequests(salesDb(), temporal, orderId);
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.cancelled'));
  expect(await handle.result()).toBe('CANCELLED');
  expect(await paymentOf(paymentId)).toMatchObject({ status: 'CANCELLED', order: { status: 'CANCELLED' } });
}, SLOW);

test('a cancel requested before the workflow started is honoured', async () => {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } });
  await salesDb().payment.update({ where: { id: payment.id }, data: { cancelRequestedAt: new Date() } });
  const handle = client.workflow.getHandle((await startPayment(salesDb(), temporal, sandbox, { paymentId: payment.id, card: card('4000002760003184') })).workflowId);
  const chargeId = await pendingCharge(payment.id);
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.cancelled'));
  expect(await handle.result()).toBe('CANCELLED');
}, SLOW);

test('a pending charge past its timeout: EXPIRED, and the charge is cancelled at the processor', async () => {
  const { paymentId, handle } = await checkout('4000002760003184', 2_000);
  expect(await handle.result()).toBe('EXPIRED');
  const chargeId = await pendingCharge(paymentId);
  // The workflow is gone: the late cancellation is applied directly and refused quietly.
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.cancelled'));
  expect(await paymentOf(paymentId)).toMatchObject({ status: 'EXPIRED', order: { status: 'EXPIRED' } });
}, SLOW);

test('a pending PayPal payment, which the processor cannot cancel, still expires', async () => {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } });
  const { workflowId } = await startPayment(salesDb(), temporal, sandbox, { paymentId: payment.id, expireAfterMs: 2_000 });
  expect(await client.workflow.getHandle(workflowId).result()).toBe('EXPIRED');
  expect(await paymentOf(payment.id)).toMatchObject({ status: 'EXPIRED', order: { status: 'EXPIRED' } });
}, SLOW);

/** The sandbox as seen while its API cannot be reached: every charge attempt fails before reaching it. */
const unreachable = (): PaymentProcessor =>
  Object.assign(Object.create(sandbox) as PaymentProcessor, {
    createCharge: () => Promise.reject(new ProcessorUnavailable('connect ECONNREFUSED')),
  });

test('a payment whose charge never reached the processor still expires (its workflow starts before the charge)', async () => {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } });
  const started = startPayment(salesDb(), temporal, unreachable(), { paymentId: payment.id, card: card('4242424242424242'), expireAfterMs: 2_000 });
  await expect(started).rejects.toBeInstanceOf(ProcessorUnavailable);
  expect(await client.workflow.getHandle(`payment-${payment.id}`).result()).toBe('EXPIRED');
  expect(await paymentOf(payment.id)).toMatchObject({ status: 'EXPIRED', charges: [], order: { status: 'EXPIRED' } });
}, SLOW);

test('a card the processor refuses before any charge exists: one failed attempt, the workflow ends FAILED, no attempt added', async () => {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } });
  // As Stripe's card errors come (no charge id): thrown by the request, not a failed charge.
  const refusing = Object.assign(Object.create(sandbox) as PaymentProcessor, { createCharge: () => Promise.reject(new CardDeclined('card_declined', 'Your card was declined.')) });
  const { workflowId, charge } = await startPayment(salesDb(), temporal, refusing, { paymentId: payment.id, card: card('4242424242424242') });
  expect(charge).toMatchObject({ status: 'failed', processorChargeId: null, failureCode: 'card_declined' });
  expect(await client.workflow.getHandle(workflowId).result()).toBe('FAILED');
  const after = await paymentOf(payment.id);
  expect(after).toMatchObject({ status: 'FAILED', failureCode: 'card_declined', order: { status: 'FAILED' } });
  expect(after.charges.map((c) => ({ attempt: c.attempt, status: c.status, processorChargeId: c.processorChargeId }))).toEqual([{ attempt: 0, status: 'failed', processorChargeId: null }]);
}, SLOW);

test('a retry after the processor was unreachable charges once and the waiting workflow ends PAID', async () => {
  const { payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'card' } });
  await expect(startPayment(salesDb(), temporal, unreachable(), { paymentId: payment.id, card: card('4242424242424242') })).rejects.toBeInstanceOf(ProcessorUnavailable);
  const { workflowId } = await startPayment(salesDb(), temporal, sandbox, { paymentId: payment.id, card: card('4242424242424242') });
  expect(await client.workflow.getHandle(workflowId).result()).toBe('PAID');
  expect(await paymentOf(payment.id)).toMatchObject({ status: 'PAID', charges: [{ status: 'succeeded' }] });
}, SLOW);

test('a confirmation after the workflow ended is applied directly', async () => {
  const { paymentId, handle } = await checkout('4000002760003184');
  const chargeId = await pendingCharge(paymentId);
  await handle.terminate('simulates a lost workflow');
  await sandbox.settle(chargeId);
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.succeeded'));
  expect((await paymentOf(paymentId)).status).toBe('PAID');
}, SLOW);

test('a pending payment outlives its worker: the confirmation sent while no worker runs is applied by the next one', async () => {
  const { paymentId, handle } = await checkout('4000002760003184');
  const chargeId = await pendingCharge(paymentId);
  await stopWorker();
  await sandbox.settle(chargeId);
  await handleProcessorEvents(salesDb(), temporal, await outboxEvents(chargeId, 'charge.succeeded'));
  await startWorker();
  expect(await handle.result()).toBe('PAID');
  const payment = await paymentOf(paymentId);
  expect(payment.status).toBe('PAID');
  expect(payment.charges).toMatchObject([{ status: 'succeeded' }]);
  expect(await salesDb().sandboxCharge.count({ where: { paymentId } })).toBe(1);
}, SLOW);
