// `npm run topology`: production's shape on one machine (docs/deployment.md, "The worked example"):
// the machine's PostgreSQL (127.0.0.1:5432, fresh databases), PgBouncer in transaction mode in
// front of it, a Temporal server on PostgreSQL, the machine's Redis (127.0.0.1:6379), two API
// processes behind HAProxy (Debian's `haproxy`) and two workers. Migrations run once, as a release
// step, before any API starts. It prints the address and runs until SIGINT/SIGTERM, then stops
// everything and drops its databases. `npm run test:topology` (test/topology/) starts it the same
// way, through startTopology(), and SIGKILLs parts of it under load.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

import { freePort } from '../src/local-service.js';
import { buildDist, runProcess, startProcess, startServerProcess, startWorkerProcess, type StartedProcess } from '../test/support/processes.js';

const POSTGRES = process.env.TOPOLOGY_POSTGRES_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.TOPOLOGY_REDIS_URL || 'redis://127.0.0.1:6379';
// Server connections PgBouncer keeps per database: shared by every API and worker process.
const POOL_SIZE = 20;
const TEMPORAL_START_MS = 15 * 60_000;

type Running = Pick<StartedProcess, 'child' | 'stop' | 'output'> & { url?: string };

/** One process of a role, SIGKILLable and startable again with the same settings (so the same port). */
export interface Member {
  name: string;
  running: Running;
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface Topology {
  /** HAProxy's address: what clients use. */
  url: string;
  /** The settings every API and worker process runs with. */
  env: Record<string, string>;
  /** Straight to PostgreSQL (migrations, the test's own reads). */
  directUrl: string;
  /** The service's database (its PostgreSQL backends carry the name). */
  database: string;
  /** The processes of each part now (each a root of its own process tree): where CPU time goes. */
  roots(): Record<string, number[]>;
  apis: Member[];
  workers: Member[];
  temporal: Member;
  stop(): Promise<void>;
}

/** The live descendants of a process (from /proc). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  for (let queue = [...(children.get(root) ?? [])], pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

const programOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** A role's member: `start` runs it, `victim` names the process a crash kills (default the started one). */
async function member(name: string, start: () => Promise<Running>, victim: (running: Running) => number[] = (r) => [r.child.pid!]): Promise<Member> {
  const self: Member = {
    name,
    running: await start(),
    async kill() {
      const exited = self.running.child.exitCode === null && self.running.child.signalCode === null ? once(self.running.child, 'exit') : Promise.resolve();
      for (const pid of victim(self.running)) process.kill(pid, 'SIGKILL');
      await exited;
    },
    async restart() {
      self.running = await start();
    },
  };
  return self;
}

/** HAProxy in the foreground: round robin over the APIs, a server out after two failed /healthz checks a second apart. */
async function startHaproxy(dir: string, port: number, apiPorts: number[]): Promise<ChildProcess> {
  const file = path.join(dir, 'haproxy.cfg');
  await writeFile(
    file,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      // A test clock's advance may take a minute to answer.
      '  timeout client 120s',
      '  timeout server 120s',
      // Only a request that never reached an API is sent to the other one: a POST an API may have
      // taken is the client's to retry, with its Idempotency-Key.
      '  retries 3',
      '  option redispatch',
      '  retry-on conn-failure',
      'frontend api',
      `  bind 127.0.0.1:${port}`,
      '  default_backend apis',
      'backend apis',
      '  balance roundrobin',
      // Liveness, not readiness: under load /readyz waits for a pooled connection, and an API is
      // not dead for being busy. A killed one refuses connections: out after two checks a second apart.
      '  option httpchk GET /healthz',
      '  http-check expect status 200',
      '  timeout check 5s',
      '  default-server inter 1s fall 2 rise 1',
      ...apiPorts.map((p, i) => `  server api${i + 1} 127.0.0.1:${p} check`),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'inherit', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`haproxy did not start (apt-get install -y haproxy): ${error.message}`)));
    const deadline = Date.now() + 30_000;
    const probe = () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => (response.status === 200 ? resolve() : retry()),
        () => retry(),
      );
    const retry = () => (Date.now() > deadline ? reject(new Error('haproxy did not answer within 30 s')) : void setTimeout(probe, 250));
    probe();
  });
  return child;
}

