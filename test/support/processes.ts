import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeFlags } from '../../src/node-flags.ts'; // .ts: see global-setup.ts

// Jest and npm run from the repository root (this file is also loaded as CommonJS by Jest's
// global setup, where import.meta is not available).
export const ROOT = process.cwd();
const TSX = ['--import', 'tsx'];

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartedProcess {
  child: ChildProcess;
  /** The match of the ready pattern in the output. */
  ready: RegExpExecArray;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The environment of a process the tests start: theirs, then `env`. A process given a database of
 * its own leaves the suite's DATABASE_DIRECT_URL behind (set when the suite runs through PgBouncer),
 * which names the suite's database.
 */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const ownDatabase = env.DATABASE_URL !== undefined && env.DATABASE_URL !== process.env.DATABASE_URL && env.DATABASE_DIRECT_URL === undefined;
  return { ...process.env, ...(ownDatabase ? { DATABASE_DIRECT_URL: '' } : {}), ...env };
}

/** Runs `node args` and waits until its output (stdout or stderr) matches `ready`. */
async function startNode(args: string[], env: Record<string, string>, ready: RegExp, timeoutMs: number): Promise<StartedProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let started = false;
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Matched once: searching the growing output again on every later chunk would cost the
      // test or benchmark more and more CPU (a busy server logs every request).
      if (started) return;
      const found = ready.exec(output);
      if (found) {
        started = true;
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    ready: match,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * The server's output with the lines of every request answered so far: its logger writes through
 * a pipe asynchronously, so the last requests' lines may still be on their way when their answers
 * arrive. A marker request's own line, logged after theirs, shows they are all in. Needs
 * LOG_LEVEL info or lower (each request's line).
 */
export async function loggedOutput(server: ServerProcess, timeoutMs = 30_000): Promise<string> {
  const marker = `log-marker-${randomUUID()}`;
  await (await fetch(`${server.url}/log-marker`, { headers: { 'x-request-id': marker } })).text();
  for (const deadline = Date.now() + timeoutMs; !server.output().includes(marker); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error(`the server did not log the marker request ${marker} within ${timeoutMs} ms:\n${server.output().slice(-2000)}`);
  }
  return server.output();
}

/** Runs a TypeScript entry under tsx and waits until its output (stdout or stderr) matches `ready`. */
export const startProcess = (entry: string, env: Record<string, string>, ready: RegExp, timeoutMs = 60_000): Promise<StartedProcess> =>
  startNode([...TSX, entry], env, ready, timeoutMs);

/** Compiles src/ to dist/ as `npm start` does before it runs (scripts/build.mjs; a no-op when current). */
export async function buildDist(): Promise<void> {
  const { code, stderr } = await runProcess(process.execPath, ['scripts/build.mjs']);
  if (code !== 0) throw new Error(`scripts/build.mjs failed (${code}): ${stderr}`);
}

/** `node <flags> dist/<entry>` as scripts/run.mjs runs it, with the flags for the process's environment. */
const compiledEntry = (entry: 'main.js' | 'worker-main.js', env: Record<string, string>) => [...nodeFlags(entry, { ...process.env, ...env }), `dist/${entry}`];

/** Starts the compiled server exactly as `npm start` does (after buildDist, with its V8 flags) and waits for its base URL. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const started = await startNode(compiledEntry('main.js', env), { PORT: '0', LOG_LEVEL: 'warn', ...env }, /listening on (http:\/\/\S+)/, timeoutMs);
  return { url: started.ready[1]!, child: started.child, output: started.output, stop: started.stop };
}

/** Starts the compiled worker as `npm run worker` does (after buildDist, with its V8 flags); `ready[1]` is its task queue, `ready[2]` its address. */
export const startWorkerProcess = (env: Record<string, string>, timeoutMs = 60_000): Promise<StartedProcess> =>
  startNode(compiledEntry('worker-main.js', env), { LOG_LEVEL: 'warn', ...env }, /Temporal worker polling task queue (\S+) at (\S+)/, timeoutMs);

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its output (read to the end: 'close', not 'exit'). */
export async function runProcess(command: string, args: string[], env: Record<string, string> = {}): Promise<Finished> {
  const child = spawn(command, args, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { code, stdout, stderr };
}

let distBuilt: Promise<void> | undefined;

/**
 * Runs the admin CLI (`npm run cli` without npm) compiled, as the server processes run: the suite
 * calls it hundreds of times, and tsx would compile its imports again in each (about 0.4 s of CPU
 * per call on two cores). A failure is returned, not thrown.
 */
export async function execCli(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  await (distBuilt ??= buildDist());
  return runProcess(process.execPath, ['dist/cli.js', ...args], env);
}

/** Runs the admin CLI and parses its JSON output. */
export async function runCli<T = Record<string, unknown>>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const { code, stdout, stderr } = await execCli(args, env);
  if (code !== 0) throw new Error(`cli ${args.join(' ')} failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as T;
}

/**
 * For a test server that checks the HTTP layer only: it uses the suite's Temporal dev server and
 * runs no worker, so it starts fast and stays out of the suite's workflows.
 */
export const httpOnlyEnv = (): Record<string, string> => ({ TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '', WORKER_IN_PROCESS: 'false' });

/**
 * For processes with a worker on the suite's database and Temporal dev server but a task queue of
 * their own: they leave the outbox to the suite's worker (EVENT_DISPATCH=false). Dispatching, they
 * would start other files' webhook deliveries on their queue, stranded there once they stop (and
 * a graceful stop waits for the deliveries in flight).
 */
export const ownTaskQueueEnv = (name: string): Record<string, string> => ({
  TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '',
  TEMPORAL_TASK_QUEUE: `${name}-${randomUUID()}`,
  EVENT_DISPATCH: 'false',
});

/** A port free now, kept by a server across its restarts so that its clients' retries find it again. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/** SIGKILLs the process and waits until it is gone. */
export async function killed(victim: { child: ChildProcess }): Promise<void> {
  const exited = new Promise((resolve) => victim.child.once('exit', resolve));
  victim.child.kill('SIGKILL');
  await exited;
}

/**
 * A client's retries with the same request (and Idempotency-Key) until the server answers: a
 * 5xx, or the connection refused or reset while the process is down (fetch's TypeError, from
 * Node's realm: instanceof would not see it from Jest's), is sent again 100 ms later.
 */
export async function untilAnswered<T extends { response: Response }>(send: () => Promise<T>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const answer = await send();
      if (answer.response.status < 500) return answer;
    } catch (error) {
      if ((error as Error).name !== 'TypeError') throw error;
    }
    if (Date.now() > deadline) throw new Error(`${what} was not answered within ${timeoutMs} ms`);
    await sleep(100);
  }
}
