// `npm run bench:refunds`: a refund end to end (PATCH /v0/orders/{id}/refund answered with the
// processor's outcome: the refund's workflow, the sandbox refund, the bookkeeping) side by side
// with the floor of the same Temporal dev server and worker: an empty workflow started and its
// result awaited (workflows/bench-noop.ts). Production's shape: an API process
// (WORKER_IN_PROCESS=false) and a worker process. First BENCH_REFUND_ORDERS (default 120) orders
// are paid through the hosted checkout (not measured); then, one at a time (latency) and
// BENCH_REFUND_CONCURRENCY (default 8) at a time (throughput), half of them are refunded in
// full and as many empty workflows are run. One at a time, refunds and empty workflows alternate,
// so that the machine's load (shared, never idle) weighs on both alike, each after a pause of
// BENCH_REFUND_PAUSE_MS (default 100) untimed: how long the dev server waits before a worker takes
// a new workflow's first task depends on how recently the last workflow closed, so without it the
// empty workflow, started the moment the refund before it closed, and the refund, started some
// 10 ms after (its request first), would not start alike. Then the one-at-a-time workflows'
// histories tell where the time went on the server's clock. Target: refund p50 at most 1.5x the
// floor's p50.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Client } from '@temporalio/client';

import { runCli } from '../test/support/processes.js';
import { type BenchWorkspace, CARD, inParallel, keyHeaders, post, quantile, startApiAndWorker, withBenchEnvironment } from './support.js';

const ORDERS = Number(process.env.BENCH_REFUND_ORDERS ?? 120);
const CONCURRENCY = Number(process.env.BENCH_REFUND_CONCURRENCY ?? 8);
const PAUSE_MS = Number(process.env.BENCH_REFUND_PAUSE_MS ?? 100);
const TARGET_RATIO = 1.5;

interface Round {
  latencies: number[];
  seconds: number;
}

