// PgBouncer (Debian's `pgbouncer` package) in transaction mode in front of a PostgreSQL server, as
// a deployment puts it between every API and worker process and the database: started here for
// the tests that run the service through it (and the local topology). Every database of the
// server is reachable through it under its own name; clients on loopback are trusted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { freePort, stopChild, SUPERVISOR } from '../local-service.js';
import { unprivileged } from './postgres-server.js';

const START_TIMEOUT_MS = 30_000;

export interface PgBouncerOptions {
  /** The PostgreSQL server behind it: postgresql://user:password@host:port/… (the database is ignored). */
  upstream: string;
  /** Its ini file, log and pid file. */
  dir: string;
  /** 0 or unset: a free port. */
  port?: number;
  /** Server connections per database and user (default_pool_size). */
  poolSize: number;
}

export interface PgBouncer {
  /** Every database of the upstream is reachable on it under its own name, with the upstream's user. */
  port: number;
  /** The supervising shell's; PgBouncer is its child. */
  pid: number;
  /** Rejects when PgBouncer exits without stop(); never resolves. */
  failure: Promise<never>;
  stop(): Promise<void>;
}

/** A value for PgBouncer's ini file: quoted where the format needs it. */
const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;

export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const upstream = new URL(options.upstream);
  const user = decodeURIComponent(upstream.username) || 'postgres';
  const password = decodeURIComponent(upstream.password);
  const port = options.port || (await freePort());
  await mkdir(options.dir, { recursive: true });
  const ini = path.join(options.dir, 'pgbouncer.ini');
  const users = path.join(options.dir, 'userlist.txt');
  await writeFile(users, `"${user}" "${password.replaceAll('"', '""')}"\n`, { mode: 0o600 });
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${upstream.hostname.replace(/^\[(.*)\]$/, '$1')} port=${upstream.port || 5432} user=${user}${password ? ` password=${quoted(password)}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize}`,
      'max_client_conn = 2000',
      // node-postgres sends none of these, but other clients (psql, the Temporal tools) may.
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(options.dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const [program, args] = unprivileged('pgbouncer', [ini]);
  const child = spawn('/bin/sh', ['-c', SUPERVISOR, 'pgbouncer', program, ...args], { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
  const exited = once(child, 'exit');
  let stopped: Promise<void> | undefined;
  const failure = exited.then(([code]): Promise<never> => {
    if (stopped) return new Promise<never>(() => undefined);
    throw new Error(`pgbouncer exited (${code}); is Debian's pgbouncer installed (apt-get install pgbouncer)?\n${errors.trim()}`);
  });
  failure.catch(() => undefined);
  const probe = new URL(options.upstream);
  probe.hostname = '127.0.0.1';
  probe.port = String(port);
  try {
    await Promise.race([untilAnswering(probe.toString()), failure]);
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
  child.unref();
  for (const stream of [child.stdin, child.stderr]) (stream as Socket).unref();
  return { port, pid: child.pid!, failure, stop: () => (stopped ??= stopChild(child, exited)) };
}

async function untilAnswering(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`PgBouncer did not answer at ${url.replace(/:[^:@/]*@/, ':***@')}: ${(error as Error).message}`, { cause: error });
    } finally {
      await client.end().catch(() => undefined);
    }
    await sleep(100);
  }
}
