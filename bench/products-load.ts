// The load both REST benchmarks put on a server (bench/products-list.ts against the bare handler,
// bench/compare.ts against another tree's server): GET /v0/products/list?take=20 over 1,000
// products, sent by autocannon in a process of its own, on its own core where there are two.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { sql } from '../test/support/database.js';

export const PRODUCTS = 1000;
export const PATH = '/v0/products/list?take=20';

export interface Workspace {
  workspaceId: string;
  projectId: string;
  publicKey: string;
}

export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

// On a small machine the load generator and the server get a core each (PostgreSQL floats), so
// neither starves the other; both servers are measured under the same placement.
export const pinning = os.availableParallelism() >= 2 && spawnSync('taskset', ['-V']).status === 0 && process.env.BENCH_PIN !== 'false';
export const SERVER_CPU = '1';
export const LOADGEN_CPU = '0';

/** 1,000 live products of varied types and shapes (nulls, JSON, arrays, escapes, non-ASCII). */
export async function seedProducts(url: string, ws: Workspace) {
  await sql(
    url,
    `INSERT INTO "Product" (id, "workspaceId", livemode, "projectId", type, slug, name, description, "internalId",
           developer, publisher, "pegiRating", "releaseDate", systems, genres, tags, media, status, "customFields", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1, true, $2,
           (ARRAY['DigitalDownload','Game','GiftCard','SoftwareKey']::"ProductType"[])[1 + i % 4],
           'product-' || i,
           'Product ' || i || CASE WHEN i % 7 = 0 THEN ' "quoted" – ünïcödé 🎮' ELSE '' END,
           CASE WHEN i % 3 = 0 THEN '' ELSE 'Line one' || chr(10) || 'line two' || chr(9) || 'with a backslash \\' END,
           CASE WHEN i % 2 = 0 THEN 'INT-' || i END,
           CASE WHEN i % 4 = 1 THEN 'Dev Studio' END,
           CASE WHEN i % 4 = 1 THEN 'Pub House' END,
           CASE WHEN i % 4 = 1 THEN 'PEGI_12' ELSE 'NONE' END,
           CASE WHEN i % 4 = 1 THEN '2024-05-01' END,
           CASE WHEN i % 4 = 1 THEN ARRAY['windows', 'linux'] ELSE ARRAY[]::text[] END,
           CASE WHEN i % 4 = 1 THEN ARRAY['rpg'] ELSE ARRAY[]::text[] END,
           ARRAY['tag-' || (i % 5), 'all'],
           CASE WHEN i % 5 = 0 THEN '[{"url": "https://cdn.example.com/p.png", "type": "image"}]'::jsonb ELSE '[]'::jsonb END,
           (ARRAY['DRAFT','ACTIVE','INACTIVE']::"ProductStatus"[])[1 + i % 3],
           CASE WHEN i % 6 = 0 THEN jsonb_build_object('sku', 'S' || i, 'weight', i * 1.5, 'flags', jsonb_build_array(true, null)) END,
           now() - make_interval(secs => i), now() - make_interval(secs => i)
         FROM generate_series(1, ${PRODUCTS}) AS i`,
    [ws.workspaceId, ws.projectId],
  );
}

export function pin(pid: number | undefined) {
  if (!pinning || pid === undefined) return;
  // -a: every thread of the process, including the ones it has already started.
  spawnSync('taskset', ['-a', '-p', '-c', SERVER_CPU, String(pid)], { stdio: 'ignore' });
}

/** autocannon in its own process (on its own core when pinning), so it is measured the same way for both; a GET unless `request` says otherwise. */
export function autocannon(url: string, headers: Record<string, string>, seconds: number, connections: number, request?: { method: string; body: string }): Promise<LoadResult> {
  const args = [AUTOCANNON, '-j', '-c', String(connections), '-d', String(seconds)];
  if (request) args.push('-m', request.method, '-b', request.body);
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const [command, commandArgs] = pinning ? ['taskset', ['-c', LOADGEN_CPU, process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon failed (${code}): ${stderr}`));
      resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}
