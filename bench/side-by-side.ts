// What the REST list benchmarks share (bench/products-list.ts, bench/orders-list.ts): one GET path
// served by the full stack and by the bare node:http + pg handler (bench/bare-server.ts), checked
// to answer with the same bytes, then measured with autocannon in alternating rounds; printed as
// req/s, latency, server CPU per request, the throughput ratio and the full stack's peak RSS.
import os from 'node:os';
import { nodeFlags } from '../src/node-flags.js';
import { runCli, startProcess, startServerProcess, type StartedProcess } from '../test/support/processes.js';
import { autocannon, LOADGEN_CPU, pin, pinning, SERVER_CPU, type Workspace } from './products-load.js';
import { cpuSeconds, sampleMemory, type BenchEnvironment } from './support.js';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const WORKER_IN_PROCESS = process.env.WORKER_IN_PROCESS ?? 'false';
export const TARGET_RSS_MB = 250;

/** A started HTTP server: the full stack or the bare handler. */
export interface Server {
  url: string;
  child: StartedProcess['child'];
}

interface Run {
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  cpuSeconds: number;
}

interface Side {
  name: string;
  server: Server;
  runs: Run[];
}

/** The bare handler of bench/bare-server.ts, on the benchmark's database. */
export async function startBareServer(env: Record<string, string>, stopLater: (running: { stop(): Promise<unknown> }) => void): Promise<Server> {
  const bare = await startProcess('bench/bare-server.ts', env, /listening on (http:\/\/\S+)/);
  stopLater(bare);
  return { url: bare.ready[1]!, child: bare.child };
}

