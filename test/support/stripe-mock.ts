import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

// stripe-mock (Stripe's own mock of its API, generated from its OpenAPI document) for the tests
// of the Stripe adapter: every request we send is validated against Stripe's schema. Only tests
// need it, so it lives here rather than in src/. It is a Go program on neither npm nor Debian:
// found as the Temporal CLI is (src/temporal/cli.ts): STRIPE_MOCK_PATH, PATH, Go's bin folders;
// else built with `go install` when Go is installed. Without Go the Stripe tests are skipped.

export const STRIPE_MOCK_PACKAGE = 'github.com/stripe/stripe-mock@v0.203.0';
const START_TIMEOUT_MS = 30_000;
// A cold Go module cache downloads and builds stripe-mock's dependencies first.
export const STRIPE_MOCK_PROVISION_TIMEOUT_MS = 10 * 60_000;

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function firstExecutable(candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

const onPath = (name: string) => (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, name));

function goEnv(go: string, name: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(go, ['env', name], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', () => resolve(''));
    child.once('exit', () => resolve(out.trim()));
  });
}

async function goBinDirs(go: string | undefined): Promise<string[]> {
  const dirs: string[] = [];
  if (go) {
    const gobin = await goEnv(go, 'GOBIN');
    if (gobin) dirs.push(gobin);
    for (const entry of (await goEnv(go, 'GOPATH')).split(path.delimiter)) if (entry) dirs.push(path.join(entry, 'bin'));
  }
  dirs.push(path.join(os.homedir(), 'go', 'bin'));
  return [...new Set(dirs)];
}

/** The stripe-mock executable, built with Go when absent; undefined when this machine has no Go. */
export async function findOrProvisionStripeMock(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Promise<string | undefined> {
  if (process.env.STRIPE_MOCK_PATH) return process.env.STRIPE_MOCK_PATH;
  const go = await firstExecutable([...onPath('go'), '/usr/local/go/bin/go']);
  const candidates = async () => [...onPath('stripe-mock'), ...(await goBinDirs(go)).map((dir) => path.join(dir, 'stripe-mock'))];
  const found = await firstExecutable(await candidates());
  if (found || !go) return found;
  log(`stripe-mock not found: building it with \`go install ${STRIPE_MOCK_PACKAGE}\`...`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', STRIPE_MOCK_PACKAGE], { stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${STRIPE_MOCK_PACKAGE} exited with ${code}:\n${errors}`))));
  });
  return firstExecutable(await candidates());
}

export interface StripeMock {
  /** e.g. http://127.0.0.1:40613 */
  url: string;
  stop(): Promise<void>;
}

/** Starts stripe-mock on free ports of 127.0.0.1 (HTTPS too: it would otherwise take 12112 on every interface). */
export async function startStripeMock(executable: string): Promise<StripeMock> {
  const child: ChildProcess = spawn(executable, ['-http-addr', '127.0.0.1:0', '-https-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stripe-mock did not start in time:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening for HTTP at address: (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
