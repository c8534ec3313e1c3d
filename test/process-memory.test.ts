import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

import { buildDist } from './support/processes.js';

// What the API and worker processes load, from their start through a US checkout's tax and the
// file storage, with neither S3, SMTP nor Redis configured: none of the heavy packages only a
// configured feature needs (each tens of MB of memory; bench:checkout shows each process's RSS),
// nor the ZIP code package the committed ZIP3 table replaces (about 94 MB).

const HEAVY = ['zipcodes', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner', 'nodemailer', 'ioredis', 'stripe'];

test('no heavy package is loaded by a process that is not configured to use it', async () => {
  const env = { ...process.env };
  for (const name of ['S3_BUCKET', 'SMTP_URL', 'REDIS_URL', 'PAYMENT_PROCESSOR']) delete env[name];
  const script = path.join(import.meta.dirname, 'support/loaded-packages.ts');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { env, cwd: path.join(import.meta.dirname, '..') });
  const loaded = stdout.trim().split('\n');
  expect(loaded).toContain('@prisma/client');
  expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
}, 60_000);

test("Prisma's query compiler, loaded and compiled, leaves no copy of its 4.4 MB of base64 in the heap (scripts/generate.ts releases its module)", async () => {
  await buildDist();
  const script = path.join(import.meta.dirname, 'support/compiler-source-kept.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script], { cwd: path.join(import.meta.dirname, '..') });
  expect(Number(stdout.trim())).toBe(0);
}, 60_000);
