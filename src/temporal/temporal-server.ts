// A Temporal server on PostgreSQL, what a deployment runs instead of the dev server (SQLite
// inside): `temporal-server` (server-binary.ts) with the committed temporal/config/postgres.yaml
// and temporal/dynamicconfig.yaml. Each start brings the two databases (history, and visibility
// under the same name + `_visibility`) to the server's schema with temporal-sql-tool (creating
// them when missing; every step is idempotent), starts the server, and registers the namespace.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';

import { stderrLog, type Log } from '../go-programs.js';
import { stopChild, SUPERVISOR } from '../local-service.js';
import { untilServing } from './dev-server.js';
import { findOrProvisionTemporalServer } from './server-binary.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
// A first start creates the schema and every shard: allow for a loaded machine.
const START_TIMEOUT_MS = 120_000;
// The frontend's port, then the other services' (see temporal/config/postgres.yaml).
const PORT_OFFSETS = [0, 1, 2, 6, -300, -299, -298, -294];

export interface TemporalServerOptions {
  /** The PostgreSQL database of the history (postgresql://user:password@host:port/name). */
  databaseUrl: string;
  host: string;
  /** The frontend's gRPC port; 0 picks a free block for every service's ports. */
  port: number;
  /** Fixed when the cluster is created; later starts must give the same number. */
  historyShards: number;
  /** Registered when missing, with this retention of closed workflows' histories. */
  namespace: string;
  retentionDays: number;
  /** The server's own log lines (level warn and above); dropped when unset. */
  output?: Log;
  log?: Log;
}

export interface TemporalServer {
  /** host:port of the frontend. */
  address: string;
  /** Rejects when the server exits without stop(); never resolves. */
  failure: Promise<never>;
  stop(): Promise<void>;
}

interface Databases {
  address: string;
  host: string;
  port: string;
  user: string;
  password: string;
  history: string;
  visibility: string;
}

function databasesOf(url: string): Databases {
  const parsed = new URL(url);
  const history = decodeURIComponent(parsed.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(history)) throw new Error(`TEMPORAL_SERVER_DATABASE_URL must name its database (lower-case letters, digits, _): ${JSON.stringify(history)}`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = parsed.port || '5432';
  return {
    address: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password),
    history,
    visibility: `${history}_visibility`,
  };
}

/** Runs temporal-sql-tool; its output is shown only when it fails. */
async function sqlTool(tool: string, db: Databases, database: string, args: string[]): Promise<void> {
  const connect = ['--plugin', 'postgres12', '--ep', db.host, '-p', db.port, '-u', db.user, '--db', database];
  // The password through the environment (SQL_PASSWORD), not the command line other users can read.
  const child = spawn(tool, [...connect, ...args], { env: { ...process.env, SQL_PASSWORD: db.password }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`temporal-sql-tool ${args.join(' ')} on ${database} failed (${code}):\n${output.trim()}`);
}

/** Creates the databases when missing and applies every schema version the server needs. */
async function prepareDatabases(tool: string, db: Databases): Promise<void> {
  for (const [database, schema] of [
    [db.history, 'temporal'],
    [db.visibility, 'visibility'],
  ] as const) {
    await sqlTool(tool, db, database, ['create-database']);
    await sqlTool(tool, db, database, ['setup-schema', '-v', '0.0']);
    await sqlTool(tool, db, database, ['update-schema', '--schema-name', `postgresql/v12/${schema}`]);
  }
}

const portFree = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });

/** A frontend port whose whole layout of ports was free a moment ago (below 32768: the server stores its ports as smallint). */
async function freePortLayout(host: string): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(PORT_OFFSETS.map((offset) => portFree(host, port + offset)));
    if (free.every(Boolean)) return port;
  }
  throw new Error('no free block of ports for the Temporal server');
}

/** Registers the namespace when it is missing, then waits until the frontend serves it (its namespace cache refreshes every 2 s). */
async function ensureNamespace(address: string, namespace: string, retentionDays: number, deadline: number): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const service = connection.workflowService;
    await service.describeNamespace({ namespace }).catch(async (error: { code?: number }) => {
      // 5: NOT_FOUND; ALREADY_EXISTS (6) from a concurrent start is as good as ours.
      if (error.code !== 5) throw error;
      await service.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(`${retentionDays} days`) }).catch((registering: { code?: number }) => {
        if (registering.code !== 6) throw registering;
      });
    });
    for (;;) {
      try {
        await service.describeTaskQueue({ namespace, taskQueue: { name: 'commerce-namespace-probe' } });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the namespace ${namespace} did not become usable: ${(error as Error).message}`, { cause: error });
        await sleep(250);
      }
    }
  } finally {
    await connection.close();
  }
}

export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const log = options.log ?? stderrLog;
  const programs = await findOrProvisionTemporalServer(log);
  const db = databasesOf(options.databaseUrl);
  await prepareDatabases(programs.sqlTool, db);
  const port = options.port || (await freePortLayout(options.host));
  const address = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const env = {
    ...process.env,
    TEMPORAL_SERVER_HOST: options.host,
    TEMPORAL_SERVER_PORT: String(port),
    TEMPORAL_SERVER_HISTORY_SHARDS: String(options.historyShards),
    TEMPORAL_SERVER_DB_ADDRESS: db.address,
    TEMPORAL_SERVER_DB_USER: db.user,
    TEMPORAL_SERVER_DB_PASSWORD: db.password,
    TEMPORAL_SERVER_DB_NAME: db.history,
    TEMPORAL_SERVER_VISIBILITY_DB_NAME: db.visibility,
    TEMPORAL_SERVER_DYNAMIC_CONFIG: path.join(root, 'temporal', 'dynamicconfig.yaml'),
  };
  // No authorizer: the frontend is for this deployment's own processes (loopback by default; docs/decisions.md, "Temporal server").
  const args = ['--root', root, '--config', 'temporal/config', '--env', 'postgres', '--allow-no-auth', 'start'];
  // Its own process group under the supervising shell: it stops with us, even when we are killed.
  const child = spawn('/bin/sh', ['-c', SUPERVISOR, 'temporal-server', programs.server, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let tail = '';
  const onOutput = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
    options.output?.(chunk.toString().trimEnd());
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = once(child, 'exit');
  let stopped: Promise<void> | undefined;
  const failure = exited.then(([code, signal]): Promise<never> => {
    if (stopped) return new Promise<never>(() => undefined);
    throw new Error(`the Temporal server exited (${signal ?? `exit code ${code}`}):\n${tail.trim()}`);
  });
  failure.catch(() => undefined);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    await Promise.race([untilServing(address, deadline, 'temporal-system'), failure]);
    await Promise.race([ensureNamespace(address, options.namespace, options.retentionDays, deadline), failure]);
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket).unref();
  return {
    address,
    failure,
    stop: () => (stopped ??= stopChild(child, exited)),
  };
}
