// Finds the `temporal` CLI binary (which embeds the dev server and its UI), provisioning it when absent.
// The Temporal server is on neither npm nor Debian, so the order is: TEMPORAL_CLI_PATH, PATH,
// Go's bin folder, our download cache; then build it with Go, then the SDK's own download.
import { mkdir, readdir, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { EXE, findGo, firstExecutable, goBinDirs, goInstall, isExecutable, onPath, stderrLog, type Log } from '../go-programs.js';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
// Newer tags carry a `replace` directive that `go install pkg@version` refuses.
const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
// The SDK download fails at once without a network, but a silently dropping firewall would hang it.
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** Where a downloaded CLI is kept between runs (outside the clone, so a fresh clone reuses it). */
export function downloadCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'commerce-api', 'temporal-cli');
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
      await goInstall(go, GO_PACKAGE, 'the Temporal CLI', log);
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
