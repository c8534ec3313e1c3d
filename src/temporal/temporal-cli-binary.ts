// Finds the `temporal` CLI binary (which embeds the dev server and its UI), provisioning it when absent.
// The Temporal server is on neither npm nor Debian, so the order is: TEMPORAL_CLI_PATH, PATH,
// Go's bin folder, our download cache; then build it with Go, then the SDK's own download.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir, readdir, rename, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
// Newer tags carry a `replace` directive that `go install pkg@version` refuses.
const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
const EXE = process.platform === 'win32' ? '.exe' : '';
const PROGRESS_EVERY_MS = 15_000;
// The SDK download fails at once without a network, but a silently dropping firewall would hang it.
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

type Log = (line: string) => void;
const stderrLog: Log = (line) => process.stderr.write(`${line}\n`);

/** Where a downloaded CLI is kept between runs (outside the clone, so a fresh clone reuses it). */
export function downloadCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'commerce-api', 'temporal-cli');
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function firstExecutable(candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

function onPath(name: string): string[] {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name));
}

/** The `go` executable: on PATH or in the official installer's location. */
async function findGo(): Promise<string | undefined> {
  return firstExecutable([...onPath(`go${EXE}`), `/usr/local/go/bin/go${EXE}`]);
}

function capture(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** Go's bin folders: GOBIN, each GOPATH entry's bin, and the default ~/go/bin. */
async function goBinDirs(go: string | undefined): Promise<string[]> {
  const dirs: string[] = [];
  if (go) {
    try {
      const [gobin = '', gopath = ''] = (await capture(go, ['env', 'GOBIN', 'GOPATH'])).split('\n');
      if (gobin.trim()) dirs.push(gobin.trim());
      for (const entry of gopath.trim().split(path.delimiter)) if (entry) dirs.push(path.join(entry, 'bin'));
    } catch {
      // A broken Go installation: the default folder below still applies.
    }
  }
  dirs.push(path.join(os.homedir(), 'go', 'bin'));
  return [...new Set(dirs)];
}

/** The CLI if it is already on this machine; never builds or downloads. */
export async function findTemporalCli(): Promise<string | undefined> {
  const configured = process.env.TEMPORAL_CLI_PATH;
  if (configured) {
    if (await isExecutable(configured)) return path.resolve(configured);
    throw new Error(`TEMPORAL_CLI_PATH=${configured} is not an executable file`);
  }
  const go = await findGo();
  const binDirs = await goBinDirs(go);
  return firstExecutable([
    ...onPath(`temporal${EXE}`),
    ...binDirs.map((dir) => path.join(dir, `temporal${EXE}`)),
    path.join(downloadCacheDir(), `temporal${EXE}`),
  ]);
}

/** The path of the `temporal` CLI, building or downloading it when this machine has none. */
export async function findOrProvisionTemporalCli(log: Log = stderrLog): Promise<string> {
  const found = await findTemporalCli();
  if (found) return found;

  const failures: string[] = [];
  const go = await findGo();
  if (go) {
    try {
      await goInstall(go, log);
      const built = await firstExecutable((await goBinDirs(go)).map((dir) => path.join(dir, `temporal${EXE}`)));
      if (built) return built;
      failures.push('`go install` succeeded but no temporal executable appeared in GOBIN or GOPATH/bin');
    } catch (error) {
      failures.push(`building with Go failed: ${(error as Error).message}`);
    }
  } else {
    failures.push('Go is not installed (looked on PATH and in /usr/local/go/bin)');
  }

  try {
    return await sdkDownload(log);
  } catch (error) {
    failures.push(`the Temporal SDK's dev-server download failed: ${(error as Error).message}`);
  }

  throw new Error(
    [
      'The Temporal CLI (`temporal`, which runs the local dev server) was not found and could not be provisioned:',
      ...failures.map((failure) => `  - ${failure}`),
      'Do one of these, then start again:',
      `  - install Go (https://go.dev/dl/) and run \`go install ${GO_PACKAGE}\` (about 5 minutes);`,
      '  - download the CLI from https://temporal.download/cli/archive/latest?platform=linux&arch=amd64 (pick your',
      '    platform and arch), unpack it and set TEMPORAL_CLI_PATH to the `temporal` executable or put it on PATH;',
      '  - or set TEMPORAL_ADDRESS to use an existing Temporal cluster (no local dev server is needed then).',
    ].join('\n'),
  );
}

/** `go install`, printing progress: a cold module and build cache takes about 5 minutes. */
async function goInstall(go: string, log: Log): Promise<void> {
  log(`Temporal CLI not found: building it with \`go install ${GO_PACKAGE}\` (about 5 minutes on a cold Go cache)...`);
  const started = Date.now();
  const child = spawn(go, ['install', '-v', GO_PACKAGE], { stdio: ['ignore', 'ignore', 'pipe'] });
  let downloaded = 0;
  let compiled = 0;
  const tail: string[] = [];
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      // `go: downloading <module>` while fetching modules, then one import path per compiled package.
      if (line.startsWith('go: downloading')) downloaded += 1;
      else if (line.trim()) compiled += 1;
      tail.push(line);
      if (tail.length > 20) tail.shift();
    }
  });
  const progress = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    log(`  still building the Temporal CLI: ${downloaded} modules downloaded, ${compiled} packages compiled (${seconds} s)`);
  }, PROGRESS_EVERY_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`go install exited with ${code}:\n${tail.join('\n')}`);
    log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    clearInterval(progress);
  }
}

/** The SDK's ephemeral-server download (needs the internet), kept in downloadCacheDir(). */
async function sdkDownload(log: Log): Promise<string> {
  const dir = downloadCacheDir();
  await mkdir(dir, { recursive: true });
  log(`Downloading the Temporal CLI through the Temporal SDK into ${dir}...`);
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  // The SDK downloads the executable in order to start a dev server; we keep the executable.
  let timer: NodeJS.Timeout | undefined;
  const environment = await Promise.race([
    TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'cached-download', downloadDir: dir } } }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the download in ${DOWNLOAD_TIMEOUT_MS / 60_000} minutes`)), DOWNLOAD_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  await environment.teardown();
  // The SDK names it temporal-sdk-typescript-<version> and deletes it after a day: keep a stable copy.
  const downloaded = (await readdir(dir)).find((name) => name.startsWith('temporal-sdk-') && !name.endsWith('.downloading'));
  if (!downloaded) throw new Error(`the download finished but no executable is in ${dir}`);
  const target = path.join(dir, `temporal${EXE}`);
  await rename(path.join(dir, downloaded), target);
  log(`Temporal CLI downloaded to ${target}`);
  return target;
}