/** One timed autocannon run against one server; any failed request voids the benchmark. */
async function measure(side: Side, path: string, headers: Record<string, string>) {
  const pid = side.server.child.pid!;
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon(`${side.server.url}${path}`, headers, DURATION_S, CONNECTIONS);
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(`${side.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const run = { reqPerSec: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, cpuSeconds: cpuSeconds(pid) - cpuBefore };
  side.runs.push(run);
  return run;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function summary(side: Side) {
  const requests = side.runs.reduce((sum, run) => sum + run.requests, 0);
  return {
    reqPerSec: side.runs.reduce((sum, run) => sum + run.reqPerSec, 0) / side.runs.length,
    p50: median(side.runs.map((run) => run.p50)),
    p99: median(side.runs.map((run) => run.p99)),
    cpuMsPerRequest: (side.runs.reduce((sum, run) => sum + run.cpuSeconds, 0) * 1000) / requests,
  };
}

/** The baseline only counts if it answers with exactly the full stack's bytes: `rows` items under data[listKey]. */
async function checkSameResponse(full: Server, bare: Server, path: string, headers: Record<string, string>, listKey: string, rows: number) {
  const [a, b] = await Promise.all([fetch(`${full.url}${path}`, { headers }), fetch(`${bare.url}${path}`, { headers })]);
  const [bodyA, bodyB] = await Promise.all([a.text(), b.text()]);
  if (a.status !== 200 || b.status !== 200) throw new Error(`status ${a.status} (full stack) vs ${b.status} (bare):\n${bodyA}\n${bodyB}`);
  if (a.headers.get('content-type') !== b.headers.get('content-type')) {
    throw new Error(`content-type ${a.headers.get('content-type')} vs ${b.headers.get('content-type')}`);
  }
  if (bodyA !== bodyB) {
    let at = 0;
    while (bodyA[at] === bodyB[at]) at += 1;
    throw new Error(`bodies differ at byte ${at}:\nfull: ${bodyA.slice(at - 80, at + 80)}\nbare: ${bodyB.slice(at - 80, at + 80)}`);
  }
  const count = (JSON.parse(bodyA) as { data: Record<string, unknown[]> }).data[listKey]!.length;
  if (count !== rows) throw new Error(`expected ${rows} ${listKey}, got ${count}`);
  return Buffer.byteLength(bodyA);
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(10);

export interface SideBySideResult {
  ratio: number;
  peakRssMb: number;
  ratioOk: boolean;
  rssOk: boolean;
}

/**
 * GET `path` on both servers: the same bytes first (`rows` items under data[listKey]), then a
 * warm-up and ROUNDS alternating timed rounds, so a change in the machine's other load hits both
 * sides alike. `describe` is the first line printed (what is listed, from how many rows).
 */
export async function compareSideBySide(options: {
  full: Server;
  bare: Server;
  path: string;
  headers: Record<string, string>;
  listKey: string;
  rows: number;
  describe: string;
  /** The least full/bare throughput that passes. */
  targetRatio: number;
}): Promise<SideBySideResult> {
  const { full: fullServer, bare: bareServer, path, headers } = options;
  pin(fullServer.child.pid);
  pin(bareServer.child.pid);
  const bytes = await checkSameResponse(fullServer, bareServer, path, headers, options.listKey, options.rows);
  console.log(`GET ${path}: ${options.describe}, ${bytes}-byte responses, identical on both servers`);
  console.log(`full stack: npm start's process, node ${nodeFlags('main.js', { ...process.env, WORKER_IN_PROCESS }).join(' ')} dist/main.js, WORKER_IN_PROCESS=${WORKER_IN_PROCESS}, LOG_LEVEL=info`);
  console.log(`autocannon: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, then ${ROUNDS} alternating rounds of ${DURATION_S} s each; ${pinning ? `servers on CPU ${SERVER_CPU}, load generator on CPU ${LOADGEN_CPU}` : 'no CPU pinning'}`);

  const bare: Side = { name: 'bare node:http + pg', server: bareServer, runs: [] };
  const full: Side = { name: 'full stack', server: fullServer, runs: [] };
  const memory = sampleMemory(fullServer.child.pid!);
  for (const side of [bare, full]) await autocannon(`${side.server.url}${path}`, headers, WARMUP_S, CONNECTIONS);
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 ? [bare, full] : [full, bare];
    for (const side of order) await measure(side, path, headers);
    const [b, f] = [bare.runs.at(-1)!, full.runs.at(-1)!];
    console.log(`round ${round}: bare ${b.reqPerSec.toFixed(0)} req/s, full stack ${f.reqPerSec.toFixed(0)} req/s (${((f.reqPerSec / b.reqPerSec) * 100).toFixed(1)}%)`);
  }
  const peakRssMb = memory.stop().rootRss;

  const [bareSummary, fullSummary] = [summary(bare), summary(full)];
  console.log(`\n${'server'.padEnd(22)}${'req/s'.padStart(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'CPU ms/req'.padStart(12)}`);
  for (const [side, r] of [[bare, bareSummary], [full, fullSummary]] as const) {
    console.log(`${side.name.padEnd(22)}${fmt(r.reqPerSec)}${fmt(r.p50, 1)}${fmt(r.p99, 1)}${fmt(r.cpuMsPerRequest, 3).padStart(12)}`);
  }
  const ratio = fullSummary.reqPerSec / bareSummary.reqPerSec;
  const ratioOk = ratio >= options.targetRatio;
  const rssOk = peakRssMb < TARGET_RSS_MB;
  console.log(`\nthroughput ratio full/bare: ${(ratio * 100).toFixed(1)}% (target >= ${Math.round(options.targetRatio * 100)}%) ${ratioOk ? 'PASS' : 'FAIL'}; load ${os.loadavg()[0]!.toFixed(1)}`);
  // Less sensitive to other load on the machine than req/s: how much server CPU one request costs.
  console.log(`server CPU per request bare/full: ${((bareSummary.cpuMsPerRequest / fullSummary.cpuMsPerRequest) * 100).toFixed(1)}% (for information)`);
  console.log(`full stack peak RSS: ${peakRssMb.toFixed(1)} MB (target < ${TARGET_RSS_MB} MB) ${rssOk ? 'PASS' : 'FAIL'}`);
  return { ratio, peakRssMb, ratioOk, rssOk };
}

/**
 * A list benchmark's setup and run: the full stack as in production (request logging on, no edge
 * limit in the way, HTTP only unless WORKER_IN_PROCESS=true), a workspace, the rows `seed` writes
 * for it, the bare handler, then compareSideBySide on `path` (20 rows under data[listKey]).
 */
export async function listSideBySide(
  { env, stopLater }: BenchEnvironment,
  options: { seed: (databaseUrl: string, ws: Workspace) => Promise<unknown>; path: string; listKey: string; describe: string; targetRatio: number },
): Promise<SideBySideResult> {
  const full = await startServerProcess({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS });
  stopLater(full);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Bench'], env);
  await options.seed(env.DATABASE_URL, ws);
  const bare = await startBareServer(env, stopLater);
  return compareSideBySide({ full, bare, path: options.path, headers: { 'x-svc-public-key': ws.publicKey }, listKey: options.listKey, rows: 20, describe: options.describe, targetRatio: options.targetRatio });
}
