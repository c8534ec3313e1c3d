import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import Stripe from 'stripe';

import { markPaymentPaid, recordCharge } from '../src/payments/transitions.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { ownTaskQueueEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { getOrder, TEST } from './support/refunds.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';

// A processor that never answers a refund (Stripe answering 500 to every call, counted by a
// stand-in for its API) is not asked past its idempotency key's window (PROCESSOR_KEY_WINDOW_SECONDS,
// 5 s here): a call under a key the processor forgot could refund twice. The refund ends
// requires_attention with refund_requires_attention recorded, its money still reserved; no later
// retry, outbox round or same-key request calls the processor again, and the processor's own word
// (its webhook) still settles it. A server on Stripe with a worker of its own, on the suite's database.

const SLOW = 180_000;
const WEBHOOK_SECRET = 'whsec_key_window';

let stripeApi: Server;
let calls = 0;
let server: ServerProcess;
let ws: Workspace;
let connection: Connection;

beforeAll(async () => {
  stripeApi = createServer((request, response) => {
    calls += 1;
    request.resume();
    response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
  });
  await new Promise<void>((resolve) => stripeApi.listen(0, '127.0.0.1', resolve));
  server = await startServerProcess({
    DATABASE_URL: process.env.DATABASE_URL!,
    ...ownTaskQueueEnv('key-window'),
    SANDBOX_WEBHOOK_DELIVERY: 'false',
    PAYMENT_PROCESSOR: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_key_window',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: `http://127.0.0.1:${(stripeApi.address() as AddressInfo).port}`,
    PROCESSOR_KEY_WINDOW_SECONDS: '5',
    REFUND_RESUME_AFTER_SECONDS: '1',
    REFUND_WAIT_MS: '500',
  });
  ws = await newWorkspace('Refund key window', ['testMode=true']);
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
}, SLOW);

afterAll(async () => {
  await server?.stop();
  await connection?.close();
  await new Promise((resolve) => stripeApi?.close(resolve));
});

test('no answer within the key window: requires_attention, the money reserved, the processor never asked again; its webhook settles it later', async () => {
  const chargeId = `pi_${randomUUID().replace(/-/g, '')}`;
  const { order, payment } = await seedOrder(ws, { payment: { processor: 'stripe', methodType: 'card' } }, TEST);
  await salesDb().$transaction(async (tx) => {
    await recordCharge(tx, payment.id, 0, { processor: 'stripe', processorChargeId: chargeId, status: 'succeeded', amount: 1000, currency: 'USD' });
    await markPaymentPaid(tx, payment.id, { processorChargeId: chargeId });
  });
  const client = restClient(ws, TEST, server.url);
  const patch = () => client.PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: order.id } }, body: { amount: 300, idempotencyKey: 'window' } });
  const answer = await ok(patch());
  expect(answer).toMatchObject({ status: 'pending', amount: 300 });

  const held = (await eventually(() => getOrder(ws, order.id), (o) => o.refunds[0]?.status !== 'pending', 60_000)).refunds[0]!;
  expect(held).toMatchObject({ refundId: answer.refundId, status: 'requires_attention', failureCode: 'processor_no_answer', payments: [expect.objectContaining({ status: 'requires_attention', processorRefundId: null })] });
  // Asked until the window's end (not at all when a loaded machine starts the workflow later than that), then never again.
  const asked = calls;
  // The money stays reserved: whether it moved is unknown.
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'PAID', refundedAmount: 300 });
  expect((await ok(client.GET('/v0/orders/{orderIdOrNumber}/refundable', { params: { path: { orderIdOrNumber: order.id } } }))).refundable).toMatchObject({ amount: 700 });
  expect(await eventsAbout(ws, 'refund_requires_attention', 'payment', payment.id)).toEqual([expect.objectContaining({ payload: expect.objectContaining({ refund: expect.objectContaining({ status: 'requires_attention' }) }) })]);

  // A same-key request returns the refund as it is; the workflow stays closed; the outbox leaves it alone.
  expect(await ok(patch())).toMatchObject({ refundId: answer.refundId, replayed: true, status: 'requires_attention' });
  await sleep(3_000);
  expect(calls).toBe(asked);
  const description = await new Client({ connection }).workflow.getHandle(answer.workflowId).describe();
  expect(description.status.name).toBe('COMPLETED');

  // The processor's word, when it comes (its webhook, or the reconciliation through the same code), settles it.
  const refund = { id: `re_${randomUUID().slice(0, 8)}`, object: 'refund', payment_intent: chargeId, amount: 300, currency: 'usd', status: 'succeeded', metadata: { refundId: answer.refundId, paymentId: payment.id } };
  const payload = JSON.stringify({ id: `evt_${randomUUID().slice(0, 8)}`, object: 'event', type: 'refund.updated', created: Math.floor(Date.now() / 1000), livemode: false, data: { object: refund } });
  const delivered = await fetch(`${server.url}/processor-webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) }, body: payload });
  expect(delivered.status).toBe(200);
  expect((await getOrder(ws, order.id)).refunds[0]).toMatchObject({ status: 'succeeded', payments: [expect.objectContaining({ processorRefundId: refund.id })] });
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'PARTIALLY_REFUNDED', refundedAmount: 300 });
  expect(calls).toBe(asked);
}, SLOW);
