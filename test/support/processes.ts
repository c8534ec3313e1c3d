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

/** Starts `src/main.ts` exactly as `npm start` does and waits for its base URL. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...TSX, 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/** Runs the admin CLI (`npm run cli` without npm) and parses its JSON output. */
export async function runCli<T = Record<string, unknown>>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const child = spawn(process.execPath, [...TSX, 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`cli ${args.join(' ')} failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as T;
}
