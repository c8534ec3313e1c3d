// `npm run bench:pooler`: what PgBouncer in transaction mode and unnamed statements cost, on the
// orders list (GET /v0/orders/list?take=20&statuses=PAID&currency=USD over BENCH_ORDERS orders,
// 100,000 as in bench:orders: a statement of kilobytes) and a product update (PATCH /v0/products/{id}/update:
// a transaction of several statements). One API process (WORKER_IN_PROCESS=false) per setting:
//   direct, named     DATABASE_URL straight to PostgreSQL, each statement prepared once per connection (the default)
//   direct, unnamed   the same with DATABASE_PREPARED_STATEMENTS=false
//   PgBouncer         DATABASE_URL through PgBouncer 1.18 in transaction mode (its default_pool_size 20),
//                     DATABASE_PREPARED_STATEMENTS=false, DATABASE_DIRECT_URL straight to PostgreSQL
// measured with autocannon in alternating rounds; req/s, latency, and CPU per request of the API
// process, of PgBouncer and of PostgreSQL (less sensitive to the machine's other load than req/s). Named statements through PgBouncer are tried first, for the failure
// they give (42P05: another client's statement of the same name on a shared server connection).
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { startPgBouncer } from '../src/db/pgbouncer.js';
import { runCli, startServerProcess } from '../test/support/processes.js';
import { ORDERS, seedOrders } from './orders-seed.js';
import { autocannon, type Workspace } from './products-load.js';

type BenchWorkspace = Workspace & { secretKey: string };
import { CONNECTIONS, DURATION_S, ROUNDS, WARMUP_S } from './side-by-side.js';
import { cpuSeconds, postgresCpuSeconds, postgresCpuSince, treeCpuSeconds, withBenchEnvironment } from './support.js';

const LIST = '/v0/orders/list?take=20&statuses=PAID&currency=USD';

interface Setting {
  name: string;
  env: Record<string, string>;
  url?: string;
  pid?: number;
  runs: Record<'list' | 'update', { reqPerSec: number; p50: number; p99: number; apiCpu: number; bouncerCpu: number; postgresCpu: number; requests: number }[]>;
}

await withBenchEnvironment(async ({ env, databaseName, stopLater }) => {
  const ws = await runCli<BenchWorkspace>(['workspace', 'create', '--name', 'Bench pooler'], env);
  const started = Date.now();
  await seedOrders(env.DATABASE_URL, ws);
  console.log(`seeded ${ORDERS.toLocaleString('en')} orders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const bouncer = await startPgBouncer({ upstream: env.DATABASE_URL, dir: await mkdtemp(path.join(os.tmpdir(), 'commerce-pgbouncer-')), poolSize: 20 });
  stopLater(bouncer);
  const pooled = new URL(env.DATABASE_URL);
  pooled.port = String(bouncer.port);

  const api = { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS: 'false' };
  const headers = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };

  const broken = await startServerProcess({ ...api, DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: env.DATABASE_URL });
  // Concurrent, so that the API's connections share PgBouncer's server connections (one at a time reuses the same one).
  const statuses = await Promise.all(Array.from({ length: 100 }, async () => (await fetch(`${broken.url}${LIST}`, { headers })).status));
  await broken.stop();
  console.log(`named statements through PgBouncer: ${statuses.filter((status) => status !== 200).length} of ${statuses.length} concurrent list requests failed (statuses ${[...new Set(statuses)].join(', ')})`);

  const configurations: Pick<Setting, 'name' | 'env'>[] = [
    { name: 'direct, named', env: {} },
    { name: 'direct, unnamed', env: { DATABASE_PREPARED_STATEMENTS: 'false' } },
    { name: 'PgBouncer, unnamed', env: { DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: env.DATABASE_URL, DATABASE_PREPARED_STATEMENTS: 'false' } },
  ];
  const settings: Setting[] = configurations.map((setting) => ({ ...setting, runs: { list: [], update: [] } }));
  for (const setting of settings) {
    const server = await startServerProcess({ ...api, ...setting.env });
    stopLater(server);
    setting.url = server.url;
    setting.pid = server.child.pid!;
  }
  const product = (await (await fetch(`${settings[0]!.url}/v0/products/create`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench product', projectId: ws.projectId, type: 'Game' }) })).json()) as {
    data: { product: { id: string } };
  };
  const update = { method: 'PATCH', path: `/v0/products/${product.data.product.id}/update`, body: JSON.stringify({ description: 'Updated by the pooler benchmark' }) };

  console.log(`autocannon: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up, then ${ROUNDS} alternating rounds of ${DURATION_S} s per setting and path`);
  const load = (setting: Setting, kind: 'list' | 'update', seconds: number) =>
    kind === 'list'
      ? autocannon(`${setting.url}${LIST}`, headers, seconds, CONNECTIONS)
      : autocannon(`${setting.url}${update.path}`, { ...headers, 'content-type': 'application/json' }, seconds, CONNECTIONS, { method: update.method, body: update.body });
  for (const setting of settings) for (const kind of ['list', 'update'] as const) await load(setting, kind, WARMUP_S);
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const kind of ['list', 'update'] as const) {
      const order = round % 2 ? settings : [...settings].reverse();
      for (const setting of order) {
        const api0 = cpuSeconds(setting.pid!);
        const bouncer0 = treeCpuSeconds(bouncer.pid);
        const postgres0 = postgresCpuSeconds(databaseName);
        const result = await load(setting, kind, DURATION_S);
        if (result.non2xx || result.errors || result.timeouts) throw new Error(`${setting.name} ${kind}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
        setting.runs[kind].push({
          reqPerSec: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          apiCpu: cpuSeconds(setting.pid!) - api0,
          bouncerCpu: treeCpuSeconds(bouncer.pid) - bouncer0,
          postgresCpu: postgresCpuSince(postgres0, postgresCpuSeconds(databaseName)),
          requests: result.requests.total,
        });
      }
      console.log(`round ${round} ${kind}: ${settings.map((s) => `${s.name} ${s.runs[kind].at(-1)!.reqPerSec.toFixed(0)} req/s`).join(', ')}`);
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`\nCPU ms per request: the API process, PgBouncer, PostgreSQL's backends of the database`);
  console.log(`${'setting'.padEnd(20)}${'path'.padEnd(8)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'API'.padStart(8)}${'PgBouncer'.padStart(11)}${'PostgreSQL'.padStart(12)}`);
  for (const kind of ['list', 'update'] as const) {
    for (const setting of settings) {
      const runs = setting.runs[kind];
      const requests = runs.reduce((sum, run) => sum + run.requests, 0);
      const perRequest = (seconds: number) => ((seconds * 1000) / requests).toFixed(3);
      console.log(
        `${setting.name.padEnd(20)}${kind.padEnd(8)}${(runs.reduce((sum, run) => sum + run.reqPerSec, 0) / runs.length).toFixed(0).padStart(8)}` +
          `${median(runs.map((run) => run.p50)).toFixed(1).padStart(8)}${median(runs.map((run) => run.p99)).toFixed(1).padStart(8)}` +
          `${perRequest(runs.reduce((sum, run) => sum + run.apiCpu, 0)).padStart(8)}${perRequest(runs.reduce((sum, run) => sum + run.bouncerCpu, 0)).padStart(11)}` +
          `${perRequest(runs.reduce((sum, run) => sum + run.postgresCpu, 0)).padStart(12)}`,
      );
    }
  }
});