/** Starts the topology; `extraEnv` is added to every API and worker (e.g. WEBHOOK_ALLOWED_HOSTS for a test's receiver). */
export async function startTopology(extraEnv: Record<string, string> = {}, log: (line: string) => void = console.log): Promise<Topology> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'commerce-topology-'));
    stops.push(() => rm(dir, { recursive: true, force: true }));
    const suffix = randomBytes(4).toString('hex');
    const [database, temporalDatabase] = [`commerce_topology_${suffix}`, `temporal_topology_${suffix}`];
    const admin = new pg.Client({ connectionString: POSTGRES });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    stops.push(async () => {
      const dropping = new pg.Client({ connectionString: POSTGRES });
      await dropping.connect();
      for (const name of [database, temporalDatabase, `${temporalDatabase}_visibility`]) await dropping.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropping.end();
    });
    const directUrl = Object.assign(new URL(POSTGRES), { pathname: `/${database}` }).toString();

    // PgBouncer, the Temporal server, the compiled service and the migrations (the release step), side by side.
    let temporal: Member | undefined;
    const [bouncer, temporalAddress] = await Promise.all([
      startProcess('src/db/serve-pgbouncer.ts', { DATA_DIR: dir, PGBOUNCER_UPSTREAM_URL: POSTGRES, PGBOUNCER_PORT: '0', PGBOUNCER_POOL_SIZE: String(POOL_SIZE) }, /PgBouncer ready on port (\d+)/),
      (async () => {
        const temporalUrl = Object.assign(new URL(POSTGRES), { pathname: `/${temporalDatabase}` }).toString();
        // Started again on the port it chose the first time, so every client's TEMPORAL_ADDRESS holds.
        let port = '0';
        let address = '';
        const serve = async () => {
          const started = await startProcess('src/temporal/serve-server.ts', { TEMPORAL_SERVER_DATABASE_URL: temporalUrl, TEMPORAL_SERVER_PORT: port }, /Temporal server ready at (\S+) /, TEMPORAL_START_MS);
          address = started.ready[1]!;
          port = address.split(':').at(-1)!;
          return started;
        };
        // The Temporal server is the wrapper's Go descendant: a crash kills it (the wrapper then exits).
        temporal = await member('temporal', serve, (r) => descendants(r.child.pid!).filter((pid) => programOf(pid).startsWith('temporal')));
        stops.push(() => temporal!.running.stop());
        return address;
      })(),
      buildDist(),
      (async () => {
        const migrated = await runProcess(process.execPath, ['scripts/run.mjs', 'tsx', 'src/db/migrate-cli.ts', 'deploy'], { DATABASE_URL: directUrl });
        if (migrated.code !== 0) throw new Error(`migrate deploy failed: ${migrated.stderr}`);
      })(),
    ]);
    stops.push(() => bouncer.stop());
    const pooled = Object.assign(new URL(directUrl), { port: bouncer.ready[1]! }).toString();

    const [lbPort, ...apiPorts] = await Promise.all([freePort(), freePort(), freePort()]);
    const url = `http://127.0.0.1:${lbPort}`;
    const secret = () => randomBytes(32).toString('base64url');
    const env: Record<string, string> = {
      DATA_DIR: dir,
      DATABASE_URL: pooled,
      DATABASE_DIRECT_URL: directUrl,
      DATABASE_PREPARED_STATEMENTS: 'false',
      TEMPORAL_ADDRESS: temporalAddress,
      REDIS_URL: REDIS,
      RATE_LIMIT_KEY_PREFIX: `topology-${suffix}`,
      WORKER_IN_PROCESS: 'false',
      PUBLIC_BASE_URL: url,
      TRUST_PROXY: '127.0.0.1',
      PAYMENT_PROCESSOR: 'sandbox',
      LICENSE_KEY_SECRET: secret(),
      DOWNLOAD_URL_SECRET: secret(),
      CURSOR_SECRET: secret(),
      PORTAL_SECRET: secret(),
      LOG_LEVEL: 'warn',
      ...extraEnv,
    };
    const apis = await Promise.all(
      apiPorts.map((port, i) =>
        member(`api${i + 1}`, () => startServerProcess({ ...env, PORT: String(port) })).then((m) => {
          stops.push(() => m.running.stop());
          return m;
        }),
      ),
    );
    const workers = await Promise.all(
      [1, 2].map((i) =>
        member(`worker${i}`, () => startWorkerProcess(env)).then((m) => {
          stops.push(() => m.running.stop());
          return m;
        }),
      ),
    );
    const haproxy = await startHaproxy(dir, lbPort!, apiPorts);
    stops.push(async () => {
      const exited = once(haproxy, 'exit');
      haproxy.kill('SIGTERM');
      await exited;
    });
    log(`Topology ready at ${url}: HAProxy -> APIs on ${apiPorts.join(', ')}; 2 workers; Temporal ${temporalAddress}; PgBouncer :${bouncer.ready[1]} -> ${database}; Redis ${REDIS}`);
    const roots = () => ({
      haproxy: [haproxy.pid!],
      api: apis.map((m) => m.running.child.pid!),
      worker: workers.map((m) => m.running.child.pid!),
      temporal: [temporal!.running.child.pid!],
      pgbouncer: [bouncer.child.pid!],
    });
    return { url, env, directUrl, database, roots, apis, workers, temporal: temporal!, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const topology = await startTopology();
  const stop = () => void topology.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
