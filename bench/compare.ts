// `node scripts/run.mjs tsx bench/compare.ts <other tree>`: this tree's server and another tree's
// (a checkout of another commit with its node_modules, e.g. made with `git worktree add`), under
// the load of `npm run bench`, side by side on one database with the bare handler. They are
// measured in rotating rounds, so a change in the machine's other load hits all three alike: on a
// shared machine this tells a change in the server apart from noise better than two `npm run
// bench` runs. Prints req/s, the ratio to the bare handler, server CPU per request and peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { nodeFlags } from '../src/node-flags.js';
import { runCli, startProcess, startServerProcess } from '../test/support/processes.js';
import { autocannon, PATH, pin, seedProducts, type Workspace } from './products-load.js';
import { cpuSeconds, sampleMemory, withBenchEnvironment } from './support.js';

const OTHER = process.argv[2] && path.resolve(process.argv[2]);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

if (!OTHER) throw new Error('usage: node scripts/run.mjs tsx bench/compare.ts <other tree>');

/** The other tree's server, built and started there as `npm start` does (API only). */
async function startOther(env: Record<string, string>): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: OTHER, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`building ${OTHER} failed`);
  const child = spawn(process.execPath, [...nodeFlags('main.js', { ...process.env, ...env }), 'dist/main.js'], {
    cwd: OTHER,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill())));
  let output = '';
  let started = false;
  return new Promise((resolve, reject) => {
    // Read to the end (a full pipe would stall the server), but searched only until it has started.
    const onData = (chunk: Buffer) => {
      if (started) return;
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        started = true;
        resolve({ url, pid: child.pid!, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server of ${OTHER} exited with ${code}:\n${output}`)));
  });
}

interface Side {
  name: string;
  url: string;
  pid: number;
  runs: { reqPerSec: number; cpuMsPerRequest: number }[];
}

const range = (values: number[], digits: number) =>
  `${(values.reduce((sum, v) => sum + v, 0) / values.length).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

await withBenchEnvironment(async ({ env, stopLater }) => {
  const serverEnv = { ...env, LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS: 'false' };
  const here = await startServerProcess(serverEnv);
  stopLater(here);
  const other = await startOther(serverEnv);
  stopLater(other);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Bench'], env);
  await seedProducts(env.DATABASE_URL, ws);
  const bare = await startProcess('bench/bare-server.ts', env, /listening on (http:\/\/\S+)/);
  stopLater(bare);

  const sides: Side[] = [
    { name: 'bare handler', url: bare.ready[1]!, pid: bare.child.pid!, runs: [] },
    { name: `other (${OTHER})`, url: other.url, pid: other.pid, runs: [] },
    { name: 'this tree', url: here.url, pid: here.child.pid!, runs: [] },
  ];
  const headers = { 'x-svc-public-key': ws.publicKey };
  const bodies = await Promise.all(sides.map(async (side) => (await fetch(`${side.url}${PATH}`, { headers })).text()));
  if (new Set(bodies).size !== 1) throw new Error('the three servers answer with different bytes');
  for (const side of sides) pin(side.pid);
  const memory = sides.map((side) => sampleMemory(side.pid));
  for (const side of sides) await autocannon(`${side.url}${PATH}`, headers, 3, CONNECTIONS);

  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of sides.map((_, i) => sides[(i + round) % sides.length]!)) {
      const cpuBefore = cpuSeconds(side.pid);
      const result = await autocannon(`${side.url}${PATH}`, headers, DURATION_S, CONNECTIONS);
      if (result.non2xx || result.errors || result.timeouts) throw new Error(`${side.name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
      side.runs.push({ reqPerSec: result.requests.average, cpuMsPerRequest: ((cpuSeconds(side.pid) - cpuBefore) * 1000) / result.requests.total });
    }
    const [b, o, h] = sides.map((side) => side.runs.at(-1)!);
    const ratio = (run: Side['runs'][number]) => `${((run.reqPerSec / b!.reqPerSec) * 100).toFixed(1)}%`;
    console.log(`round ${round + 1}: bare ${b!.reqPerSec.toFixed(0)} req/s; other ${o!.reqPerSec.toFixed(0)} (${ratio(o!)}); this tree ${h!.reqPerSec.toFixed(0)} (${ratio(h!)})`);
  }
  const peaks = memory.map((sampler) => sampler.stop().rootRss);

  console.log('\nmean (range) over the rounds');
  sides.forEach((side, i) => {
    const ratios = side.runs.map((run, k) => (run.reqPerSec / sides[0]!.runs[k]!.reqPerSec) * 100);
    console.log(
      `${side.name}: ${range(side.runs.map((run) => run.reqPerSec), 0)} req/s` +
        (i > 0 ? `, ratio to the bare handler ${range(ratios, 1)}%` : '') +
        `, CPU ${range(side.runs.map((run) => run.cpuMsPerRequest), 2)} ms/request, peak RSS ${peaks[i]!.toFixed(1)} MB`,
    );
  });
});
