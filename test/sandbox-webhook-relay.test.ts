import './support/domains.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';

import { createPrismaClient } from '../src/db/client.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { createOrder } from '../src/orders/service.js';
import { startPayment } from '../src/payments/payment-flow.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { keyHeaders, type Workspace } from './support/api.js';
import { scratchDatabase, type ScratchDatabase } from './support/database.js';
import { runCli, startServerProcess, type ServerProcess } from './support/processes.js';

// The sandbox delivers its own webhooks, as a processor would: a server with the relay on (the
// suite's shared server holds the outbox for the tests that read it), on a database of its own so
// that its relay takes no other test's events.

const SLOW = 120_000;
const card = (number: string) => ({ number, expMonth: 12, expYear: 2034, cvc: '123' });

let database: ScratchDatabase;
let server: ServerProcess;
let prisma: PrismaClient;
let connection: Connection;
let temporal: TemporalConnection;
let ws: Workspace;

beforeAll(async () => {
  database = await scratchDatabase();
  const taskQueue = `relay-${randomUUID()}`;
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  server = await startServerProcess({ DATABASE_URL: database.url, TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, SANDBOX_WEBHOOK_DELIVERY: 'true' });
  ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Relay'], { DATABASE_URL: database.url });
  prisma = createPrismaClient(database.url);
  connection = await Connection.connect({ address });
  const client = new Client({ connection });
  temporal = { client, namespace: 'default', address, taskQueue, connectionOptions: { address }, failure: new Promise<never>(() => undefined), stop: () => connection.close() };
}, SLOW);

afterAll(async () => {
  await connection?.close();
  await prisma?.$disconnect();
  await server?.stop();
  await database?.drop();
});

/** A sandbox card payment started as checkout starts it; the worker and the relay are the server's. */
async function pay(number: string) {
  const scope = { workspaceId: ws.workspaceId, livemode: true };
  const { payment } = await prisma.$transaction((tx) =>
    createOrder(tx, scope, { user: null, currency: 'USD', items: [{ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice: 2500 }], payment: { processor: 'sandbox', methodType: 'card' } }),
  );
  await startPayment(prisma, temporal, new SandboxProcessor({ prisma }), { paymentId: payment.id, card: card(number) });
  return payment.id;
}

/** GET /v0/payments/{id} until `done` holds (the relay runs about once a second). */
async function paymentWhen(paymentId: string, done: (payment: { status: string; disputed: boolean }) => boolean) {
  let payment: { status: string; disputed: boolean } | undefined;
  for (let i = 0; i < 100; i += 1) {
    const response = await fetch(`${server.url}/v0/payments/${paymentId}`, { headers: keyHeaders(ws, { write: false }) });
    expect(response.status).toBe(200);
    payment = ((await response.json()) as { data: { payment: { status: string; disputed: boolean } } }).data.payment;
    if (done(payment)) return payment;
    await sleep(200);
  }
  throw new Error(`payment ${paymentId} stayed ${JSON.stringify(payment)}`);
}

const undelivered = () => prisma.sandboxEvent.count({ where: { acknowledgedAt: null } });

test('a charge the sandbox disputes on its own (4000000000000259) reaches the payment: PAID, then disputed', async () => {
  const paymentId = await pay('4000000000000259');
  expect(await paymentWhen(paymentId, (p) => p.disputed && p.status !== 'PENDING')).toMatchObject({ status: 'PAID', disputed: true });
  const order = await prisma.order.findFirstOrThrow({ where: { payments: { some: { id: paymentId } } } });
  expect(order.disputed).toBe(true);
}, SLOW);

test('a pending 3-D Secure charge settled at the sandbox is confirmed through the relay, and the outbox empties', async () => {
  const paymentId = await pay('4000002760003184');
  expect((await paymentWhen(paymentId, () => true)).status).toBe('PENDING');
  const { processorChargeId } = await prisma.charge.findFirstOrThrow({ where: { paymentId } });
  // The sandbox's books change; nobody hands the returned webhook on: the relay delivers it.
  await new SandboxProcessor({ prisma }).settle(processorChargeId!);
  expect((await paymentWhen(paymentId, (p) => p.status !== 'PENDING')).status).toBe('PAID');
  for (let i = 0; i < 50 && (await undelivered()) > 0; i += 1) await sleep(200);
  expect(await undelivered()).toBe(0);
}, SLOW);
