#!/usr/bin/env node
// `npm run build`: src/**/*.ts to plain JavaScript in dist/, file by file (no bundling), for the
// long-running processes (`npm start`, `npm run worker`). Running compiled code instead of tsx's
// loader saves about 60 MB of resident memory per process. dist/ mirrors src/ at the same depth,
// so paths a module computes from its own location (prisma/, workflows/, node_modules/) still
// resolve to the project's. Workflows stay TypeScript: the worker bundles them from source.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const outdir = path.join(root, 'dist');
const stampFile = path.join(outdir, '.source-hash');

const sources = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .sort();

// Rebuilt only when a source (or this script, or esbuild) changed, so a start does not swap the
// files under a running process.
const hash = createHash('sha256').update(`esbuild ${version}\n`).update(readFileSync(fileURLToPath(import.meta.url)));
for (const file of sources) hash.update(`${file}\n`).update(readFileSync(path.join(src, file)));
const sourceHash = hash.digest('hex');
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === sourceHash) process.exit(0);

// Built aside and swapped in, so that dist/ is never half-written and holds no deleted module.
const staging = `${outdir}.${process.pid}`;
await build({
  entryPoints: sources.map((file) => path.join(src, file)),
  outdir: staging,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node22', // the oldest Node in engines.node
  logLevel: 'warning',
});
writeFileSync(path.join(staging, '.source-hash'), sourceHash);
const previous = `${outdir}.${process.pid}.old`;
if (existsSync(outdir)) renameSync(outdir, previous);
renameSync(staging, outdir);
rmSync(previous, { recursive: true, force: true });
