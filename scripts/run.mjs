#!/usr/bin/env node
// One-command entry points (`npm start`, `npm test`) that work on a fresh clone: they install the
// locked dependencies when node_modules is missing or stale, then run the real command.
// Plain JavaScript on purpose: it runs before any dependency exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const installed = path.join(root, 'node_modules', '.package-lock.json');
const lock = path.join(root, 'package-lock.json');

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error('Installing dependencies (npm ci)...');
  const status = run('npm', ['ci', '--no-audit', '--no-fund']);
  if (status !== 0) process.exit(status);
}

const [target, ...rest] = process.argv.slice(2);
const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
switch (target) {
  case 'start':
    process.exit(run(process.execPath, [tsx, 'src/main.ts', ...rest]));
    break;
  case 'test':
    process.exit(run(process.execPath, [jest, ...rest], { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() }));
    break;
  default:
    console.error('usage: node scripts/run.mjs start|test [args]');
    process.exit(2);
}
