import { spawn, type ChildProcess } from 'node:child_process';

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

/** Runs a TypeScript entry under tsx and waits until its output (stdout or stderr) matches `ready`. */
export async function startProcess(entry: string, env: Record<string, string>, ready: RegExp, timeoutMs = 60_000): Promise<StartedProcess> {
  const child = spawn(process.execPath, [...TSX, entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start in time:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${output}`));
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

/** Starts `src/main.ts` exactly as `npm start` does and waits for its base URL. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const started = await startProcess('src/main.ts', { PORT: '0', LOG_LEVEL: 'warn', ...env }, /listening on (http:\/\/\S+)/, timeoutMs);
  return { url: started.ready[1]!, child: started.child, output: started.output, stop: started.stop };
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and collects its output (read to the end: 'close', not 'exit'). */
export async function runProcess(command: string, args: string[], env: Record<string, string> = {}): Promise<Finished> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Runs the admin CLI (`npm run cli` without npm); a failure is returned, not thrown. */
export const execCli = (args: string[], env: Record<string, string> = {}) => runProcess(process.execPath, [...TSX, 'src/cli.ts', ...args], env);

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
