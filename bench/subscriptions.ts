// `npm run bench:subscriptions`: subscription renewals through the real workflow
// (workflows/subscription.ts: startRenewal, the sandbox's off-session charge, the bookkeeping,
// continue-as-new every period) side by side with the floor of the same Temporal dev server and
// worker: empty workflows (workflows/bench-noop.ts) started and their results awaited, as many in
// flight. Production's shape: an API process (WORKER_IN_PROCESS=false) and a worker process.
// BENCH_SUBSCRIPTIONS (default 1,000) monthly test-mode subscriptions are bought through the
// hosted checkout (not measured); then each test clock is advanced one month at a time through
// 12 periods (POST /v0/test-helpers/subscriptions/{id}/advance, answered once the workflow has
// run the renewal), BENCH_SUBSCRIPTION_CONCURRENCY (default 16) subscriptions at a time. Printed:
// renewals per second, the largest history (events) of any subscription workflow run, and the
// floor's workflows per second. Target: renewals/s at least half the floor's rate.
import { randomUUID } from 'node:crypto';
import os from 'node:os';

import { Client, Connection } from '@temporalio/client';
import pg from 'pg';

import { runCli, startServerProcess, startWorkerProcess } from '../test/support/processes.js';
import { inParallel, post, withBenchEnvironment } from './support.js';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_SUBSCRIPTION_CONCURRENCY ?? 16);
const PERIODS = 12;
const CARD = { number: '4242424242424242', expMonth: 12, expYear: new Date().getFullYear() + 5, cvc: '123' };
const TARGET_SHARE = 0.5;
const DAY = 24 * 60 * 60;

interface TestWorkspace {
  workspaceId: string;
  projectId: string;
  testPublicKey: string;
  testSecretKey: string;
}

