import { randomUUID } from 'node:crypto';

import { Client, Connection } from '@temporalio/client';

import { TemporarilyUnavailable } from '../src/core/errors.js';
import { createSubscription } from '../src/subscriptions/plan.js';
import { ProcessorUnavailable, type PaymentProcessor } from '../src/payments/processors/processor.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ownTaskQueueEnv, startServerProcess } from './support/processes.js';
import { failure, ok } from './support/responses.js';
import { newCatalogue, salesDb, scopeOf } from './support/sales.js';
import { advance, DAY, paymentsOf, replaceCard, subscribe, TEST } from './support/subscriptions.js';

// Idempotency-Key on POST /v0/subscriptions/create and PATCH /v0/subscriptions/{id}/update, a
// create whose processor could not be reached, and an off-session renewal that needs
// authentication: through real HTTP, PostgreSQL, the Temporal dev server and the sandbox
// processor, every answer checked against the OpenAPI document by the typed client.

const SLOW = 180_000;
/** Needs 3-D Secure: on-session pending until authenticated; off-session declined authentication_required. */
const AUTHENTICATE = '4000002760003184';

let ws: Workspace;
let basic: { offerId: string; element: string };
let pro: { offerId: string; element: string };
let connection: Connection;

async function offer(price: number) {
  const catalogue = await newCatalogue(ws, price, TEST, { recurringInterval: 'month' });
  const { checkoutElement } = await ok(restClient(ws, TEST).POST('/v0/elements/checkout/create', { body: { offersIds: [catalogue.offer.id] } }));
  return { offerId: catalogue.offer.id as string, element: checkoutElement.id as string };
}

beforeAll(async () => {
  ws = await newWorkspace('Subscription idempotency', ['testMode=true']);
  [basic, pro] = await Promise.all([offer(900), offer(2000)]);
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
}, SLOW);

afterAll(async () => {
  await connection?.close();
});

type Item = { offerId?: string; unitPrice?: number; quantity?: number };

const create = (key: string, userId: string, items: Item[]) =>
  restClient(ws, TEST).POST('/v0/subscriptions/create', { params: { header: { 'Idempotency-Key': key } }, body: { userId, items } });
const update = (key: string, id: string, items: Item[]) =>
  restClient(ws, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/update', { params: { header: { 'Idempotency-Key': key }, path: { subscriptionIdOrNumber: id } }, body: { items } });
const subscriptionsOf = (userId: string) => salesDb().subscription.count({ where: { workspaceId: ws.workspaceId, userId } });
const chargesOf = (paymentId: string) => salesDb().sandboxCharge.count({ where: { paymentId } });

describe('create with an Idempotency-Key', () => {
  test('the same key and body: the same subscription and payment, charged once; another body: 400, nothing created; another key: a new subscription', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    const key = randomUUID();
    const one = await ok(create(key, userId, [{ offerId: basic.offerId, unitPrice: 700 }]));
    expect(one).toMatchObject({ subscription: { status: 'active', amount: 700 }, payment: { status: 'PAID', amount: 700 } });
    // The same request again; an item's offer id in capitals and its quantity left out are the same request.
    const again = await ok(create(key, userId, [{ offerId: basic.offerId.toUpperCase(), unitPrice: 700 }]));
    // The subscription's clock is the time of the read (a subscription without a test clock).
    expect(again).toEqual({ ...one, subscription: { ...one.subscription, clock: expect.any(Number) } });
    expect(again.subscription.clock).toBeGreaterThanOrEqual(one.subscription.clock);
    expect(await chargesOf(one.payment!.id)).toBe(1);
    expect(await subscriptionsOf(userId)).toBe(2);
    expect(await failure(create(key, userId, [{ offerId: basic.offerId, unitPrice: 701 }]))).toEqual({
      status: 400, body: { status: 'error', error: { message: 'Idempotency-Key was already used with a different request body' } },
    });
    expect(await subscriptionsOf(userId)).toBe(2);
    const other = await ok(create(randomUUID(), userId, [{ offerId: basic.offerId, unitPrice: 700 }]));
    expect(other.subscription.id).not.toBe(one.subscription.id);
    expect(await subscriptionsOf(userId)).toBe(3);
    expect((await failure(create('', userId, [{ offerId: basic.offerId }]))).status).toBe(400);
  }, SLOW);

  test('concurrent duplicates with one key: one subscription, one charge, every answer the same', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => ok(create(key, userId, [{ offerId: pro.offerId }]))));
    expect(new Set(answers.map((a) => a.subscription.id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.payment!.id)).size).toBe(1);
    expect(answers.map((a) => [a.subscription.status, a.payment!.status])).toEqual(answers.map(() => ['active', 'PAID']));
    expect(await subscriptionsOf(userId)).toBe(2);
    expect(await chargesOf(answers[0]!.payment!.id)).toBe(1);
  }, SLOW);
});

