// `npm run bench:refunds`: a refund end to end (PATCH /v0/orders/{id}/refund answered with the
// processor's outcome: the refund's workflow, the sandbox refund, the bookkeeping) side by side
// with the floor of the same Temporal dev server and worker: an empty workflow started and its
// result awaited (workflows/bench-noop.ts). Production's shape: an API process
// (WORKER_IN_PROCESS=false) and a worker process. First BENCH_REFUND_ORDERS (default 120) orders
// are paid through the hosted checkout (not measured); then, one at a time (latency) and
// BENCH_REFUND_CONCURRENCY (default 8) at a time (throughput), half of them are refunded in
// full and as many empty workflows are run. One at a time, refunds and empty workflows alternate,
// so that the machine's load (shared, never idle) weighs on both alike. Target: refund p50 at most
// 1.5x the floor's p50.
import { randomUUID } from 'node:crypto';
import os from 'node:os';

import { runCli } from '../test/support/processes.js';
import { inParallel, keyHeaders, post, quantile, startApiAndWorker, withBenchEnvironment, type BenchWorkspace } from './support.js';

const ORDERS = Number(process.env.BENCH_REFUND_ORDERS ?? 120);
const CONCURRENCY = Number(process.env.BENCH_REFUND_CONCURRENCY ?? 8);
const CARD = { number: '4242424242424242', expMonth: 12, expYear: new Date().getFullYear() + 5, cvc: '123' };
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

/** Runs two tasks in turn, one at a time, `count` times each, timing each: a Round per task. */
async function alternating(count: number, ...tasks: [(index: number) => Promise<void>, (index: number) => Promise<void>]): Promise<[Round, Round]> {
  const rounds: [Round, Round] = [{ latencies: [], seconds: 0 }, { latencies: [], seconds: 0 }];
  for (let index = 0; index < count; index += 1) {
    for (const [n, task] of tasks.entries()) {
      const at = performance.now();
      await task(index);
      const ms = performance.now() - at;
      rounds[n]!.latencies.push(ms);
      rounds[n]!.seconds += ms / 1000;
    }
  }
  return rounds;
}

const row = (name: string, r: Round) =>
  `${name.padEnd(34)}${String(r.latencies.length).padStart(6)}${quantile(r.latencies, 0.5).toFixed(1).padStart(10)}${quantile(r.latencies, 0.99).toFixed(1).padStart(10)}${(r.latencies.length / r.seconds).toFixed(1).padStart(10)}`;

await withBenchEnvironment(async (environment) => {
  const { env } = environment;
  const { server, taskQueue, client } = await startApiAndWorker(environment);

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
    const status = response.status === 200 ? (JSON.parse(text) as { data: { status: string } }).data.status : null;
    if (status !== 'succeeded') throw new Error(`refund of ${orderId}: ${response.status} ${text.slice(0, 300)}`);
  };
  const emptyWorkflow = async () => {
    await client.workflow.execute('benchNoop', { taskQueue, workflowId: `bench-noop-${randomUUID()}`, args: [] });
  };

  // Warm-up: both paths once.
  await emptyWorkflow();
  await refund(orders.pop()!);
  const half = Math.floor(orders.length / 2);
  const [floorOne, refundOne] = await alternating(half, () => emptyWorkflow(), (i) => refund(orders[i]!));
  const floorMany = await round(orders.length - half, CONCURRENCY, () => emptyWorkflow());
  const refundMany = await round(orders.length - half, CONCURRENCY, (i) => refund(orders[half + i]!));

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
  if (ratio > TARGET_RATIO) process.exitCode = 1;
});