await withBenchEnvironment(async ({ env, stopLater }) => {
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS: 'false' });
  stopLater(server);
  const worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'warn' });
  stopLater(worker);
  const taskQueue = worker.ready[1]!;
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  stopLater({ stop: () => connection.close() });
  const client = new Client({ connection });
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  stopLater({ stop: () => db.end() });

  const ws = await runCli<TestWorkspace>(['workspace', 'create', '--name', 'Bench subscriptions'], env);
  await runCli(['workspace', 'set', ws.workspaceId, 'testMode=true'], env);
  const headers = { 'x-svc-public-key': ws.testPublicKey, 'x-svc-secret-key': ws.testSecretKey };
  const { product } = await post<{ product: { id: string } }>(`${server.url}/v0/products/create`, headers, { name: 'Bench membership', projectId: ws.projectId, type: 'DigitalDownload' });
  const { offer } = await post<{ offer: { id: string } }>(`${server.url}/v0/offers/create`, headers, { productId: product.id, price: 999, currency: 'USD', recurringInterval: 'month' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${server.url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });

  // Seeding (not measured): the subscriptions bought through the hosted checkout.
  const seedStarted = performance.now();
  const numbers: string[] = [];
  await inParallel(SUBSCRIPTIONS, 8, async (i) => {
    const { order } = await post<{ order: { number: string; status: string } }>(`${server.url}/checkout/${checkoutElement.id}/orders`, {}, {
      email: `subscriber${i}@example.com`,
      billingDetails: { countryCode: 'HK' },
      card: CARD,
    });
    if (order.status !== 'PAID') throw new Error(`order ${order.number} is ${order.status}`);
    numbers.push(order.number);
  });
  // Each workflow has given its first period an end.
  for (const deadline = Date.now() + 600_000; ; await new Promise((r) => setTimeout(r, 500))) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "Subscription" WHERE "workspaceId" = $1 AND "currentPeriodEnd" IS NOT NULL`, [ws.workspaceId]);
    if (rows[0]!.n === SUBSCRIPTIONS) break;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} of ${SUBSCRIPTIONS} subscription workflows started`);
  }
  const { rows: starts } = await db.query<{ number: string; start: Date }>(`SELECT number, "currentPeriodStart" AS start FROM "Subscription" WHERE "workspaceId" = $1`, [ws.workspaceId]);
  const startOf = new Map(starts.map((r) => [r.number, r.start]));
  /** `months` after `start` in Unix seconds, rolling over as Date does (Jan 31 + 1 month is Mar 3): never before the clamped period end, weeks before the next. */
  const monthsAfter = (start: Date, months: number) =>
    Math.floor(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + months, start.getUTCDate(), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds()) / 1000);
  console.log(`${SUBSCRIPTIONS} subscriptions bought in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (not measured)`);

  const advance = async (number: string, to: number) => {
    const response = await fetch(`${server.url}/v0/test-helpers/subscriptions/${number}/advance`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ to }),
    });
    if (response.status !== 200) throw new Error(`advance of ${number}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  };
  const emptyWorkflow = () => client.workflow.execute('benchNoop', { taskQueue, workflowId: `bench-noop-${randomUUID()}`, args: [] });

  // Warm-up: the floor's path once.
  await emptyWorkflow();

  // The renewals: each subscription one month at a time (a day into each new period), CONCURRENCY subscriptions in flight.
  const renewalsStarted = performance.now();
  await inParallel(SUBSCRIPTIONS, CONCURRENCY, async (i) => {
    const number = numbers[i]!;
    for (let month = 1; month <= PERIODS; month += 1) await advance(number, monthsAfter(startOf.get(number)!, month) + DAY);
  });
  const renewalSeconds = (performance.now() - renewalsStarted) / 1000;
  const loadAfterRenewals = os.loadavg()[0]!;

  // Every renewal there, once, and PAID.
  const { rows: tally } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM "Payment" WHERE "workspaceId" = $1 AND "subscriptionPeriod" > 1 GROUP BY status`,
    [ws.workspaceId],
  );
  const renewals = tally.reduce((n, r) => n + r.n, 0);
  if (renewals !== SUBSCRIPTIONS * PERIODS || tally.some((r) => r.status !== 'PAID')) {
    throw new Error(`expected ${SUBSCRIPTIONS * PERIODS} PAID renewals, found ${JSON.stringify(tally)}`);
  }

  // The largest history of any run of the subscription workflows (every run: continued-as-new ones too).
  let largestHistory = 0;
  let runs = 0;
  for await (const execution of client.workflow.list({ query: `WorkflowType = 'subscriptionWorkflow'` })) {
    runs += 1;
    largestHistory = Math.max(largestHistory, execution.historyLength);
  }

  // The floor: as many empty workflows as renewals, CONCURRENCY in flight.
  const floorCount = SUBSCRIPTIONS * PERIODS;
  const floorStarted = performance.now();
  await inParallel(floorCount, CONCURRENCY, async () => {
    await emptyWorkflow();
  });
  const floorSeconds = (performance.now() - floorStarted) / 1000;

  const renewalRate = renewals / renewalSeconds;
  const floorRate = floorCount / floorSeconds;
  const share = renewalRate / floorRate;
  console.log(`Subscription renewals through the workflow vs empty workflows, one Temporal dev server, an API process and a worker process; ${os.cpus().length} CPUs; ${CONCURRENCY} in flight`);
  console.log(`${''.padEnd(44)}${'n'.padStart(8)}${'s'.padStart(9)}${'per s'.padStart(9)}`);
  console.log(`${'renewals (12 monthly advances each)'.padEnd(44)}${String(renewals).padStart(8)}${renewalSeconds.toFixed(1).padStart(9)}${renewalRate.toFixed(1).padStart(9)}`);
  console.log(`${'empty workflows (floor)'.padEnd(44)}${String(floorCount).padStart(8)}${floorSeconds.toFixed(1).padStart(9)}${floorRate.toFixed(1).padStart(9)}`);
  console.log(`largest subscription workflow history: ${largestHistory} events (${runs} runs of ${SUBSCRIPTIONS} subscriptions)`);
  console.log(
    `\nrenewals/s / floor workflows/s: ${(share * 100).toFixed(0)}% (target >= ${TARGET_SHARE * 100}%) ${share >= TARGET_SHARE ? 'PASS' : 'FAIL'}; ` +
      `load ${loadAfterRenewals.toFixed(1)} after the renewals, ${os.loadavg()[0]!.toFixed(1)} after the floor`,
  );
  if (share < TARGET_SHARE) process.exitCode = 1;
});
