// Programs built with Go (the Temporal CLI, stripe-mock, SeaweedFS): they are on neither npm nor Debian, so
// they are found on PATH or in Go's bin folders, and built with `go install` where Go exists.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const EXE = process.platform === 'win32' ? '.exe' : '';
const PROGRESS_EVERY_MS = 15_000;

export type Log = (line: string) => void;
export const stderrLog: Log = (line) => process.stderr.write(`${line}\n`);

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

export async function firstExecutable(candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) if (await isExecutable(candidate)) return candidate;
  return undefined;
}

export function onPath(name: string): string[] {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name));
}

/** The `go` executable: on PATH or in the official installer's location. */
export async function findGo(): Promise<string | undefined> {
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
export async function goBinDirs(go: string | undefined): Promise<string[]> {
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

/** Runs a Go build command, printing progress: a cold module and build cache takes minutes. */
async function buildWithGo(go: string, args: string[], cwd: string | undefined, label: string, log: Log, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const started = Date.now();
  const child = spawn(go, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
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
    log(`  still building ${label}: ${downloaded} modules downloaded, ${compiled} packages compiled (${seconds} s)`);
  }, PROGRESS_EVERY_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`go ${args[0]} exited with ${code}:\n${tail.join('\n')}`);
    log(`${label} built in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    clearInterval(progress);
  }
}

/**
 * `go install` of one package or several of one module version, printing progress: a cold module
 * and build cache takes about 5 minutes. `gobin`: the folder the executables go to (else Go's own).
 */
export async function goInstall(go: string, goPackage: string | string[], label: string, log: Log, gobin?: string): Promise<void> {
  const packages = [goPackage].flat();
  log(`${label} not found: building it with \`${gobin ? `GOBIN=${gobin} ` : ''}go install ${packages.join(' ')}\` (minutes on a cold Go cache)...`);
  await buildWithGo(go, ['install', '-v', ...packages], undefined, label, log, gobin ? { ...process.env, GOBIN: gobin } : process.env);
}

/**
 * Builds a command of a module as its own main module would: `go install module/cmd@version`
 * refuses modules whose go.mod has replace directives, so the module is downloaded and the
 * command built inside it (`go build`, which writes nothing there) into `output`.
 */
export async function goBuildFromModule(go: string, module: string, version: string, command: string, output: string, label: string, log: Log): Promise<void> {
  log(`${label} not found: building it from ${module}@${version} (${command}) with Go (minutes on a cold Go cache)...`);
  const { Dir: dir } = JSON.parse(await capture(go, ['mod', 'download', '-json', `${module}@${version}`])) as { Dir: string };
  await buildWithGo(go, ['build', '-v', '-o', output, `./${command}`], dir, label, log);
}
