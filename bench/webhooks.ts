// `npm run bench:webhooks`: webhook delivery against the Temporal floor, in one run on one
// Temporal dev server.
//  - Deliveries: 1,000 product_created events fanned out to 5 webhooks on 5 local receivers,
//    5,000 deliveries through the whole engine. The events come from POST /v0/products/create, so
//    the real service commits each into the outbox with its product; the worker's dispatcher hands
//    them to delivery workflows, whose attemptDelivery activity signs and POSTs each one and
//    records the try. Latency: the event's createdAt to the receiver having the request.
//  - Floor: 5,000 empty workflows (workflows/bench-noop.ts) started with the dispatcher's
//    concurrency on the same worker process, until all completed. Latency: start request to close.
// Target: deliveries/s at least 50% of the floor's workflows/s.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';
import { Webhook as StandardWebhook } from 'standardwebhooks';

import { runCli, startServerProcess, startWorkerProcess } from '../test/support/processes.js';
import { inParallel, keyHeaders, machineCpu, post, postgresCpuSeconds, postgresCpuSince, quantile, treeCpuSeconds, withBenchEnvironment, type BenchWorkspace } from './support.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
// The spec's limit of webhooks per workspace.
const RECEIVERS = 5;
const DELIVERIES = EVENTS * RECEIVERS;
const PRODUCER_CONCURRENCY = Number(process.env.BENCH_PRODUCER_CONCURRENCY ?? 10);
// What the dispatcher has in flight: a batch of 50 events, one start per subscribed webhook.
const START_CONCURRENCY = Number(process.env.BENCH_START_CONCURRENCY ?? 50 * RECEIVERS);
const DISPATCH_INTERVAL_MS = process.env.EVENT_DISPATCH_INTERVAL_MS ?? '20';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 1800) * 1000;
const WARMUP_EVENTS = 10;
// Events for the latency without a backlog.
const SINGLE_EVENTS = 20;
const TARGET_RATIO = 0.5;

interface Received {
  receiver: number;
  receivedAt: number;
  eventId: string;
  type: string;
  /** The event's createdAt, in ms. */
  createdAt: number;
}

/**
 * The 5 webhook endpoints: each answers 200 at once, then verifies the signature (Standard
 * Webhooks, with the webhook's secret) and keeps what it got.
 */
class Receivers {
  received: Received[] = [];
  /** Requests that failed verification. */
  rejected: string[] = [];
  /** One per receiver, set once the webhooks (and so their secrets) exist. */
  verifiers: StandardWebhook[] = [];
  private readonly servers: http.Server[] = [];
  private readonly unique = new Set<string>();
  private waiter: { count: number; resolve(): void } | undefined;

