import { randomUUID } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';

import { startPayment } from '../src/payments/payment-flow.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { baseUrl, keyHeaders, newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';

// The test helpers (POST /v0/test-helpers/payments/{paymentId}/settle|fail|dispute) and the
// processor webhook ingress (POST /processor-webhooks/{processor}) through the suite's server,
// whose in-process worker runs the payment workflows (task queue 'commerce').

const SLOW = 60_000;
const TEST: KeyChoice = { mode: 'test' };
const THREE_DS = '4000002760003184';
const VISA = '4242424242424242';
const card = (number: string) => ({ number, expMonth: 12, expYear: 2034, cvc: '123' });

let connection: Connection;
let temporal: TemporalConnection;
let sandbox: SandboxProcessor;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  temporal = {
    client: new Client({ connection }),
    namespace: 'default',
    address: process.env.TEST_TEMPORAL_ADDRESS!,
    taskQueue: 'commerce',
    connectionOptions: { address: process.env.TEST_TEMPORAL_ADDRESS! },
    failure: new Promise<never>(() => undefined),
    stop: () => connection.close(),
  };
  sandbox = new SandboxProcessor({ prisma: salesDb() });
  [ws, other] = await Promise.all([newWorkspace('Test helpers', ['testMode=true']), newWorkspace('Test helpers elsewhere', ['testMode=true'])]);
}, SLOW);

afterAll(async () => {
  await connection?.close();
});

/** A test-mode card payment started as checkout starts it: a 3-D Secure card leaves it PENDING with a pending charge. */
async function payment(number = THREE_DS, owner = ws) {
  const { payment } = await seedOrder(owner, { payment: { processor: 'sandbox', methodType: 'card' } }, TEST);
  await startPayment(salesDb(), temporal, sandbox, { paymentId: payment.id, card: card(number), expireAfterMs: 60_000 });
  return payment.id;
}

const helper = (action: 'settle' | 'fail' | 'dispute', paymentId: string, key: KeyChoice = TEST, owner = ws) =>
  restClient(owner, key).POST(`/v0/test-helpers/payments/{paymentId}/${action}`, { params: { path: { paymentId } }, body: {} });
const getPayment = (paymentId: string) => restClient(ws, { ...TEST, write: false }).GET('/v0/payments/{paymentId}', { params: { path: { paymentId } } });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return read();
}

const postWebhook = (processor: string, rawBody: string, headers: Record<string, string>) =>
  fetch(`${baseUrl()}/processor-webhooks/${processor}`, { method: 'POST', body: rawBody, headers: { 'content-type': 'application/json', ...headers } });

describe('test helpers', () => {
  test('settle: a 3-D Secure payment becomes PAID, answered as GET shows it, with payment_success recorded', async () => {
    const paymentId = await payment();
    expect((await ok(getPayment(paymentId))).payment.status).toBe('PENDING');
    const { payment: settled } = await ok(helper('settle', paymentId));
    expect(settled).toMatchObject({ id: paymentId, status: 'PAID' });
    expect(settled.charges.at(-1)).toMatchObject({ status: 'succeeded' });
    const { payment: shown } = await ok(getPayment(paymentId));
    expect(shown.status).toBe('PAID');
    expect(await eventsAbout(ws, 'payment_success', 'payment', paymentId)).toHaveLength(1);
    // Settling it again: no pending charge.
    const again = await failure(helper('settle', paymentId));
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/no pending charge/);
  }, SLOW);

  test('fail: a 3-D Secure payment becomes FAILED', async () => {
    const paymentId = await payment();
    const { payment: failed } = await ok(helper('fail', paymentId));
    expect(failed.status).toBe('FAILED');
    expect((await ok(getPayment(paymentId))).payment.status).toBe('FAILED');
  }, SLOW);

  test('dispute: a PAID payment shows disputed; a PENDING one cannot be disputed', async () => {
    const pending = await payment();
    expect((await failure(helper('dispute', pending))).status).toBe(400);
    const paymentId = await payment(VISA);
    await until(() => salesDb().payment.findUniqueOrThrow({ where: { id: paymentId } }), (p) => p.status === 'PAID');
    const { payment: disputed } = await ok(helper('dispute', paymentId));
    expect(disputed).toMatchObject({ status: 'PAID', disputed: true });
    expect((await ok(getPayment(paymentId))).payment.disputed).toBe(true);
    expect((await failure(helper('dispute', paymentId))).status).toBe(400);
  }, SLOW);

  test('a live key gets 401; another workspace 404; an unknown id 404, a malformed one 400', async () => {
    const paymentId = await payment();
    const live = await failure(helper('settle', paymentId, { mode: 'live' }));
    expect(live).toMatchObject({ status: 401, body: { status: 'error' } });
    expect((await failure(helper('settle', paymentId, TEST, other))).status).toBe(404);
    expect((await failure(helper('settle', randomUUID()))).status).toBe(404);
    expect((await failure(helper('settle', 'not-a-uuid'))).status).toBe(400);
    // None of that touched it.
    expect((await ok(getPayment(paymentId))).payment.status).toBe('PENDING');
  }, SLOW);
});

describe('POST /processor-webhooks/{processor}', () => {
  test('a sandbox-signed webhook is applied; a tampered one is 400 and changes nothing', async () => {
    const paymentId = await payment();
    const { charges } = await salesDb().payment.findUniqueOrThrow({ where: { id: paymentId }, include: { charges: true } });
    const webhook = await sandbox.settle(charges[0]!.processorChargeId!);

    const tampered = await postWebhook('sandbox', webhook.rawBody.replace('charge.succeeded', 'charge.failed'), webhook.headers);
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ status: 'error', error: { message: expect.any(String) } });
    const unsigned = await postWebhook('sandbox', webhook.rawBody, {});
    expect(unsigned.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await ok(getPayment(paymentId))).payment.status).toBe('PENDING');

    const applied = await postWebhook('sandbox', webhook.rawBody, webhook.headers);
    expect(applied.status).toBe(200);
    expect(await applied.json()).toEqual({ status: 'success', data: { received: 1 } });
    const paid = await until(async () => (await ok(getPayment(paymentId))).payment, (p) => p.status === 'PAID');
    expect(paid.status).toBe('PAID');
  }, SLOW);

  test('no API keys are needed, another processor is 404, and the route is outside /v0', async () => {
    expect((await postWebhook('stripe', '{}', {})).status).toBe(404);
    const withKeys = await postWebhook('sandbox', '{}', keyHeaders(ws, TEST));
    expect(withKeys.status).toBe(400);
  });
});
