// `npm run bench:checkout`: hosted checkout's throughput, orders paid end to end through the
// sandbox processor. Buyers POST /checkout/{checkoutElementId}/orders (card 4242424242424242, an
// Idempotency-Key each, 1,000 buyer emails so new and returning buyers mix) to an API process
// (as `npm start` runs it, WORKER_IN_PROCESS=false) with a `npm run worker` process beside it; an
// order counts as paid when the response already says PAID or, polled after it, GET
// /v0/orders/{id} does. At each concurrency (BENCH_CHECKOUT_CONCURRENCY, default 1,5,20) buyers
// keep paying for BENCH_DURATION seconds (default 20); the level's throughput is its paid orders
// over the time from its first request to its last order paid. Prints orders/s, the latencies of
// the POST and of paid (request to PAID seen), CPU per order, and both processes' RSS, idle (before
// the first request) and peak; beside each level, the floor: empty workflows
// (workflows/bench-noop.ts) started and awaited on the same dev server and worker at the same
// concurrency for as long, just before the level. Targets (issue 36), at concurrency 20: CPU per paid order at most 30 ms
// (API, worker and PostgreSQL together), paid orders/s at least 70 % of the floor's workflows/s.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';

import { runCli } from '../test/support/processes.js';
import { type BenchWorkspace, CARD, cpuSeconds, keyHeaders, post, postgresCpuSeconds, postgresCpuSince, quantile, startApiAndWorker, withBenchEnvironment } from './support.js';

const CONCURRENCIES = (process.env.BENCH_CHECKOUT_CONCURRENCY ?? '1,5,20').split(',').map(Number);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 20);
const WARMUP_ORDERS = 10;
/** How long an order may take to be seen PAID after its POST answered. */
const PAID_TIMEOUT_MS = 60_000;
const BUYERS = 1000;
const TARGET_RSS_MB = 250;
/** Issue 36's targets, at TARGET_CONCURRENCY. */
const TARGET_CONCURRENCY = 20;
const TARGET_CPU_MS = 30;
const TARGET_FLOOR_RATIO = 0.7;

interface OrderShape {
  id: string;
  status: string;
}

interface Outcome {
  /** POST sent to answer received, ms. */
  postMs: number;
  /** POST sent to PAID seen, ms; undefined when it was not paid. */
  paidMs?: number;
  /** PAID was seen by polling GET /v0/orders/{id}, not in the POST's answer. */
  polled?: boolean;
  /** Why it was not paid. */
  failure?: string;
}

/** A product, a $19.99 offer without a limit and a checkout element selling it, made through /v0. */
async function newCheckoutElement(url: string, ws: BenchWorkspace): Promise<string> {
  const headers = keyHeaders(ws);
  const { product } = await post<{ product: { id: string } }>(`${url}/v0/products/create`, headers, { name: 'Bench game', projectId: ws.projectId, type: 'Game', status: 'ACTIVE' });
  const { offer } = await post<{ offer: { id: string } }>(`${url}/v0/offers/create`, headers, { productId: product.id, price: 1999, currency: 'USD' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id], name: 'Bench store' });
  return checkoutElement.id;
}

