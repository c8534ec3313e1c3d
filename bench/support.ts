// What the benchmarks share: a scratch DATA_DIR, a scratch database on the test PostgreSQL
// (TEST_ADMIN_DATABASE_URL, or an embedded one in that DATA_DIR) and a Temporal dev server of
// its own, all removed at the end whatever happens.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scratchDatabase, startAdminDatabase } from '../test/support/database.js';
import { Client, Connection } from '@temporalio/client';

import { buildDist, startProcess, startServerProcess, startWorkerProcess } from '../test/support/processes.js';

export interface BenchEnvironment {
  /** DATA_DIR, DATABASE_URL and TEMPORAL_ADDRESS for the processes under test. */
  env: { DATA_DIR: string; DATABASE_URL: string; TEMPORAL_ADDRESS: string };
  databaseName: string;
  /** The process that runs the Temporal dev server (the server itself is its descendant). */
  temporalPid: number;
  /** Stopped before the Temporal dev server, the last added first. */
  stopLater(running: { stop(): Promise<unknown> }): void;
}

/** Runs `bench` with a fresh database, DATA_DIR and Temporal dev server, and removes them after. */
export async function withBenchEnvironment<T>(bench: (environment: BenchEnvironment) => Promise<T>): Promise<T> {
  // The Temporal dev server and anything else the server keeps on disk live in a scratch DATA_DIR.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'commerce-bench-'));
  const admin = await startAdminDatabase(dataDir);
  const database = await scratchDatabase('commerce_bench');
  const started: { stop(): Promise<unknown> }[] = [];
  try {
    await buildDist();
    const temporal = await startProcess('src/temporal/serve-dev.ts', { DATA_DIR: dataDir }, /Temporal dev server ready at (\S+),/, 15 * 60_000);
    started.push(temporal);
    const env = { DATA_DIR: dataDir, DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporal.ready[1]! };
    return await bench({ env, databaseName: database.name, temporalPid: temporal.child.pid!, stopLater: (running) => started.unshift(running) });
  } finally {
    // Servers and workers first, then the Temporal dev server they use.
    for (const running of started) await running.stop();
    await database.drop();
    await admin.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Production's shape on the environment: an API process (WORKER_IN_PROCESS=false, no rate limit)
 * and a worker process, and a Temporal client for the floor's empty workflows on the worker's queue;
 * `memory` samples both processes' RSS from their start (print `memory.stop().line` at the end).
 */
export async function startApiAndWorker({ env, stopLater }: BenchEnvironment, { logLevel = 'warn' }: { logLevel?: string } = {}) {
  const server = await startServerProcess({ ...env, LOG_LEVEL: logLevel, RATE_LIMIT_POINTS: '1000000000', WORKER_IN_PROCESS: 'false' });
  stopLater(server);
  const worker = await startWorkerProcess({ ...env, LOG_LEVEL: logLevel });
  stopLater(worker);
  const memory = processesMemory({ 'API process': server.child.pid!, worker: worker.child.pid! });
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  stopLater({ stop: () => connection.close() });
  return { server, worker, taskQueue: worker.ready[1]!, client: new Client({ connection }), memory };
}

/** The value at quantile q (0..1) of the values, nearest rank. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const CLOCK_TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** The fields of /proc/<pid>/stat after the parenthesised command name, or undefined once it is gone. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, all threads) a process has used so far. */
export function cpuSeconds(pid: number): number {
  // utime and stime are the 12th and 13th fields after the command name.
  const fields = procStat(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND : 0;
}

const pids = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number);

/** A process and all its live descendants. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const parent = Number(procStat(pid)?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree: number[] = [];
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU seconds used so far by a process and all its live descendants. */
export const treeCpuSeconds = (root: number): number => processTree(root).reduce((total, pid) => total + cpuSeconds(pid), 0);

/** A memory figure of /proc/<pid>/<file> in MB (0 once the process is gone). */
function memoryMb(pid: number, file: 'status' | 'smaps_rollup', field: 'VmRSS' | 'Pss'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Memory of a process tree: the root's RSS at the first sample (`idleRootRss`: take it before the
 * process is asked anything), then peaks sampled every `intervalMs` until stop(): the root's own RSS, the tree's summed RSS
 * (counts shared pages, such as PostgreSQL's buffer cache, once per process that touched them),
 * the tree's summed PSS (shares each shared page out among its processes: what the tree really
 * holds), and that PSS by program (node, postgres, temporal, ...).
 */
export function sampleMemory(root: number, intervalMs = 250) {
  const peak = { idleRootRss: 0, rootRss: 0, treeRss: 0, treePss: 0, pssByProgram: {} as Record<string, number> };
  const read = () => {
    const tree = processTree(root);
    peak.rootRss = Math.max(peak.rootRss, memoryMb(root, 'status', 'VmRSS'));
    peak.treeRss = Math.max(peak.treeRss, tree.reduce((sum, pid) => sum + memoryMb(pid, 'status', 'VmRSS'), 0));
    const byProgram: Record<string, number> = {};
    for (const pid of tree) {
      const program = programOf(pid);
      byProgram[program] = (byProgram[program] ?? 0) + memoryMb(pid, 'smaps_rollup', 'Pss');
    }
    peak.treePss = Math.max(peak.treePss, Object.values(byProgram).reduce((sum, mb) => sum + mb, 0));
    for (const [program, mb] of Object.entries(byProgram)) peak.pssByProgram[program] = Math.max(peak.pssByProgram[program] ?? 0, mb);
  };
  read();
  peak.idleRootRss = peak.rootRss;
  const timer = setInterval(read, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}

/**
 * Each named process's RSS from now: stop() gives a line with each one's idle RSS (at this call:
 * started, asked nothing yet) and its peak since.
 */
export function processesMemory(processes: Record<string, number>) {
  const samples = Object.entries(processes).map(([name, pid]) => ({ name, sample: sampleMemory(pid) }));
  return {
    stop() {
      const peaks = samples.map(({ name, sample }) => ({ name, ...sample.stop() }));
      return { peaks, line: `RSS idle -> peak: ${peaks.map((p) => `${p.name} ${p.idleRootRss.toFixed(1)} -> ${p.rootRss.toFixed(1)} MB`).join('; ')}` };
    },
  };
}

/** The executable's name: PostgreSQL's processes retitle themselves, so their command line is no help. */
function programOf(pid: number): string {
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return 'gone';
  }
}

/** CPU seconds used so far by each live PostgreSQL backend connected to one database, by pid. */
export function postgresCpuSeconds(databaseName: string): Map<number, number> {
  const backends = new Map<number, number>();
  for (const pid of pids()) {
    try {
      // A backend's title: "postgres: <version/cluster>: <user> <database> <client> <state>".
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.split(' ').includes(databaseName)) backends.set(pid, cpuSeconds(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return backends;
}

/**
 * CPU seconds the backends live at `now` used since `before` (a backend that closed in between is
 * left out rather than subtracted: pools close idle connections).
 */
export function postgresCpuSince(before: Map<number, number>, now: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of now) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Busy and total CPU time of the whole machine so far (all cores), from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const [, ...times] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = times.map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq! + steal!;
  return { busy, total: busy + idle! + iowait! };
}

/** Runs task(0..count-1) with at most `concurrency` of them in flight. */
export async function inParallel(count: number, concurrency: number, task: (index: number) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, lane));
}

/** POSTs `body` as JSON: the envelope's `data` of a 200 answer, an error otherwise. */
export async function post<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** The sandbox's card that always pays, for the benchmarks' buyers. */
export const CARD = { number: '4242424242424242', expMonth: 12, expYear: new Date().getFullYear() + 5, cvc: '123' };

/** A workspace as `cli workspace create` prints it (the live keys). */
export interface BenchWorkspace {
  workspaceId: string;
  projectId: string;
  publicKey: string;
  secretKey: string;
}

/** The headers of the workspace's live keys: the public key alone reads, with the secret key it writes too. */
export const keyHeaders = (ws: BenchWorkspace, { write = true } = {}): Record<string, string> =>
  write ? { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey } : { 'x-svc-public-key': ws.publicKey };
