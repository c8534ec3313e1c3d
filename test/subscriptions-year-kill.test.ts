import { randomUUID } from 'node:crypto';

import { createPrismaClient } from '../src/db/client.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { eventually, orderBody } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { startEmbeddedDeployment, type EmbeddedDeployment } from './support/embedded-deployment.js';
import { killed, startWorkerProcess } from './support/processes.js';
import { expectEachRenewalOnce, renewalPayments } from './support/renewals.js';
import { ok } from './support/responses.js';
import { DAY, seconds, TEST } from './support/subscriptions.js';

// A year of renewals survives the worker's death (issue 31 §4), on a deployment of its own on the
// embedded default database (test/support/embedded-deployment.ts: an API and a worker process).
// 50 monthly subscriptions are bought, 10 at a time, then each test clock is advanced one year at once while the worker is SIGKILLed and started again three
// times, each once another quarter of the year's renewals exists. Then: 12 paid renewals each,
// one processor charge per renewal (test/support/renewals.ts says all that is checked).

const SUBSCRIPTIONS = 50;
const CONCURRENCY = 10;
const KILLS = 3;
const SLOW = 600_000;

let deployment: EmbeddedDeployment;
let db: PrismaClient;

beforeAll(async () => {
  deployment = await startEmbeddedDeployment('year-kill', ['testMode=true']);
  db = createPrismaClient(deployment.databaseUrl);
}, SLOW);

afterAll(async () => {
  await db?.$disconnect();
  await deployment?.stop();
});

/** A monthly offer of 900 sold through its own checkout element, in test mode, through the API under test. */
async function monthlyElement() {
  const client = restClient(deployment.ws, TEST, deployment.api.url);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: 'Renewed under fire', projectId: deployment.ws.projectId, type: 'DigitalDownload' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 900, currency: 'USD', recurringInterval: 'month' } }));
  return (await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }))).checkoutElement.id;
}

/** One subscription bought through the API under test; waits for its first period's end (its workflow runs on this test's worker). */
async function buy(elementId: string) {
  const paid = await ok(buyerClient({ 'idempotency-key': randomUUID() }, deployment.api.url).POST('/checkout/{checkoutElementId}/orders', { params: { path: { checkoutElementId: elementId } }, body: orderBody() }));
  return eventually(() => db.subscription.findFirstOrThrow({ where: { workspaceId: deployment.ws.workspaceId, number: paid.order.number } }), (s) => s.currentPeriodEnd !== null, 60_000);
}

/** Advances a subscription's test clock; the answer waits for its workflow (up to 60 s, then 503). */
async function advanceTo(number: string, to: number) {
  const { response } = await restClient(deployment.ws, TEST, deployment.api.url).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { params: { path: { subscriptionIdOrNumber: number } }, body: { to } });
  return response.status;
}

test(
  `the worker SIGKILLed ${KILLS} times while ${SUBSCRIPTIONS} subscriptions are advanced one year on their test clocks: 12 paid renewals each, one processor charge per renewal`,
  async () => {
    const started = Date.now();
    const elementId = await monthlyElement();
    const subs: Awaited<ReturnType<typeof buy>>[] = [];
    let buying = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (buying++ < SUBSCRIPTIONS) subs.push(await buy(elementId));
      }),
    );
    const bought = Date.now();
    const ids = subs.map((s) => s.id);
    // A year and a day past each start: its 12 monthly period ends (the 13th is a month later).
    const answers = subs.map((s) => advanceTo(s.number, seconds(s.currentPeriodStart!) + 367 * DAY));
    const kills: Array<{ atRenewals: number; restartMs: number }> = [];
    for (let k = 1; k <= KILLS; k += 1) {
      // Positive marker: another quarter of the year's renewals exists.
      const rows = await eventually(() => renewalPayments(db, ids), (r) => r.length >= (k * SUBSCRIPTIONS * 12) / (KILLS + 1), 180_000, 250);
      const restart = Date.now();
      await killed(deployment.worker);
      deployment.worker = await startWorkerProcess(deployment.env);
      kills.push({ atRenewals: rows.length, restartMs: Date.now() - restart });
    }
    // Every advance is answered: with the subscription (200), or 503 when a kill kept its workflow past 60 s.
    expect((await Promise.all(answers)).filter((status) => status !== 200 && status !== 503)).toEqual([]);
    const advanced = Date.now();
    await expectEachRenewalOnce({ db, temporal: deployment.temporal, workspaceId: deployment.ws.workspaceId }, subs, 12);
    console.log(JSON.stringify({ buyMs: bought - started, advanceWithKillsMs: advanced - bought, settleMs: Date.now() - advanced, kills }));
  },
  SLOW,
);