/** One buyer's checkout: the POST, then GET /v0/orders/{id} (50 ms, doubling to 500 ms apart) until PAID. */
async function checkout(url: string, elementId: string, readHeaders: Record<string, string>, buyer: number): Promise<Outcome> {
  const started = performance.now();
  const response = await fetch(`${url}/checkout/${elementId}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ email: `buyer${buyer}@example.com`, billingDetails: { countryCode: 'US', postalCode: '94107', state: 'CA' }, card: CARD }),
  });
  const text = await response.text();
  const postMs = performance.now() - started;
  if (response.status !== 200) return { postMs, failure: `POST ${response.status} ${text.slice(0, 200)}` };
  let order = (JSON.parse(text) as { data: { order: OrderShape } }).data.order;
  const polled = order.status !== 'PAID';
  for (let wait = 50; order.status !== 'PAID'; wait = Math.min(500, wait * 2)) {
    if (['FAILED', 'CANCELLED', 'EXPIRED'].includes(order.status)) return { postMs, failure: `order ${order.status}` };
    if (performance.now() - started > PAID_TIMEOUT_MS) return { postMs, failure: `still ${order.status} after ${PAID_TIMEOUT_MS / 1000} s` };
    await sleep(wait);
    const poll = await fetch(`${url}/v0/orders/${order.id}`, { headers: readHeaders });
    const body = await poll.text();
    if (poll.status !== 200) return { postMs, failure: `GET order ${poll.status} ${body.slice(0, 200)}` };
    order = (JSON.parse(body) as { data: { order: OrderShape } }).data.order;
  }
  return { postMs, paidMs: performance.now() - started, polled };
}

const fmt = (n: number, digits = 0, width = 10) => n.toFixed(digits).padStart(width);

/** Workflows/s of `concurrency` callers each starting an empty workflow and awaiting its result, again and again for `seconds`. */
async function floorRate(client: Client, taskQueue: string, concurrency: number, seconds: number): Promise<number> {
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await client.workflow.execute('benchNoop', { taskQueue, workflowId: `bench-noop-${randomUUID()}`, args: [] });
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

await withBenchEnvironment(async (environment) => {
  const { env, databaseName } = environment;
  // Production's shape: an API process and a worker process (the charge's workflow runs there), logging at info as `npm start` does.
  const { server, worker, taskQueue, client, memory } = await startApiAndWorker(environment, { logLevel: 'info' });
  const pids = { server: server.child.pid!, worker: worker.child.pid! };
  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench'], env);
  const elementId = await newCheckoutElement(server.url, ws);
  const readHeaders = keyHeaders(ws, { write: false });

  let buyer = 0;
  const warmup = await Promise.all(Array.from({ length: WARMUP_ORDERS }, () => checkout(server.url, elementId, readHeaders, buyer++ % BUYERS)));
  const warmupFailure = warmup.find((outcome) => outcome.failure);
  if (warmupFailure) throw new Error(`warm-up checkout failed: ${warmupFailure.failure}`);
  console.log(`POST /checkout/{checkoutElementId}/orders, card ${CARD.number}, sandbox processor; an API process and a worker process (Temporal dev server of its own)`);
  console.log(`${DURATION_S} s per concurrency, ${BUYERS} buyer emails; paid = the response or GET /v0/orders/{id} says PAID\n`);
  console.log(
    `${'concurrency'.padEnd(12)}${'paid'.padStart(7)}${'polled'.padStart(8)}${'failed'.padStart(8)}${'orders/s'.padStart(10)}${'POST p50'.padStart(10)}${'POST p99'.padStart(10)}` +
      `${'paid p50'.padStart(10)}${'paid p99'.padStart(10)}${'CPU ms/order (api, worker, pg)'.padStart(32)}${'floor/s'.padStart(9)}${'of floor'.padStart(10)}`,
  );

  let failed = 0;
  let atTarget: { cpuMs: number; ratio: number } | undefined;
  for (const concurrency of CONCURRENCIES) {
    // Before the level, so that it runs on a worker with nothing left to do.
    const floor = await floorRate(client, taskQueue, concurrency, DURATION_S);
    const outcomes: Outcome[] = [];
    const cpuBefore = { server: cpuSeconds(pids.server), worker: cpuSeconds(pids.worker), postgres: postgresCpuSeconds(databaseName) };
    const started = performance.now();
    const until = started + DURATION_S * 1000;
    let lastPaid = started;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          const outcome = await checkout(server.url, elementId, readHeaders, buyer++ % BUYERS);
          outcomes.push(outcome);
          if (outcome.paidMs !== undefined) lastPaid = Math.max(lastPaid, performance.now());
        }
      }),
    );
    const load = os.loadavg()[0]!;
    const paid = outcomes.filter((outcome) => outcome.paidMs !== undefined);
    const failures = outcomes.filter((outcome) => outcome.failure);
    failed += failures.length;
    const perOrder = (seconds: number) => (paid.length ? (seconds * 1000) / paid.length : 0);
    const cpu = [
      perOrder(cpuSeconds(pids.server) - cpuBefore.server),
      perOrder(cpuSeconds(pids.worker) - cpuBefore.worker),
      perOrder(postgresCpuSince(cpuBefore.postgres, postgresCpuSeconds(databaseName))),
    ];
    const postMs = outcomes.map((outcome) => outcome.postMs);
    const paidMs = paid.map((outcome) => outcome.paidMs!);
    const rate = paid.length / ((lastPaid - started) / 1000);
    if (concurrency === TARGET_CONCURRENCY) atTarget = { cpuMs: cpu.reduce((a, b) => a + b, 0), ratio: rate / floor };
    console.log(
      `${String(concurrency).padEnd(12)}${String(paid.length).padStart(7)}${String(paid.filter((outcome) => outcome.polled).length).padStart(8)}${String(failures.length).padStart(8)}${fmt(rate, 1)}` +
        `${fmt(quantile(postMs, 0.5))}${fmt(quantile(postMs, 0.99))}${fmt(paidMs.length ? quantile(paidMs, 0.5) : NaN)}${fmt(paidMs.length ? quantile(paidMs, 0.99) : NaN)}` +
        `${cpu.map((ms) => ms.toFixed(1)).join(', ').padStart(32)}${fmt(floor, 1, 9)}${`${((rate / floor) * 100).toFixed(0)} %`.padStart(10)}   load ${load.toFixed(1)}`,
    );
    for (const failure of new Set(failures.map((outcome) => outcome.failure))) console.log(`  failed: ${failure}`);
  }

  const { peaks, line } = memory.stop();
  const apiPeak = peaks[0]!.rootRss;
  const rssOk = apiPeak < TARGET_RSS_MB;
  console.log(
    `\npolled: paid orders whose POST answered before PAID; latencies in ms; CPU per paid order: the API process, the worker process, PostgreSQL's backends; ` +
      `floor: empty workflows/s at the same concurrency on the same dev server and worker, measured just before the level; load: the machine's 1-minute load average at the level's end`,
  );
  if (atTarget) {
    const cpuOk = atTarget.cpuMs <= TARGET_CPU_MS;
    const floorOk = atTarget.ratio >= TARGET_FLOOR_RATIO;
    console.log(`concurrency ${TARGET_CONCURRENCY}: CPU per paid order ${atTarget.cpuMs.toFixed(1)} ms (target <= ${TARGET_CPU_MS} ms) ${cpuOk ? 'PASS' : 'FAIL'}; paid orders/s ${(atTarget.ratio * 100).toFixed(0)} % of the floor's (target >= ${TARGET_FLOOR_RATIO * 100} %) ${floorOk ? 'PASS' : 'FAIL'}`);
  }
  console.log(line);
  console.log(`API process peak RSS: ${apiPeak.toFixed(1)} MB (target < ${TARGET_RSS_MB} MB) ${rssOk ? 'PASS' : 'FAIL'}; machine load ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}`);
  if (failed || !rssOk) process.exitCode = 1;
});