/** Runs `task` `count` times, `concurrency` at a time, timing each. */
async function round(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<Round> {
  const latencies: number[] = [];
  const started = performance.now();
  await inParallel(count, concurrency, async (index) => {
    const at = performance.now();
    await task(index);
    latencies.push(performance.now() - at);
  });
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** Runs two tasks in turn, one at a time, `count` times each, each after PAUSE_MS, timing each: a Round per task. */
async function alternating(count: number, ...tasks: [(index: number) => Promise<void>, (index: number) => Promise<void>]): Promise<[Round, Round]> {
  const rounds: [Round, Round] = [{ latencies: [], seconds: 0 }, { latencies: [], seconds: 0 }];
  for (let index = 0; index < count; index += 1) {
    for (const [n, task] of tasks.entries()) {
      await sleep(PAUSE_MS);
      const at = performance.now();
      await task(index);
      const ms = performance.now() - at;
      rounds[n]!.latencies.push(ms);
      rounds[n]!.seconds += ms / 1000;
    }
  }
  return rounds;
}

/**
 * From a workflow's history, on the dev server's clock: how long after its start a worker took its
 * first workflow task, how long the worker held its tasks (from the first taken to the last
 * completed; a refund's activity runs inside its one task), and when it closed.
 */
async function serverTimes(client: Client, workflowId: string): Promise<{ queued: number; inWorker: number; closed: number }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  type HistoryEvent = (typeof events)[number];
  const times = (is: (event: HistoryEvent) => unknown) => events.filter((e) => is(e)).map((e) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6);
  const [started] = times((e) => e.workflowExecutionStartedEventAttributes);
  const [firstTaken] = times((e) => e.workflowTaskStartedEventAttributes);
  const lastCompleted = times((e) => e.workflowTaskCompletedEventAttributes).at(-1);
  const [closed] = times((e) => e.workflowExecutionCompletedEventAttributes);
  if (started === undefined || firstTaken === undefined || lastCompleted === undefined || closed === undefined) throw new Error(`workflow ${workflowId} has no complete history`);
  return { queued: firstTaken - started, inWorker: lastCompleted - firstTaken, closed: closed - started };
}

const row = (name: string, r: Round) =>
  `${name.padEnd(34)}${String(r.latencies.length).padStart(6)}${quantile(r.latencies, 0.5).toFixed(1).padStart(10)}${quantile(r.latencies, 0.99).toFixed(1).padStart(10)}${(r.latencies.length / r.seconds).toFixed(1).padStart(10)}`;

await withBenchEnvironment(async (environment) => {
  const { env } = environment;
  const { server, taskQueue, client, memory } = await startApiAndWorker(environment);

  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench refunds'], env);
  const headers = keyHeaders(ws);
  const { product } = await post<{ product: { id: string } }>(`${server.url}/v0/products/create`, headers, { name: 'Bench game', projectId: ws.projectId, type: 'Game', status: 'ACTIVE' });
  const { offer } = await post<{ offer: { id: string } }>(`${server.url}/v0/offers/create`, headers, { productId: product.id, price: 1999, currency: 'USD' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${server.url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });
  const orders: string[] = [];
  await inParallel(ORDERS, 4, async (i) => {
    const { order } = await post<{ order: { id: string; status: string } }>(`${server.url}/checkout/${checkoutElement.id}/orders`, {}, {
      email: `buyer${i}@example.com`,
      billingDetails: { countryCode: 'US', postalCode: '94107', state: 'CA' },
      card: CARD,
    });
    if (order.status !== 'PAID') throw new Error(`order ${order.id} is ${order.status}`);
    orders.push(order.id);
  });

  const refund = async (orderId: string) => {
    const response = await fetch(`${server.url}/v0/orders/${orderId}/refund`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ idempotencyKey: `bench-${orderId}`, reason: 'bench' }),
    });
    const text = await response.text();
    const data = response.status === 200 ? (JSON.parse(text) as { data: { status: string; workflowId: string } }).data : null;
    if (data?.status !== 'succeeded') throw new Error(`refund of ${orderId}: ${response.status} ${text.slice(0, 300)}`);
    return data.workflowId;
  };
  const emptyWorkflow = async () => {
    const workflowId = `bench-noop-${randomUUID()}`;
    await client.workflow.execute('benchNoop', { taskQueue, workflowId, args: [] });
    return workflowId;
  };

  // Warm-up: both paths once.
  await emptyWorkflow();
  await refund(orders.pop()!);
  const half = Math.floor(orders.length / 2);
  const floorIds: string[] = [];
  const refundIds: string[] = [];
  const [floorOne, refundOne] = await alternating(
    half,
    async () => void floorIds.push(await emptyWorkflow()),
    async (i) => void refundIds.push(await refund(orders[i]!)),
  );
  const floorMany = await round(orders.length - half, CONCURRENCY, async () => void (await emptyWorkflow()));
  const refundMany = await round(orders.length - half, CONCURRENCY, async (i) => void (await refund(orders[half + i]!)));
  const floorTimes = await Promise.all(floorIds.map((id) => serverTimes(client, id)));
  const refundTimes = await Promise.all(refundIds.map((id) => serverTimes(client, id)));

  console.log(`Refunds end to end vs the empty-workflow round trip, one Temporal dev server, an API process and a worker process; ${os.cpus().length} CPUs`);
  console.log(`${''.padEnd(34)}${'n'.padStart(6)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'per s'.padStart(10)}`);
  console.log(row('empty workflow, 1 at a time', floorOne));
  console.log(row('refund, 1 at a time', refundOne));
  console.log(row(`empty workflow, ${CONCURRENCY} at a time`, floorMany));
  console.log(row(`refund, ${CONCURRENCY} at a time`, refundMany));
  const ratio = quantile(refundOne.latencies, 0.5) / quantile(floorOne.latencies, 0.5);
  // Each refund less the empty workflow run just before it: what a refund adds, less sensitive to the load drifting during the run.
  const excess = quantile(refundOne.latencies.map((ms, i) => ms - floorOne.latencies[i]!), 0.5);
  console.log(`\nrefund p50 / floor p50 (1 at a time): ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? 'PASS' : 'FAIL'}; load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log(`what a refund adds to the empty workflow run just before it, p50: ${excess.toFixed(1)} ms`);
  console.log(`\nOn the dev server's clock, 1 at a time, p50 ms:${'queued'.padStart(10)}${'in worker'.padStart(11)}${'closed'.padStart(9)}${'outside'.padStart(10)}`);
  for (const [name, times, r] of [['empty workflow', floorTimes, floorOne], ['refund', refundTimes, refundOne]] as const) {
    // Outside: the rest of the client's latency (the start call, the result's return and, for a refund, the HTTP request and its transaction).
    const outside = quantile(r.latencies.map((ms, i) => ms - times[i]!.closed), 0.5);
    const p50 = (pick: (t: (typeof times)[number]) => number) => quantile(times.map(pick), 0.5).toFixed(1);
    console.log(`${name.padEnd(42)}${p50((t) => t.queued).padStart(10)}${p50((t) => t.inWorker).padStart(11)}${p50((t) => t.closed).padStart(9)}${outside.toFixed(1).padStart(10)}`);
  }
  console.log(memory.stop().line);
  if (ratio > TARGET_RATIO) process.exitCode = 1;
});
