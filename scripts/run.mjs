#!/usr/bin/env node
// One-command entry points that work on a fresh clone whatever the machine's `node`: `npm start`,
// `npm test`, `npm run worker`, and `node scripts/run.mjs <command> [args]` behind the other npm
// scripts (CLI, benchmarks, generators, tsc, eslint). In order, it
// 1. finds a Node in engines.node (scripts/node-runtime.mjs: COMMERCE_NODE_PATH, this process,
//    PATH, the user cache), else installs Node 24 from the npm registry into the cache, and runs
//    itself again on that Node;
// 2. installs the locked dependencies when node_modules is missing or stale, with npm on that
//    Node (so that the dependencies' engines checks see it);
// 3. makes sure the `temporal` CLI exists when a local Temporal dev server will be needed;
// 4. runs the command (the server and the worker as compiled JavaScript: scripts/build.mjs,
//    src/node-flags.ts) with that Node first on PATH, so every `node` it starts is that one.
// Plain JavaScript on purpose: it runs before any dependency exists, on an older Node too.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findNode, installNode, nodeCacheDir, nodesOnPath, npmCommand, platformPackage, INSTALL_MAJOR } from './node-runtime.mjs';

const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), '..');
const installed = path.join(root, 'node_modules', '.package-lock.json');
const lock = path.join(root, 'package-lock.json');
const range = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);

/**
 * Runs a command to its end, passing on the signals a terminal or a supervisor sends us (the
 * command stops in order, as when run directly), and resolves with its exit code.
 * @param {string} command @param {string[]} args @param {NodeJS.ProcessEnv} env
 * @param {import('node:child_process').StdioOptions} stdio
 * @returns {Promise<number>}
 */
function run(command, args, env, stdio = 'inherit') {
  return new Promise((resolve, reject) => {
    // Windows runs npm's .cmd shims only through a shell.
    const child = spawn(command, args, { cwd: root, env, stdio, shell: process.platform === 'win32' && !path.isAbsolute(command) });
    /** @param {NodeJS.Signals} signal */
    const forward = (signal) => child.kill(signal);
    const signals = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);
    for (const signal of signals) process.on(signal, forward);
    // `npm start` passes a SIGTERM only to the shell that runs us, which dies without passing it
    // on: under npm, once our parent is gone, stop the command as if it had been passed. (Run
    // directly, e.g. with nohup, the command outlives the shell that started it, as it should.)
    const parent = process.ppid;
    const orphaned = process.env.npm_lifecycle_event
      ? setInterval(() => {
          if (process.ppid === parent) return;
          clearInterval(orphaned);
          forward('SIGTERM');
        }, 1000)
      : undefined;
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearInterval(orphaned);
      for (const s of signals) process.off(s, forward);
      resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0));
    });
  });
}

/** @returns {Promise<import('./node-runtime.mjs').FoundNode>} */
async function findOrInstallNode() {
  try {
    const found = findNode(range, process.env);
    if (found) return found;
    log(`This project needs Node ${range}; this is Node ${process.versions.node} (${process.execPath}) and none on PATH or in ${nodeCacheDir()} fits.`);
    return await installNode(process.env, log);
  } catch (error) {
    log(
      [
        `No Node ${range} to run on: ${/** @type {Error} */ (error).message}`,
        'Do one of these, then start again:',
        `  - install Node ${INSTALL_MAJOR} LTS (your system's packages, nodejs.org or a version manager) and put it on PATH;`,
        `  - set COMMERCE_NODE_PATH to a Node ${range} executable;`,
        `  - make the npm registry reachable (\`npm config get registry\`, proxy settings) so that ${platformPackage(process.platform, process.arch)}@${INSTALL_MAJOR} installs.`,
      ].join('\n'),
    );
    process.exit(1);
  }
}

const node = await findOrInstallNode();
// The chosen Node first on PATH (unless it is already the first there), then the project's tools.
const firstNode = nodesOnPath(process.env.PATH)[0];
const nodeDir = firstNode && realpathSync(firstNode) === realpathSync(node.path) ? [] : [path.dirname(node.path)];
const env = { ...process.env, PATH: [...nodeDir, path.join(root, 'node_modules', '.bin'), process.env.PATH].join(path.delimiter) };

if (realpathSync(node.path) !== realpathSync(process.execPath)) {
  log(`Running on Node ${node.version} (${node.path}, from ${node.source}) instead of Node ${process.versions.node} (${process.execPath}).`);
  process.exit(await run(node.path, [self, ...process.argv.slice(2)], env));
}

if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  // npm install (not ci): npm 11 leaves other platforms' optional binaries out of the lock file,
  // which `npm ci` then refuses; install still takes the locked versions. Its report goes to
  // stderr, so that a command's own output (`npm run --silent cli`) stays clean.
  log('Installing dependencies (npm install from package-lock.json)...');
  const [npm, npmArgs] = npmCommand();
  const status = await run(npm, [...npmArgs, 'install', '--no-audit', '--no-fund'], env, ['inherit', 2, 'inherit']);
  if (status !== 0) process.exit(status);
}

const [target, ...rest] = process.argv.slice(2);
const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');

/**
 * Finds, builds (Go) or downloads the `temporal` CLI (src/temporal/temporal-cli-binary.ts) and returns the
 * environment that hands its path to the command; progress and failures go to stderr.
 */
function provisionTemporal() {
  const result = spawnSync(process.execPath, [tsx, 'src/temporal/provision.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
  return { TEMPORAL_CLI_PATH: result.stdout.trim() };
}
// Only a run without TEMPORAL_ADDRESS starts a dev server; the test suite always starts one.
const temporalEnv = () => (process.env.TEMPORAL_ADDRESS ? {} : provisionTemporal());

/**
 * Compiles src/ to dist/ (scripts/build.mjs) and runs a compiled entry there with its V8 flags.
 * @param {'main.js' | 'worker-main.js'} entry @param {string[]} args
 */
async function runCompiled(entry, args) {
  const status = await run(process.execPath, [path.join(root, 'scripts', 'build.mjs')], env);
  if (status !== 0) process.exit(status);
  const { nodeFlags } = await import(pathToFileURL(path.join(root, 'dist', 'node-flags.js')).href);
  return run(process.execPath, [...nodeFlags(entry), path.join(root, 'dist', entry), ...args], { ...env, ...temporalEnv() });
}

switch (target) {
  case 'start':
    process.exit(await runCompiled('main.js', rest));
    break;
  case 'worker':
    process.exit(await runCompiled('worker-main.js', rest));
    break;
  case 'test':
    // Jest's native ESM mode still needs vm.SourceTextModule, which Node 24 keeps behind this flag.
    process.exit(await run(process.execPath, [jest, ...rest], { ...env, ...provisionTemporal(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() }));
    break;
  case undefined:
    log('usage: node scripts/run.mjs start|worker|test [args], or node scripts/run.mjs <command> [args] (e.g. tsx src/cli.ts, tsc, eslint .)');
    process.exit(2);
    break;
  default:
    // Any other command (tsx, tsc, eslint, node, ...) on the chosen Node through PATH.
    process.exit(await run(target, rest, env));
}
