import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { card } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { startEmbeddedDeployment, type EmbeddedDeployment } from './support/embedded-deployment.js';
import { ok } from './support/responses.js';
import { killed, startServerProcess, startWorkerProcess, untilAnswered } from './support/processes.js';

// The payment path survives process death, on a deployment of its own on the embedded default
// database (test/support/embedded-deployment.ts: an API process and a worker process). 200 buyers
// check out, 10 at a time, each retrying its request with the same Idempotency-Key until it is
// answered, while the API and the worker are SIGKILLed in turn, three times each, and started
// again. Then, once the workflows have settled:
// one order per key, each successful charge at the processor (the sandbox's own books) belongs to
// exactly one PAID payment, no payment holds two successful charges, none stays PENDING, each
// PAID payment has exactly one payment_success event, and every payment workflow has completed.

const CHECKOUTS = 200;
const CONCURRENCY = 10;
/** Killed in turn, each after another seventh of the answers. */
const VICTIMS = ['api', 'worker', 'api', 'worker', 'api', 'worker'] as const;
// About a minute on a quiet machine; generous bounds for a busy one (each step fails
// with its own message first).
const SLOW = 600_000;
/** How long one buyer keeps retrying, restarts included. */
const ANSWER_TIMEOUT_MS = 180_000;
/** How long the workflows may take to settle after the load (a bookkeeping activity lost with a killed worker waits for its 20-second timeout). */
const SETTLE_TIMEOUT_MS = 180_000;

let deployment: EmbeddedDeployment;
let db: pg.Client;

beforeAll(async () => {
  deployment = await startEmbeddedDeployment('payment-kill');
  db = new pg.Client({ connectionString: deployment.databaseUrl });
  await db.connect();
}, SLOW);

afterAll(async () => {
  await db?.end();
  await deployment?.stop();
});

/**
 * A product and, for each lane of buyers, an unlimited offer and a checkout element selling it,
 * through the API under test (one offer per lane: the kills, not one offer's row lock, set the pace).
 */
async function newElements(): Promise<string[]> {
  const client = restClient(deployment.ws, {}, deployment.api.url);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `Kill ${randomUUID().slice(0, 8)}`, projectId: deployment.ws.projectId, type: 'DigitalDownload' } }));
  const elements: string[] = [];
  for (let lane = 0; lane < CONCURRENCY; lane += 1) {
    const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 1500, currency: 'USD' } }));
    elements.push((await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }))).checkoutElement.id);
  }
  return elements;
}

interface Answer {
  status: number;
  orderId?: string;
  paymentId?: string;
}

/** One buyer: the same request with the same Idempotency-Key until the server answers (not 5xx). */
async function buy(elementId: string, key: string): Promise<Answer> {
  const body = { email: `buyer-${randomUUID()}@example.com`, billingDetails: { countryCode: 'DE', postalCode: '10115' }, card: card() };
  // The API's url: its port stays the same across restarts.
  const send = () => buyerClient({ 'idempotency-key': key }, deployment.api.url).POST('/checkout/{checkoutElementId}/orders', { params: { path: { checkoutElementId: elementId } }, body });
  const { data, response } = await untilAnswered(send, `Idempotency-Key ${key}`, ANSWER_TIMEOUT_MS);
  return { status: response.status, orderId: data?.data.order.id, paymentId: data?.data.payment.id };
}

/** Answers after which VICTIMS[kill] is killed. */
const killAfter = (kill: number) => (CHECKOUTS * (kill + 1)) / (VICTIMS.length + 1);

/**
 * CHECKOUTS buyers, CONCURRENCY at a time (one lane per element); each of VICTIMS in turn is
 * SIGKILLed and started again after another share of the answers. The lanes run at most two
 * rounds of keys past a kill that has not happened yet: on a fast machine the buyers answered
 * during a restart outran the later kills (the load ended after four of six).
 */
async function checkoutsUnderFire(elementIds: string[]) {
  const answers = new Map<string, Answer>();
  const keys = Array.from({ length: CHECKOUTS }, () => `kill-${randomUUID()}`);
  let next = 0;
  let killing = true;
  let kills = 0;
  const lane = async (elementId: string) => {
    while (next < keys.length) {
      if (killing && kills < VICTIMS.length && next >= killAfter(kills) + 2 * CONCURRENCY) {
        await sleep(20);
        continue;
      }
      const key = keys[next++]!;
      answers.set(key, await buy(elementId, key));
    }
  };
  const killer = (async () => {
    while (kills < VICTIMS.length && killing) {
      if (answers.size < killAfter(kills)) {
        await sleep(20);
        continue;
      }
      if (VICTIMS[kills] === 'api') {
        await killed(deployment.api);
        deployment.api = await startServerProcess(deployment.env);
      } else {
        await killed(deployment.worker);
        deployment.worker = await startWorkerProcess(deployment.env);
      }
      kills += 1;
    }
  })();
  try {
    await Promise.all(elementIds.map(lane));
  } finally {
    killing = false;
    await killer;
  }
  // Each kill came with checkouts still to run (the load outlasting the restarts is part of the test).
  expect(kills).toBe(VICTIMS.length);
  return answers;
}

