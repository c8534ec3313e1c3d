import { createPaymentActivities } from '../src/payments/activities.js';
import { recordCharge } from '../src/payments/transitions.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { signalCancelRequested } from '../src/payments/processor-callbacks.js';
import { newWorkspace } from './support/api.js';
import { salesDb, seedOrder } from './support/sales.js';
import { STRIPE_MOCK_PROVISION_TIMEOUT_MS, findOrProvisionStripeMock, startStripeMock, type StripeMock } from './support/stripe-mock.js';
import { ownQueueWorker } from './support/temporal-worker.js';

// A cancel that Stripe refuses for good (our key refused: 401/403) is not retried forever: the
// payment workflow's cancel fails once, non-retryable, and the payment still expires on time
// (its reservations given back). The workflow runs on the suite's Temporal dev server with a
// worker of its own whose processor is Stripe (stripe-mock) with a key stripe-mock refuses.

const SLOW = 120_000;
const executable = await findOrProvisionStripeMock().catch(() => undefined);
const describeWithMock = executable ? describe : describe.skip;

let mock: StripeMock | undefined;
let worker: Awaited<ReturnType<typeof ownQueueWorker>> | undefined;
let temporal: TemporalConnection;

beforeAll(async () => {
  if (!executable) return;
  mock = await startStripeMock(executable);
  worker = await ownQueueWorker('payment-cancel-refused', (own) => {
    // The activities read their processor from the environment, as a worker process does.
    const saved = { ...process.env };
    Object.assign(process.env, { PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_live_not_a_test_key', STRIPE_WEBHOOK_SECRET: 'whsec_refused', STRIPE_API_BASE: mock!.url });
    const activities = createPaymentActivities({ prisma: salesDb(), temporal: own });
    process.env = saved;
    return activities;
  });
  temporal = worker.temporal;
}, STRIPE_MOCK_PROVISION_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
  await mock?.stop();
});

describeWithMock('a processor that refuses our credentials', () => {
  test('the cancel fails once (non-retryable) and the payment expires on time', async () => {
    const ws = await newWorkspace('Payment cancel refused', ['testMode=true']);
    const { payment } = await seedOrder(ws, { payment: { processor: 'stripe', methodType: 'card' } }, { mode: 'test' });
    await salesDb().$transaction((tx) => recordCharge(tx, payment.id, 1, { processor: 'stripe', processorChargeId: 'pi_123', status: 'pending', amount: 1000, currency: 'USD' }));
    const handle = await temporal.client.workflow.start('paymentWorkflow', { taskQueue: temporal.taskQueue, workflowId: `payment-${payment.id}`, args: [{ paymentId: payment.id, attempt: 1, expireAfterMs: 4_000 }] });
    await signalCancelRequested(temporal, payment.id);

    expect(await handle.result()).toBe('EXPIRED');
    const { events } = await handle.fetchHistory();
    const failures = (events ?? []).filter((e) => e.activityTaskFailedEventAttributes);
    expect(failures.map((e) => e.activityTaskFailedEventAttributes!.failure?.applicationFailureInfo)).toEqual([expect.objectContaining({ type: 'ProcessorAuthenticationFailed', nonRetryable: true })]);
    const started = (events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    expect(started.every((e) => e.activityTaskStartedEventAttributes!.attempt === 1)).toBe(true);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id }, include: { order: true } })).toMatchObject({ status: 'EXPIRED', order: { status: 'EXPIRED' } });
  }, SLOW);
});
