import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { operations } from '../generated/openapi.js';
import type { ProcessorEvent } from '../../src/payments/processors/processor.js';
import { SandboxProcessor } from '../../src/payments/processors/sandbox.js';
import { SandboxWebhooks, type SignedWebhook } from '../../src/payments/processors/sandbox-events.js';
import type { TemporalConnection } from '../../src/temporal/client.js';
import { baseUrl, type KeyChoice, type Workspace } from './api.js';
import { card, eventually, newCheckout, orderBody, placeOrder } from './checkout.js';
import { restClient } from './client.js';
import { ok } from './responses.js';
import { salesDb } from './sales.js';

// Refunds as an integrator calls them (typed from the published OpenAPI document, every answer
// checked against it), and paid orders made through the hosted checkout.

export const TEST: KeyChoice = { mode: 'test' };
export const VISA = '4242424242424242';
export const REFUND_FAILS = '4000000000005126';
/** Needs 3-D Secure: its payment stays PENDING until the buyer authenticates. */
export const AUTHENTICATE = '4000002760003184';

export type RefundBody = NonNullable<operations['refundOrder']['requestBody']>['content']['application/json'];

export const refund = (ws: Workspace, orderIdOrNumber: string, body: RefundBody = {}, key: KeyChoice = TEST) =>
  restClient(ws, key).PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber } }, body });

/**
 * A succeeded refund with a fresh idempotency key (an identical body without one would replay the
 * first refund): of `items`' units, or of everything left without them. `key` picks the order's mode.
 * Under load the answer may come pending after REFUND_WAIT_MS: as an integrator would, it then
 * reads the order (its `refunds[]`) until the refund settles.
 */
export async function refundUnits(ws: Workspace, orderIdOrNumber: string, items?: { id: string; quantity: number }[], key: KeyChoice = TEST) {
  const first = await ok(refund(ws, orderIdOrNumber, { idempotencyKey: `refund-${randomUUID()}`, ...(items ? { items } : {}) }, key));
  const result = first.status === 'pending' ? await settledRefund(ws, first, key) : first;
  if (result.status !== 'succeeded') throw new Error(`the refund is ${result.status}: ${JSON.stringify(result)}`);
  return result;
}

async function settledRefund(ws: Workspace, pending: { refundId: string; orderId: string }, key: KeyChoice) {
  const order = await eventually(
    () => getOrder(ws, pending.orderId, key),
    (o) => o.refunds.some((r) => r.refundId === pending.refundId && r.status !== 'pending'),
    60_000,
    500,
  );
  return { ...order.refunds.find((r) => r.refundId === pending.refundId)!, orderStatus: order.status };
}

export const refundable = (ws: Workspace, orderIdOrNumber: string, key: KeyChoice = TEST) =>
  restClient(ws, { ...key, write: false }).GET('/v0/orders/{orderIdOrNumber}/refundable', { params: { path: { orderIdOrNumber } } });

export const getOrder = async (ws: Workspace, orderIdOrNumber: string, key: KeyChoice = TEST) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber } } }))).order;

export const getPayment = async (ws: Workspace, paymentId: string, key: KeyChoice = TEST) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/payments/{paymentId}', { params: { path: { paymentId } } }))).payment;

export const testHelper = (ws: Workspace, action: 'dispute' | 'lose-dispute' | 'fail-dispute-check' | 'settle', paymentId: string) =>
  restClient(ws, TEST).POST(`/v0/test-helpers/payments/{paymentId}/${action}`, { params: { path: { paymentId } }, body: {} });

/** A checkout element of the workspace selling one offer at `price`, in test mode. */
export const sellingElement = async (ws: Workspace, price = 1000) => (await newCheckout(ws, { price, key: TEST })).element;

/** An order paid through the hosted checkout (PAID at once with these cards). */
export async function paidOrder(elementId: string, options: { number?: string; quantity?: number; method?: 'card' | 'manual' } = {}) {
  const { number = VISA, quantity = 1, method = 'card' } = options;
  return placeOrder(elementId, method === 'card' ? orderBody({ card: card(number), quantity }) : orderBody({ card: undefined, method, quantity }));
}

/** A Temporal client on the suite's dev server, for tests that call the service functions. */
export async function suiteTemporal(): Promise<TemporalConnection> {
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  return {
    client: new Client({ connection }),
    namespace: 'default',
    address,
    taskQueue: 'commerce',
    connectionOptions: { address },
    failure: new Promise<never>(() => undefined),
    stop: () => connection.close(),
  };
}

/**
 * The sandbox's undelivered webhooks about these charges, oldest first, signed now: read by
 * their charge ids, so that every other test's undelivered events in the shared database (the
 * suite's server leaves the outbox alone) neither hide them nor slow the read.
 */
export async function sandboxWebhooksOf(chargeIds: readonly string[]): Promise<SignedWebhook[]> {
  const webhooks = new SandboxWebhooks(salesDb(), () => new Date());
  const rows = await salesDb().sandboxEvent.findMany({ where: { chargeId: { in: [...chargeIds] }, acknowledgedAt: null }, orderBy: { sequence: 'asc' } });
  return Promise.all(rows.map((row) => webhooks.sign(row.payload as unknown as ProcessorEvent)));
}

/**
 * Delivers the sandbox's undelivered webhooks about these charges through the processor webhook
 * ingress (the suite's server, or the API at `url`), as its relay would (the suite's server leaves
 * the sandbox's outbox undelivered).
 */
export async function deliverSandboxWebhooks(chargeIds: readonly string[], url = baseUrl()): Promise<number> {
  const sandbox = new SandboxProcessor({ prisma: salesDb() });
  let delivered = 0;
  for (const webhook of await sandboxWebhooksOf(chargeIds)) {
    const response = await fetch(`${url}/processor-webhooks/sandbox`, { method: 'POST', body: webhook.rawBody, headers: webhook.headers });
    if (response.status !== 200) throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
    await sandbox.acknowledgeWebhook(webhook.eventId);
    delivered += 1;
  }
  return delivered;
}
