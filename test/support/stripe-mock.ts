import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import { EXE, findGo, firstExecutable, goBinDirs, goInstall, onPath, stderrLog, type Log } from '../../src/go-programs.js';

// stripe-mock (Stripe's own mock of its API, generated from its OpenAPI document) for the tests
// of the Stripe adapter: every request we send is validated against Stripe's schema. Only tests
// need it, so it lives here rather than in src/. It is a Go program on neither npm nor Debian:
// found as the Temporal CLI is (src/go-programs.ts): STRIPE_MOCK_PATH, PATH, Go's bin folders;
// else built with `go install` when Go is installed. Without Go the Stripe tests are skipped.

export const STRIPE_MOCK_PACKAGE = 'github.com/stripe/stripe-mock@v0.203.0';
const START_TIMEOUT_MS = 30_000;
// A cold Go module cache downloads and builds stripe-mock's dependencies first.
export const STRIPE_MOCK_PROVISION_TIMEOUT_MS = 10 * 60_000;

/** The stripe-mock executable, built with Go when absent; undefined when this machine has no Go. */
export async function findOrProvisionStripeMock(log: Log = stderrLog): Promise<string | undefined> {
  if (process.env.STRIPE_MOCK_PATH) return process.env.STRIPE_MOCK_PATH;
  const go = await findGo();
  const candidates = async () => [...onPath(`stripe-mock${EXE}`), ...(await goBinDirs(go)).map((dir) => path.join(dir, `stripe-mock${EXE}`))];
  const found = await firstExecutable(await candidates());
  if (found || !go) return found;
  await goInstall(go, STRIPE_MOCK_PACKAGE, 'stripe-mock', log);
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