/** Waits until no payment is PENDING and every payment's workflow has completed. */
async function settled(paymentIds: string[]) {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let running = new Set(paymentIds);
  for (;;) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Payment" WHERE id = ANY($1::uuid[]) AND status = 'PENDING'`, [paymentIds]);
    const described = await Promise.all([...running].map(async (id) => [id, (await deployment.temporal.workflow.getHandle(`payment-${id}`).describe()).status.name] as const));
    running = new Set(described.filter(([, status]) => status !== 'COMPLETED').map(([id]) => id));
    if (rows[0]!.n === 0 && running.size === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`Not settled after ${SETTLE_TIMEOUT_MS} ms: ${rows[0]!.n} payments PENDING; workflows not completed: ${described.filter(([id]) => running.has(id)).slice(0, 10).join('; ')}`);
    }
    await sleep(1000);
  }
}

/** Every invariant of the payment path, for the elements' checkouts. */
async function expectPaymentPathIntact(elementIds: string[], answers: Map<string, Answer>) {
  // Every key answered, each with its own order; the stored orders are exactly those.
  expect(answers.size).toBe(CHECKOUTS);
  const statuses = [...answers.values()].map((a) => a.status);
  expect(statuses).toEqual(Array(CHECKOUTS).fill(200));
  const orderIds = [...answers.values()].map((a) => a.orderId!);
  expect(new Set(orderIds).size).toBe(CHECKOUTS);
  const stored = await db.query<{ id: string; key: string | null; keyOrderId: string | null }>(
    `SELECT o.id, k.key, k."orderId" AS "keyOrderId" FROM "Order" o LEFT JOIN "IdempotencyKey" k ON k."orderId" = o.id WHERE o."checkoutId" = ANY($1::uuid[])`,
    [elementIds],
  );
  expect(stored.rows.map((r) => r.id).sort()).toEqual([...orderIds].sort());
  for (const row of stored.rows) expect(answers.get(row.key!)?.orderId).toBe(row.id);

  const paymentIds = [...answers.values()].map((a) => a.paymentId!);
  await settled(paymentIds);

  const payments = await db.query<{ id: string; status: string; processorChargeId: string | null }>(
    `SELECT id, status, "processorChargeId" FROM "Payment" WHERE "orderId" = ANY($1::uuid[])`,
    [orderIds],
  );
  expect(payments.rows).toHaveLength(CHECKOUTS);
  expect(payments.rows.filter((p) => p.status !== 'PAID')).toEqual([]);

  // The processor's books: each successful charge belongs to one PAID payment, which names it; no payment has two.
  const charges = await db.query<{ id: string; paymentId: string }>(`SELECT id, "paymentId" FROM "SandboxCharge" WHERE "paymentId" = ANY($1) AND status = 'succeeded'`, [paymentIds]);
  const byPayment = new Map(payments.rows.map((p) => [p.id, p]));
  const chargesPerPayment = new Map<string, number>();
  for (const charge of charges.rows) {
    chargesPerPayment.set(charge.paymentId, (chargesPerPayment.get(charge.paymentId) ?? 0) + 1);
    expect({ charge: charge.id, payment: byPayment.get(charge.paymentId) }).toEqual({ charge: charge.id, payment: { id: charge.paymentId, status: 'PAID', processorChargeId: charge.id } });
  }
  expect([...chargesPerPayment.values()].filter((n) => n !== 1)).toEqual([]);
  expect(chargesPerPayment.size).toBe(CHECKOUTS);
  const charged = new Set(payments.rows.map((p) => p.processorChargeId));
  expect(charged.size).toBe(CHECKOUTS);

  // Our records of the charges agree: one attempt per payment, succeeded.
  const recorded = await db.query<{ paymentId: string; n: number }>(
    `SELECT "paymentId", count(*)::int AS n FROM "Charge" WHERE "paymentId" = ANY($1::uuid[]) AND status = 'succeeded' GROUP BY "paymentId"`,
    [paymentIds],
  );
  expect(recorded.rows).toHaveLength(CHECKOUTS);
  expect(recorded.rows.filter((r) => r.n !== 1)).toEqual([]);

  // Exactly one payment_success per PAID payment.
  const events = await db.query<{ paymentId: string; n: number }>(
    `SELECT payload->'payment'->>'id' AS "paymentId", count(*)::int AS n FROM "Event" WHERE type = 'payment_success' AND payload->'payment'->>'id' = ANY($1) GROUP BY 1`,
    [paymentIds],
  );
  expect(events.rows).toHaveLength(CHECKOUTS);
  expect(events.rows.filter((r) => r.n !== 1)).toEqual([]);
}

test(`the API and the worker SIGKILLed ${VICTIMS.length / 2} times each, in turn, during ${CHECKOUTS} checkouts: each key one order, each charge one PAID payment, one payment_success each`, async () => {
  const elementIds = await newElements();
  await expectPaymentPathIntact(elementIds, await checkoutsUnderFire(elementIds));
}, SLOW);
