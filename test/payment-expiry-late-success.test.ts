import { randomUUID } from 'node:crypto';

import type { Client } from '@temporalio/client';

import { createPaymentActivities } from '../src/payments/activities.js';
import { startPayment } from '../src/payments/payment-flow.js';
import { handleProcessorEvents } from '../src/payments/processor-callbacks.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { applySandboxWebhook } from '../src/payments/sandbox-webhook-relay.js';
import { markPaymentExpired } from '../src/payments/transitions.js';
import { createRefundActivities } from '../src/refunds/activities.js';
// The refunds domain registers, when loaded, the handler that gives stranded money back.
import '../src/refunds/module.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { TEST } from './support/refunds.js';
import { salesDb, seedOrder } from './support/sales.js';
import { ownQueueWorker } from './support/temporal-worker.js';

// A PayPal payment (the sandbox cannot cancel it) whose approval comes just as it expires: the
// money moved for a payment that is EXPIRED, so it must go back (an `expired_payment` refund). Two
// moments the webhook path and the workflow used to miss between them:
//   - the success arrives while the expiry activity runs: the webhook finds the payment PENDING and
//     signals; the workflow, its expiry done, reads the signal before it ends;
//   - the payment expires between the webhook's read and its signal: the workflow closes without
//     reading it; the webhook reads the payment again after signalling and applies it itself.
// A worker of this file's own on the suite's Temporal dev server and database runs the payment
// and refund workflows with the real activities; the first moment is made by delivering the
// success inside the expiry activity, before the expiry itself.

const SLOW = 120_000;

let worker: Awaited<ReturnType<typeof ownQueueWorker>>;
let temporal: TemporalConnection;
let ws: Workspace;
const sandbox = () => new SandboxProcessor({ prisma: salesDb() });
/** Payments whose approval this file's expiry activity delivers before it expires them. */
const approveDuringExpiry = new Set<string>();

/** The processor's success for the payment's pending charge, delivered as its webhook is. */
async function approveAtProcessor(paymentId: string): Promise<void> {
  const { processorChargeId } = await salesDb().charge.findFirstOrThrow({ where: { paymentId } });
  const processor = sandbox();
  await applySandboxWebhook(salesDb(), temporal, processor, await processor.settle(processorChargeId!));
}

beforeAll(async () => {
  ws = await newWorkspace('Late PayPal approvals', ['testMode=true']);
  worker = await ownQueueWorker('payment-expiry-late-success', (own) => {
    const payments = createPaymentActivities({ prisma: salesDb(), temporal: own });
    return {
      ...payments,
      ...createRefundActivities({ prisma: salesDb(), temporal: own }),
      async expirePayment(paymentId: string, attempt: number) {
        if (approveDuringExpiry.has(paymentId)) await approveAtProcessor(paymentId);
        return payments.expirePayment(paymentId, attempt);
      },
    };
  });
  temporal = worker.temporal;
}, SLOW);

afterAll(async () => {
  await worker?.stop();
});

/** The payment's money went back: one succeeded expired_payment refund of it, at the processor too; the payment stays EXPIRED. */
async function expectRefundedOnce(orderId: string, paymentId: string): Promise<void> {
  const refunded = await eventually(() => salesDb().refund.findMany({ where: { orderId } }), (rows) => rows.some((r) => r.status === 'succeeded'), 30_000);
  expect(refunded.map((r) => [r.source, r.amount, r.status])).toEqual([['expired_payment', 1000, 'succeeded']]);
  const atProcessor = await salesDb().sandboxRefund.findMany({ where: { charge: { paymentId } } });
  expect(atProcessor.map((r) => [r.amount, r.status])).toEqual([[1000, 'succeeded']]);
  expect(await salesDb().payment.findUniqueOrThrow({ where: { id: paymentId } })).toMatchObject({ status: 'EXPIRED', refundedAmount: 0 });
}

test('the approval arrives while the expiry runs: the workflow reads it after expiring and the money goes back', async () => {
  const { order, payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } }, TEST);
  approveDuringExpiry.add(payment.id);
  await startPayment(salesDb(), temporal, sandbox(), { paymentId: payment.id, expireAfterMs: 500 });
  expect(await temporal.client.workflow.getHandle(`payment-${payment.id}`).result()).toBe('EXPIRED');
  await expectRefundedOnce(order.id, payment.id);
}, SLOW);

test('the payment expires between the webhook\'s read and its signal: the webhook applies the approval itself', async () => {
  const { order, payment } = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } }, TEST);
  // Its workflow on a queue no worker polls: open, it never reads the signal (as a workflow that
  // has just expired the payment and is closing).
  await startPayment(salesDb(), { ...temporal, taskQueue: `unpolled-${randomUUID()}` }, sandbox(), { paymentId: payment.id, expireAfterMs: 3_600_000 });
  const { processorChargeId } = await salesDb().charge.findFirstOrThrow({ where: { paymentId: payment.id } });
  const processor = sandbox();
  const webhook = await processor.settle(processorChargeId!);
  // The expiry commits at the moment the webhook signals (after it read the payment PENDING).
  const expiringAtSignal: TemporalConnection = {
    ...temporal,
    client: {
      workflow: {
        getHandle: (workflowId: string) => ({
          signal: async (...args: Parameters<ReturnType<Client['workflow']['getHandle']>['signal']>) => {
            await salesDb().$transaction((tx) => markPaymentExpired(tx, payment.id));
            return temporal.client.workflow.getHandle(workflowId).signal(...args);
          },
        }),
        start: temporal.client.workflow.start.bind(temporal.client.workflow),
      },
    } as unknown as Client,
  };
  await handleProcessorEvents(salesDb(), expiringAtSignal, await processor.parseWebhook(webhook.rawBody, webhook.headers));
  await expectRefundedOnce(order.id, payment.id);
  await temporal.client.workflow.getHandle(`payment-${payment.id}`).terminate('test over');
}, SLOW);