describe('update with an Idempotency-Key', () => {
  test('a repeated upgrade: the same plan-change payment, charged once, the change applied once; another body: 400; concurrent duplicates: one payment', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    const key = randomUUID();
    const upgraded = await ok(update(key, order.number, [{ offerId: pro.offerId }]));
    expect(upgraded).toMatchObject({ subscription: { amount: 2000 }, payment: { status: 'PAID', planChange: true } });
    // Charged through its payment workflow, as a checkout's payment.
    expect(await new Client({ connection }).workflow.getHandle(`payment-${upgraded.payment!.id}`).result()).toBe('PAID');
    // A downgrade in between: a repeat of the upgrade must not apply the upgrade (nor charge) again.
    await ok(update(randomUUID(), order.number, [{ offerId: basic.offerId }]));
    const again = await ok(update(key, order.number, [{ offerId: pro.offerId }]));
    expect(again.payment).toEqual(upgraded.payment);
    expect(again.subscription.amount).toBe(900);
    expect(await chargesOf(upgraded.payment!.id)).toBe(1);
    expect(await failure(update(key, order.number, [{ offerId: pro.offerId, quantity: 2 }]))).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/different request body/) } } });

    const burstKey = randomUUID();
    const burst = await Promise.all(Array.from({ length: 5 }, () => ok(update(burstKey, order.number, [{ offerId: pro.offerId, quantity: 2 }]))));
    expect(new Set(burst.map((a) => a.payment?.id)).size).toBe(1);
    expect(burst[0]!.payment).toMatchObject({ status: 'PAID', planChange: true });
    const planChanges = (await paymentsOf(subscription.id)).filter((p) => p.planChange);
    expect(planChanges.map((p) => p.id)).toEqual([upgraded.payment!.id, burst[0]!.payment!.id]);
    expect(await chargesOf(burst[0]!.payment!.id)).toBe(1);
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).amount).toBe(4000);
  }, SLOW);
});

