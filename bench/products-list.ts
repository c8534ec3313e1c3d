// `npm run bench`: GET /v0/products/list?take=20 over 1,000 products, the full stack (the real
// server, started as `npm start` does) against a bare node:http + pg handler running the same SQL
// and writing the same bytes. Targets: the full stack reaches 40% of the bare handler's
// throughput, and the server's RSS stays under 250 MB. Then the same load on the whole default
// tree (server with worker, embedded PostgreSQL, Temporal dev server): its memory under 600 MB.
import path from 'node:path';
import { nodeFlags } from '../src/node-flags.js';
import { embeddedDatabaseUrl } from '../test/support/database.js';
import { runCli, startProcess, startServerProcess, type StartedProcess } from '../test/support/processes.js';
import { autocannon, LOADGEN_CPU, PATH, pin, pinning, PRODUCTS, seedProducts, SERVER_CPU, type Workspace } from './products-load.js';
import { cpuSeconds, sampleMemory, withBenchEnvironment } from './support.js';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WORKER_IN_PROCESS = process.env.WORKER_IN_PROCESS ?? 'false';
const TARGET_RATIO = 0.4;
const TARGET_RSS_MB = 250;
const TARGET_TREE_MB = 600;

/** A started HTTP server: the full stack or the bare handler. */
interface Server {
  url: string;
  child: StartedProcess['child'];
}

interface Side {
  name: string;
  server: Server;
  runs: { reqPerSec: number; p50: number; p99: number; requests: number; cpuSeconds: number }[];
}

/** One timed autocannon run against one server; any failed request voids the benchmark. */
async function measure(side: Side, headers: Record<string, string>) {
  const pid = side.server.child.pid!;
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon(`${side.server.url}${PATH}`, headers, DURATION_S, CONNECTIONS);
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

/** The baseline only counts if it answers with exactly the full stack's bytes. */
async function checkSameResponse(full: Server, bare: Server, headers: Record<string, string>) {
  const [a, b] = await Promise.all([fetch(`${full.url}${PATH}`, { headers }), fetch(`${bare.url}${PATH}`, { headers })]);
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
  const products = (JSON.parse(bodyA) as { data: { products: unknown[] } }).data.products.length;
  if (products !== 20) throw new Error(`expected 20 products, got ${products}`);
  return Buffer.byteLength(bodyA);
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(10);

await withBenchEnvironment(async ({ env, stopLater }) => {
  // The full stack as in production: request logging on, no edge limit in the way. It serves
  // HTTP only, as an API process next to `npm run worker` processes does (WORKER_IN_PROCESS=true
  // measures it with the Temporal worker inside).
  const fullServer = await startServerProcess({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS });
  stopLater(fullServer);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Bench'], env);
  await seedProducts(env.DATABASE_URL, ws);
  const bareProcess = await startProcess('bench/bare-server.ts', env, /listening on (http:\/\/\S+)/);
  stopLater(bareProcess);
  const bareServer: Server = { url: bareProcess.ready[1]!, child: bareProcess.child };
  pin(fullServer.child.pid);
  pin(bareServer.child.pid);

  const headers = { 'x-svc-public-key': ws.publicKey };
  const bytes = await checkSameResponse(fullServer, bareServer, headers);
  console.log(`GET ${PATH}: ${PRODUCTS} products, ${bytes}-byte responses, identical on both servers`);
  console.log(`full stack: npm start's process, node ${nodeFlags('main.js', { ...process.env, WORKER_IN_PROCESS }).join(' ')} dist/main.js, WORKER_IN_PROCESS=${WORKER_IN_PROCESS}, LOG_LEVEL=info`);
  console.log(`autocannon: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, then ${ROUNDS} alternating rounds of ${DURATION_S} s each; ${pinning ? `servers on CPU ${SERVER_CPU}, load generator on CPU ${LOADGEN_CPU}` : 'no CPU pinning'}`);

  const bare: Side = { name: 'bare node:http + pg', server: bareServer, runs: [] };
  const full: Side = { name: 'full stack', server: fullServer, runs: [] };
  const memory = sampleMemory(fullServer.child.pid!);
  for (const side of [bare, full]) await autocannon(`${side.server.url}${PATH}`, headers, WARMUP_S, CONNECTIONS);
  // Alternating rounds, so a change in the machine's other load hits both sides alike.
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 ? [bare, full] : [full, bare];
    for (const side of order) await measure(side, headers);
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
  const ratioOk = ratio >= TARGET_RATIO;
  const rssOk = peakRssMb < TARGET_RSS_MB;
  console.log(`\nthroughput ratio full/bare: ${(ratio * 100).toFixed(1)}% (target >= ${TARGET_RATIO * 100}%) ${ratioOk ? 'PASS' : 'FAIL'}`);
  // Less sensitive to other load on the machine than req/s: how much server CPU one request costs.
  console.log(`server CPU per request bare/full: ${((bareSummary.cpuMsPerRequest / fullSummary.cpuMsPerRequest) * 100).toFixed(1)}% (for information)`);
  console.log(`full stack peak RSS: ${peakRssMb.toFixed(1)} MB (target < ${TARGET_RSS_MB} MB) ${rssOk ? 'PASS' : 'FAIL'}`);

  const tree = await measureDefaultTree(path.join(env.DATA_DIR, 'default-tree'), stopLater);
  const treeOk = tree.treePss < TARGET_TREE_MB;
  console.log(`\nthe whole default tree (npm start with nothing configured: server + in-process worker, embedded PostgreSQL, Temporal dev server), peaks under the same load:`);
  console.log(`  server process RSS ${tree.rootRss.toFixed(1)} MB; tree RSS summed ${tree.treeRss.toFixed(1)} MB (shared pages counted per process); tree PSS ${tree.treePss.toFixed(1)} MB (target < ${TARGET_TREE_MB} MB) ${treeOk ? 'PASS' : 'FAIL'}`);
  const parts = Object.entries(tree.pssByProgram).filter(([, mb]) => mb >= 0.5).sort(([, a], [, b]) => b - a);
  console.log(`  PSS by program (peaks): ${parts.map(([program, mb]) => `${program} ${mb.toFixed(1)} MB`).join(', ')}`);
  if (!ratioOk || !rssOk || !treeOk) process.exitCode = 1;
});

/**
 * The memory of what a fresh clone's `npm start` runs, serving the same list: the server with its
 * in-process worker, the embedded PostgreSQL and the Temporal dev server it starts, all in one
 * process tree (the database and the dev server are children of the server).
 */
async function measureDefaultTree(dataDir: string, stopLater: (running: { stop(): Promise<unknown> }) => void) {
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', TEMPORAL_ADDRESS: '', WORKER_IN_PROCESS: 'true' };
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '1000000000' }, 300_000);
  stopLater(server);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Bench default tree'], env);
  await seedProducts(await embeddedDatabaseUrl(dataDir), ws);
  const memory = sampleMemory(server.child.pid!);
  for (let round = 0; round < ROUNDS; round += 1) {
    const result = await autocannon(`${server.url}${PATH}`, { 'x-svc-public-key': ws.publicKey }, DURATION_S, CONNECTIONS);
    if (result.non2xx || result.errors || result.timeouts) throw new Error(`default tree: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return memory.stop();
}