  async listen(count: number): Promise<string[]> {
    for (let receiver = 0; receiver < count; receiver += 1) {
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const receivedAt = Date.now();
          res.writeHead(200).end();
          this.record(receiver, receivedAt, req.headers, Buffer.concat(chunks).toString('utf8'));
        });
      });
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
    }
    return this.servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
  }

  private record(receiver: number, receivedAt: number, headers: http.IncomingHttpHeaders, body: string) {
    let event: { id: string; type: string; createdAt: number };
    try {
      event = this.verifiers[receiver]!.verify(body, headers as Record<string, string>) as typeof event;
      if (event.id !== headers['webhook-id']) throw new Error('webhook-id is not the event id');
    } catch (error) {
      this.rejected.push(`${(error as Error).message}: ${body.slice(0, 200)}`);
      return;
    }
    this.received.push({ receiver, receivedAt, eventId: event.id, type: event.type, createdAt: event.createdAt });
    // Delivery is at least once: a repeat of an event at the same receiver is not a new delivery.
    this.unique.add(`${receiver}:${event.id}`);
    if (this.waiter && this.unique.size >= this.waiter.count) this.waiter.resolve();
  }

  get deliveries() {
    return this.unique.size;
  }

  reset() {
    this.received = [];
    this.rejected = [];
    this.unique.clear();
  }

  /** Resolves once `count` distinct deliveries have arrived since the last reset. */
  async until(count: number, timeoutMs: number): Promise<void> {
    if (this.unique.size >= count) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => (this.waiter = { count, resolve })),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`only ${this.unique.size} of ${count} deliveries arrived within ${timeoutMs / 1000} s`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.waiter = undefined;
    }
  }

  async stop() {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

/** CPU seconds per part of the system, to see where a phase spends its time. */
interface CpuSample {
  worker: number;
  api: number;
  temporal: number;
  postgres: number;
  machine: { busy: number; total: number };
}

interface Phase {
  name: string;
  count: number;
  /** From the first event committed (the first start requested) to the last delivery (the last workflow closed). */
  windowMs: number;
  /** From the same beginning to the last workflow started. */
  startedMs: number;
  latencies: number[];
  cpu: CpuSample;
}

const perSecond = (phase: Phase) => phase.count / (phase.windowMs / 1000);

interface Webhook {
  url: string;
  secret: string;
}

await withBenchEnvironment(async ({ env, databaseName, temporalPid, stopLater }) => {
  const receivers = new Receivers();
  const urls = await receivers.listen(RECEIVERS);
  stopLater(receivers);

  // As deployed to scale: an API process and a worker process (`npm run worker`: the Temporal
  // worker and the event dispatcher), logging at info as in production. The same worker runs the
  // floor's empty workflows.
  const settings = { ...env, LOG_LEVEL: 'info', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', EVENT_DISPATCH_INTERVAL_MS: DISPATCH_INTERVAL_MS };
  const api = await startServerProcess({ ...settings, WORKER_IN_PROCESS: 'false', RATE_LIMIT_POINTS: '1000000000' });
  stopLater(api);
  const worker = await startWorkerProcess(settings);
  stopLater(worker);
  const taskQueue = worker.ready[1]!;

  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Webhook bench'], env);
  await runCli(['workspace', 'set', ws.workspaceId, `productLimit=${ROUNDS * EVENTS + WARMUP_EVENTS + SINGLE_EVENTS}`], env);
  const headers = keyHeaders(ws);
  const webhooks: Webhook[] = [];
  for (const url of urls) {
    const { webhook } = await post<{ webhook: Webhook }>(`${api.url}/v0/webhooks/create`, headers, { url, events: ['product_created'], status: 'active' });
    webhooks.push(webhook);
  }
  receivers.verifiers = webhooks.map((webhook) => new StandardWebhook(webhook.secret));

  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  stopLater({ stop: () => connection.close() });
  const client = new Client({ connection });

  const sampleCpu = () => ({
    worker: treeCpuSeconds(worker.child.pid!),
    api: treeCpuSeconds(api.child.pid!),
    temporal: treeCpuSeconds(temporalPid),
    postgres: postgresCpuSeconds(databaseName),
    machine: machineCpu(),
  });
  const cpuSince = (before: ReturnType<typeof sampleCpu>): CpuSample => {
    const now = sampleCpu();
    return {
      worker: now.worker - before.worker,
      api: now.api - before.api,
      temporal: now.temporal - before.temporal,
      postgres: postgresCpuSince(before.postgres, now.postgres),
      machine: { busy: now.machine.busy - before.machine.busy, total: now.machine.total - before.machine.total },
    };
  };

  let products = 0;
  const createProducts = (count: number) =>
    inParallel(count, PRODUCER_CONCURRENCY, async () => {
      products += 1;
      await post(`${api.url}/v0/products/create`, headers, { name: `Bench product ${products}`, projectId: ws.projectId, type: 'DigitalDownload' });
    });

  /** Checks that each receiver got each of `events` events; returns the latencies of their first copies. */
  function checkDeliveries(events: number): { latencies: number[]; firstEventAt: number; lastEventAt: number; lastReceiptAt: number; repeats: number } {
    if (receivers.rejected.length) throw new Error(`${receivers.rejected.length} deliveries failed verification, e.g. ${receivers.rejected[0]}`);
    const firsts = new Map<string, Received>();
    for (const request of receivers.received) {
      if (request.type !== 'product_created') throw new Error(`unexpected ${request.type} event ${request.eventId}`);
      const key = `${request.receiver}:${request.eventId}`;
      if (!firsts.has(key)) firsts.set(key, request);
    }
    const requests = [...firsts.values()];
    const perReceiver = Array.from({ length: RECEIVERS }, (_, receiver) => requests.filter((r) => r.receiver === receiver).length);
    if (perReceiver.some((count) => count !== events)) throw new Error(`deliveries per receiver: ${perReceiver.join(', ')} (expected ${events} each)`);
    const createdAt = requests.map((request) => request.createdAt);
    return {
      latencies: requests.map((request) => request.receivedAt - request.createdAt),
      firstEventAt: Math.min(...createdAt),
      lastEventAt: Math.max(...createdAt),
      lastReceiptAt: Math.max(...requests.map((request) => request.receivedAt)),
      repeats: receivers.received.length - firsts.size,
    };
  }

  /** The executions matching a visibility query (the server's own start and close times). */
  async function executions(query: string) {
    const found: { workflowId: string; startAt: number; closeAt: number | undefined }[] = [];
    for await (const execution of client.workflow.list({ query })) {
      found.push({ workflowId: execution.workflowId, startAt: execution.startTime.getTime(), closeAt: execution.closeTime?.getTime() });
    }
    return found;
  }

  async function deliveryRound(): Promise<Phase> {
    receivers.reset();
    const before = sampleCpu();
    await createProducts(EVENTS);
    await receivers.until(DELIVERIES, TIMEOUT_MS);
    const cpu = cpuSince(before);
    const { latencies, firstEventAt, lastEventAt, lastReceiptAt, repeats } = checkDeliveries(EVENTS);
    const started = await executions(`WorkflowType = 'webhookDelivery' AND StartTime >= '${new Date(firstEventAt).toISOString()}'`);
    if (started.length !== DELIVERIES) throw new Error(`${started.length} delivery workflows started for ${DELIVERIES} deliveries`);
    console.log(
      `  deliveries: ${EVENTS} events committed in ${((lastEventAt - firstEventAt) / 1000).toFixed(1)} s, ` +
        `${DELIVERIES} signed deliveries verified${repeats ? `, ${repeats} repeated` : ''}`,
    );
    return {
      name: 'webhook deliveries',
      count: DELIVERIES,
      windowMs: lastReceiptAt - firstEventAt,
      startedMs: Math.max(...started.map((execution) => execution.startAt)) - firstEventAt,
      latencies,
      cpu,
    };
  }

  /** Starts empty workflows, `concurrency` starts in flight; returns the start request times by workflow id. */
  async function startEmptyWorkflows(prefix: string, count: number, concurrency: number): Promise<Map<string, number>> {
    const requestedAt = new Map<string, number>();
    await inParallel(count, concurrency, async (index) => {
      const workflowId = `${prefix}-${index}`;
      requestedAt.set(workflowId, Date.now());
      await client.workflow.start('benchNoop', { taskQueue, workflowId, args: [] });
    });
    return requestedAt;
  }

  /** `count` empty workflows, START_CONCURRENCY starts in flight, until all have completed. */
  async function floorRound(count: number): Promise<Phase> {
    const prefix = `bench-noop-${randomUUID()}`;
    const before = sampleCpu();
    const firstAt = Date.now();
    const requestedAt = await startEmptyWorkflows(prefix, count, START_CONCURRENCY);
    // Completion is read from visibility, not by awaiting each result: thousands of long polls
    // would load the very server being measured. The times come from the server's records.
    const query = `WorkflowType = 'benchNoop' AND WorkflowId STARTS_WITH '${prefix}'`;
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const { count: completed } = await client.workflow.count(`${query} AND ExecutionStatus = 'Completed'`);
      if (completed === count) break;
      if (Date.now() > deadline) throw new Error(`only ${completed} of ${count} empty workflows completed within ${TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
    const cpu = cpuSince(before);
    const done = await executions(query);
    return {
      name: 'empty workflows (floor)',
      count,
      windowMs: Math.max(...done.map((execution) => execution.closeAt!)) - firstAt,
      startedMs: Math.max(...done.map((execution) => execution.startAt)) - firstAt,
      latencies: done.map((execution) => execution.closeAt! - requestedAt.get(execution.workflowId)!),
      cpu,
    };
  }

  /** Latency without a backlog: one event at a time, each awaited until its deliveries arrived. */
  async function singleDeliveries(): Promise<number[]> {
    const latencies: number[] = [];
    for (let event = 0; event < SINGLE_EVENTS; event += 1) {
      receivers.reset();
      await createProducts(1);
      await receivers.until(RECEIVERS, TIMEOUT_MS);
      latencies.push(...checkDeliveries(1).latencies);
    }
    return latencies;
  }

  /** The floor's counterpart: one empty workflow per receiver at a time, each batch awaited. */
  async function singleWorkflows(): Promise<number[]> {
    const latencies: number[] = [];
    for (let event = 0; event < SINGLE_EVENTS; event += 1) {
      const prefix = `bench-noop-${randomUUID()}`;
      const requestedAt = await startEmptyWorkflows(prefix, RECEIVERS, RECEIVERS);
      for (const [workflowId, at] of requestedAt) {
        const handle = client.workflow.getHandle(workflowId);
        await handle.result();
        latencies.push((await handle.describe()).closeTime!.getTime() - at);
      }
    }
    return latencies;
  }

  console.log(`${EVENTS} product_created events x ${RECEIVERS} webhooks = ${DELIVERIES} deliveries; floor: ${DELIVERIES} empty workflows`);
  console.log(
    `API process + worker process (dist/worker-main.js), EVENT_DISPATCH_INTERVAL_MS=${DISPATCH_INTERVAL_MS}, LOG_LEVEL=info; ` +
      `${PRODUCER_CONCURRENCY} concurrent product creates; floor starts ${START_CONCURRENCY} at a time; ${os.availableParallelism()} CPUs`,
  );
  // Warm-up: both paths once, so that neither pays for first-use costs (bundle load, JIT, pools).
  receivers.reset();
  await createProducts(WARMUP_EVENTS);
  await receivers.until(WARMUP_EVENTS * RECEIVERS, TIMEOUT_MS);
  await floorRound(WARMUP_EVENTS * RECEIVERS);

  const deliveries: Phase[] = [];
  const floors: Phase[] = [];
  // Alternating order, so that a change in the machine's other load (and the dev server's growing
  // history) hits both sides alike.
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`round ${round}:`);
    for (const side of round % 2 ? ['deliveries', 'floor'] : ['floor', 'deliveries']) {
      if (side === 'deliveries') deliveries.push(await deliveryRound());
      else floors.push(await floorRound(DELIVERIES));
    }
    const [d, f] = [deliveries.at(-1)!, floors.at(-1)!];
    console.log(`  ${perSecond(d).toFixed(1)} deliveries/s, floor ${perSecond(f).toFixed(1)} workflows/s (${((perSecond(d) / perSecond(f)) * 100).toFixed(1)}%)`);
  }
  const single = { deliveries: await singleDeliveries(), floor: await singleWorkflows() };

  const total = (phases: Phase[]): Phase => ({
    name: phases[0]!.name,
    count: phases.reduce((sum, p) => sum + p.count, 0),
    windowMs: phases.reduce((sum, p) => sum + p.windowMs, 0),
    startedMs: phases.reduce((sum, p) => sum + p.startedMs, 0),
    latencies: phases.flatMap((p) => p.latencies),
    cpu: phases.map((p) => p.cpu).reduce((a, b) => ({
      worker: a.worker + b.worker,
      api: a.api + b.api,
      temporal: a.temporal + b.temporal,
      postgres: a.postgres + b.postgres,
      machine: { busy: a.machine.busy + b.machine.busy, total: a.machine.total + b.machine.total },
    })),
  });
  const [delivery, floor] = [total(deliveries), total(floors)];
  const row = (name: string, cells: string[]) => console.log(`${name.padEnd(26)}${cells.map((c) => c.padStart(10)).join('')}`);
  console.log(`\nAll at once (${EVENTS} events / ${DELIVERIES} workflows); latency includes the wait in the backlog; CPU in ms per delivery or workflow`);
  row('', ['per s', 'p50 ms', 'p99 ms', 'window s', 'started s', 'CPU busy', 'worker', 'Temporal', 'Postgres', 'API']);
  for (const phase of [delivery, floor]) {
    const ms = (seconds: number) => ((seconds * 1000) / phase.count).toFixed(1);
    row(phase.name, [
      perSecond(phase).toFixed(1),
      quantile(phase.latencies, 0.5).toFixed(0),
      quantile(phase.latencies, 0.99).toFixed(0),
      (phase.windowMs / 1000).toFixed(1),
      (phase.startedMs / 1000).toFixed(1),
      `${((phase.cpu.machine.busy / phase.cpu.machine.total) * 100).toFixed(0)}%`,
      ms(phase.cpu.worker),
      ms(phase.cpu.temporal),
      ms(phase.cpu.postgres),
      ms(phase.cpu.api),
    ]);
  }
  console.log(`\nOne at a time (${SINGLE_EVENTS} events, each awaited / ${SINGLE_EVENTS} x ${RECEIVERS} empty workflows)`);
  row('', ['p50 ms', 'p99 ms']);
  for (const [name, latencies] of [[delivery.name, single.deliveries], [floor.name, single.floor]] as const) {
    row(name, [quantile(latencies, 0.5).toFixed(0), quantile(latencies, 0.99).toFixed(0)]);
  }
  const ratio = perSecond(delivery) / perSecond(floor);
  const pass = ratio >= TARGET_RATIO;
  console.log(`\ndeliveries/s vs the floor's workflows/s: ${(ratio * 100).toFixed(1)}% (target >= ${TARGET_RATIO * 100}%) ${pass ? 'PASS' : 'FAIL'}`);
  if (!pass) process.exitCode = 1;
});