describe('create while the processor cannot be reached', () => {
  test('over HTTP: 503 in the error envelope, retry with the same key; nothing charged, the payment PENDING under its payment workflow', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    // The buyer's saved card made a Stripe one: no route saves a Stripe card but Stripe's own
    // checkout, and the server below cannot reach any Stripe (a closed port).
    await salesDb().subscription.update({ where: { id: first.id }, data: { processor: 'stripe', paymentMethodRef: 'cus_unreachable:pm_card_visa' } });
    const server = await startServerProcess({
      DATABASE_URL: process.env.DATABASE_URL!,
      ...ownTaskQueueEnv('subscriptions-unreachable'),
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_unreachable',
      STRIPE_WEBHOOK_SECRET: 'whsec_unreachable',
      STRIPE_API_BASE: 'http://127.0.0.1:9',
    });
    try {
      const key = randomUUID();
      const answer = await failure(restClient(ws, TEST, server.url).POST('/v0/subscriptions/create', { params: { header: { 'Idempotency-Key': key } }, body: { userId, items: [{ offerId: basic.offerId }] } }));
      expect(answer).toEqual({ status: 503, body: { status: 'error', error: { message: 'The payment processor is unavailable; retry with the same Idempotency-Key' } } });
      const row = await salesDb().idempotencyKey.findFirstOrThrow({ where: { key } });
      const pending = await salesDb().payment.findUniqueOrThrow({ where: { id: row.paymentId! }, include: { subscription: true, charges: true } });
      expect([pending.status, pending.processor, pending.subscription!.status, pending.charges]).toEqual(['PENDING', 'stripe', 'incomplete', []]);
      // Its workflow started before the charge: it settles the payment if no retry comes.
      expect((await new Client({ connection }).workflow.getHandle(`payment-${pending.id}`).describe()).status.name).toBe('RUNNING');
    } finally {
      await server.stop();
    }
  }, SLOW);

  test('the service refuses TemporarilyUnavailable with the payment PENDING under its payment workflow; the retry through HTTP with the same key charges once, PAID, active, the workflow ends PAID', async () => {
    const { subscription: first } = await subscribe(ws, basic.element);
    const userId = first.userId!;
    const client = new Client({ connection });
    // The suite's server runs its worker on the 'commerce' task queue: it runs the payment workflow this starts.
    const temporal: TemporalConnection = {
      client, namespace: 'default', address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue: 'commerce', connectionOptions: { address: process.env.TEST_TEMPORAL_ADDRESS! },
      failure: new Promise<never>(() => undefined), stop: async () => undefined,
    };
    const sandbox = new SandboxProcessor({ prisma: salesDb() });
    const unreachable = Object.assign(Object.create(sandbox) as PaymentProcessor, { createCharge: () => Promise.reject(new ProcessorUnavailable('connect ECONNREFUSED')) });
    const key = randomUUID();
    const items = [{ offerId: basic.offerId }];
    await expect(createSubscription({ prisma: salesDb(), temporal, processor: unreachable }, scopeOf(ws, TEST), userId, items, key)).rejects.toBeInstanceOf(TemporarilyUnavailable);
    const row = await salesDb().idempotencyKey.findFirstOrThrow({ where: { key } });
    const pending = await salesDb().payment.findUniqueOrThrow({ where: { id: row.paymentId! }, include: { subscription: true } });
    expect([pending.status, pending.subscription!.status, await chargesOf(pending.id)]).toEqual(['PENDING', 'incomplete', 0]);
    // Its workflow started before the charge: it settles the payment (expires it) if no retry comes.
    expect((await client.workflow.getHandle(`payment-${pending.id}`).describe()).status.name).toBe('RUNNING');

    const retried = await ok(create(key, userId, items));
    expect(retried).toMatchObject({ subscription: { status: 'active' }, payment: { id: pending.id, status: 'PAID' } });
    expect(await client.workflow.getHandle(`payment-${pending.id}`).result()).toBe('PAID');
    expect(await chargesOf(pending.id)).toBe(1);
    expect(await subscriptionsOf(userId)).toBe(2);
  }, SLOW);
});

describe('an off-session renewal that needs authentication', () => {
  test('declined authentication_required (the sandbox cannot ask the buyer): past_due, retried on the dunning schedule; a working card replaced recovers it', async () => {
    const { order, subscription } = await subscribe(ws, basic.element);
    await ok(replaceCard(ws, order.number, AUTHENTICATE));
    const end = Math.floor(subscription.currentPeriodEnd!.getTime() / 1000);
    const { subscription: due } = await ok(advance(ws, order.number, end + 60));
    expect(due.status).toBe('past_due');
    const [, renewal] = await paymentsOf(subscription.id);
    expect(renewal).toMatchObject({ status: 'PENDING', failureCode: 'authentication_required', charges: [{ status: 'failed', failureCode: 'authentication_required' }] });
    // The next retry on the schedule fails the same way: still past_due, a second attempt.
    const { subscription: retried } = await ok(advance(ws, order.number, end + 4 * DAY));
    expect(retried.status).toBe('past_due');
    expect((await paymentsOf(subscription.id))[1]!.charges.map((c) => c.failureCode)).toEqual(['authentication_required', 'authentication_required']);
    // The buyer's new card (the payment-method update hook): retried at once, active.
    await ok(replaceCard(ws, order.number, '4242424242424242'));
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      if ((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status === 'active') break;
    }
    expect((await paymentsOf(subscription.id))[1]).toMatchObject({ status: 'PAID' });
  }, SLOW);
});
