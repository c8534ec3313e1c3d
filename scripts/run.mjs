#!/usr/bin/env node
// One-command entry points (`npm start`, `npm test`, `npm run worker`) that work on a fresh clone:
// they install the locked dependencies when node_modules is missing or stale, make sure the
// `temporal` CLI exists when a local Temporal dev server will be needed, then run the real command
// (the server and the worker as compiled JavaScript: scripts/build.mjs, src/node-flags.ts).
// Plain JavaScript on purpose: it runs before any dependency exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const installed = path.join(root, 'node_modules', '.package-lock.json');
const lock = path.join(root, 'package-lock.json');

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  // npm install (not ci): npm 11 leaves other platforms' optional binaries out of the lock file,
  // which `npm ci` then refuses; install still takes the locked versions.
  console.error('Installing dependencies (npm install from package-lock.json)...');
  const status = run('npm', ['install', '--no-audit', '--no-fund']);
  if (status !== 0) process.exit(status);
}

const [target, ...rest] = process.argv.slice(2);
const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');

/**
 * Finds, builds (Go) or downloads the `temporal` CLI (src/temporal/cli.ts) and returns the
 * environment that hands its path to the command; progress and failures go to stderr.
 */
function provisionTemporal() {
  const result = spawnSync(process.execPath, [tsx, 'src/temporal/provision.ts'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
  return { TEMPORAL_CLI_PATH: result.stdout.trim() };
}
// Only a run without TEMPORAL_ADDRESS starts a dev server; the test suite always starts one.
const temporalEnv = () => (process.env.TEMPORAL_ADDRESS ? {} : provisionTemporal());

/** Compiles src/ to dist/ (scripts/build.mjs) and runs a compiled entry there with its V8 flags. */
async function runCompiled(entry, args) {
  const status = run(process.execPath, [path.join(root, 'scripts', 'build.mjs')]);
  if (status !== 0) process.exit(status);
  const { nodeFlags } = await import(pathToFileURL(path.join(root, 'dist', 'node-flags.js')).href);
  process.exit(run(process.execPath, [...nodeFlags(entry), path.join(root, 'dist', entry), ...args], temporalEnv()));
}

switch (target) {
  case 'start':
    await runCompiled('main.js', rest);
    break;
  case 'worker':
    await runCompiled('worker.js', rest);
    break;
  case 'test':
    process.exit(
      run(process.execPath, [jest, ...rest], { ...provisionTemporal(), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() }),
    );
    break;
  default:
    console.error('usage: node scripts/run.mjs start|worker|test [args]');
    process.exit(2);
}
