import { randomUUID } from 'node:crypto';

import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { startServerProcess, ownTaskQueueEnv, type ServerProcess } from './support/processes.js';
import { deliverSandboxWebhooks, getOrder, paidOrder, refund, refundable, sellingElement, TEST } from './support/refunds.js';
import { salesDb } from './support/sales.js';

// A refund part the processor fails after it succeeded (the sandbox's failRefund, delivered through
// the webhook ingress as the processor's refund.failed): the platform fee comes back exactly, the
// units come back (downloads and keys work again while the merchant keeps the money), and a
// payment's fee comes back by the rule it was charged under, not the one the process has today.
// The suite's server (5% + 50: an order of 1000 pays 100, of which 50 can come back).

const SLOW = 180_000;

let ws: Workspace;
let element: string;

beforeAll(async () => {
  ws = await newWorkspace('Refunds failing after success', ['testMode=true']);
  element = (await sellingElement(ws, 500)).id;
}, SLOW);

const key = () => `refund-${randomUUID()}`;

/** The processor fails the refund's (succeeded) share afterwards; its webhook is delivered through the ingress. */
async function failLater(result: { payments: Array<{ processorRefundId: string | null }> }, chargeId: string) {
  const sandbox = new SandboxProcessor({ prisma: salesDb() });
  await sandbox.failRefund(result.payments[0]!.processorRefundId!);
  // With the charge's earlier events, redelivered: they change nothing.
  expect(await deliverSandboxWebhooks([chargeId])).toBeGreaterThanOrEqual(1);
}

const chargeOf = async (paymentId: string) => (await salesDb().payment.findUniqueOrThrow({ where: { id: paymentId } })).processorChargeId!;

test('a share that fails after succeeding takes back exactly its fee: everything refunded in the end returns exactly the percentage part, the fixed part kept', async () => {
  const { order, payment } = await paidOrder(element, { quantity: 2 });
  expect(order).toMatchObject({ value: 1000, fee: 100 });
  const chargeId = await chargeOf(payment.id);
  // 16 and then 17 come back: the cumulative shares of 50 at 333 and 666.
  const first = await ok(refund(ws, order.id, { amount: 333, idempotencyKey: key() }));
  const second = await ok(refund(ws, order.id, { amount: 333, idempotencyKey: key() }));
  expect([first.feeRefunded, second.feeRefunded]).toEqual([16, 17]);

  await failLater(first, chargeId);
  expect((await getOrder(ws, order.id)).refunds.map((r) => [r.status, r.feeRefunded])).toEqual([['failed', 0], ['succeeded', 17]]);
  expect(await getOrder(ws, order.id)).toMatchObject({ status: 'PARTIALLY_REFUNDED', fee: 83 });

  const rest = await ok(refund(ws, order.id, { idempotencyKey: key() }));
  expect(rest).toMatchObject({ status: 'succeeded', amount: 667, orderStatus: 'REFUNDED' });
  // 17 + 33: what one full refund returns. The fixed 50 stays with the platform.
  expect(rest.feeRefunded).toBe(33);
  expect(await getOrder(ws, order.id)).toMatchObject({ status: 'REFUNDED', fee: 50 });
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: 'REFUNDED', fee: 50, refundedAmount: 1000 });
}, SLOW);

test('units come back when the refund that took them fails after succeeding, also those a refund reaching REFUNDED marked', async () => {
  const { order, payment } = await paidOrder(element, { quantity: 2 });
  const chargeId = await chargeOf(payment.id);
  const [item] = (await getOrder(ws, order.id)).items;
  // An amount without items that refunds everything: the order is REFUNDED, every unit refunded.
  const whole = await ok(refund(ws, order.id, { amount: 1000, idempotencyKey: key() }));
  expect(whole).toMatchObject({ status: 'succeeded', orderStatus: 'REFUNDED', items: [] });
  expect((await ok(refundable(ws, order.id))).refundable.items).toEqual([expect.objectContaining({ id: item!.id, refundedQuantity: 2, refundableQuantity: 0 })]);

  await failLater(whole, chargeId);
  const after = await getOrder(ws, order.id);
  expect(after).toMatchObject({ status: 'PAID', fee: 100 });
  expect(after.refunds).toEqual([expect.objectContaining({ status: 'failed' })]);
  expect((await ok(refundable(ws, order.id))).refundable).toMatchObject({ amount: 1000, items: [expect.objectContaining({ id: item!.id, refundedQuantity: 0, refundableQuantity: 2 })] });

  // A unit refunded by its own refund that then fails comes back too; the other refund's unit stays refunded.
  const one = await ok(refund(ws, order.id, { items: [{ id: item!.id, quantity: 1 }], idempotencyKey: key() }));
  const other = await ok(refund(ws, order.id, { items: [{ id: item!.id, quantity: 1 }], idempotencyKey: key() }));
  expect([one.status, other.status]).toEqual(['succeeded', 'succeeded']);
  await failLater(one, chargeId);
  expect((await ok(refundable(ws, order.id))).refundable.items).toEqual([expect.objectContaining({ refundedQuantity: 1, refundableQuantity: 1 })]);
  expect(await getOrder(ws, order.id)).toMatchObject({ status: 'PARTIALLY_REFUNDED' });
}, SLOW);

describe('a payment refunded after the platform fee rule changed', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // Another process with today's rule (10%, nothing fixed) and a worker of its own runs the refund.
    server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL!, ...ownTaskQueueEnv('fee-rule'), SANDBOX_WEBHOOK_DELIVERY: 'false', PLATFORM_FEE_PERCENT: '10', PLATFORM_FEE_FIXED: '0' });
  }, SLOW);
  afterAll(async () => {
    await server?.stop();
  });

  test('the fee comes back by the rule the payment was charged under (5% + 50), not today\'s', async () => {
    const { order } = await paidOrder(element, { quantity: 2 });
    expect(order).toMatchObject({ value: 1000, fee: 100 });
    const client = restClient(ws, TEST, server.url);
    expect((await ok(client.GET('/v0/orders/{orderIdOrNumber}/refundable', { params: { path: { orderIdOrNumber: order.id } } }))).refundable).toMatchObject({ amount: 1000, fee: 50 });
    const result = await ok(client.PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: order.id } }, body: { idempotencyKey: key() } }));
    const settled = result.status === 'pending' ? (await eventually(() => getOrder(ws, order.id), (o) => o.refunds[0]?.status !== 'pending', 60_000)).refunds[0]! : result;
    expect(settled).toMatchObject({ status: 'succeeded', feeRefunded: 50 });
    expect(await getOrder(ws, order.id)).toMatchObject({ status: 'REFUNDED', fee: 50 });
  }, SLOW);
});
