import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Workspace } from './support/api.js';
import { runCli, startServerProcess, type ServerProcess } from './support/processes.js';

// The same server on the embedded default: no DATABASE_URL, data under DATA_DIR.
let dataDir: string;
let server: ServerProcess | undefined;
const lockFile = () => path.join(dataDir, 'pglite.lock');
// No DATABASE_URL and no Redis: the defaults a fresh clone runs with.
const embeddedEnv = () => ({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });

async function rest(method: string, urlPath: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${server!.url}${urlPath}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'commerce-embedded-'));
});

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

test('the embedded database serves REST, is shared with the CLI while running, and persists across restarts', async () => {
  server = await startServerProcess(embeddedEnv(), 120_000);
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  const owner = JSON.parse(await readFile(lockFile(), 'utf8')) as { pid: number; port: number };

  // The CLI goes through the running instance: the data directory keeps its one owner.
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Embedded'], embeddedEnv());
  expect(JSON.parse(await readFile(lockFile(), 'utf8'))).toEqual(owner);
  const keys = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
  const created = await rest('POST', '/v0/products/create', keys, { name: 'Persisted ebook', projectId: ws.projectId, type: 'DigitalDownload' });
  expect(created.status).toBe(200);
  const { product } = created.body.data;
  // Hostile input is refused before the database, the embedded one too: an index row too long
  // for a btree and nesting too deep for Prisma's client both were 500s (issue 14).
  const base = { name: 'Hostile', projectId: ws.projectId, type: 'DigitalDownload' };
  const longSlug = await rest('POST', '/v0/products/create', keys, { ...base, slug: 'a'.repeat(2_800) });
  expect(longSlug).toEqual({ status: 400, body: { status: 'error', error: { message: 'slug: at most 100 characters' } } });
  const deep = Array.from({ length: 3_000 }).reduce<unknown>((inner) => ({ a: inner }), 1);
  expect((await rest('POST', '/v0/products/create', keys, { ...base, customFields: deep })).status).toBe(400);
  const listed = await rest('GET', '/v0/products/list', { 'x-svc-public-key': ws.publicKey }, undefined);
  expect(listed.body).toMatchObject({ status: 'success', data: { products: [{ id: product.id, name: 'Persisted ebook' }] } });
  // A setting changed by the CLI while the server runs takes effect at once.
  await runCli(['workspace', 'set', ws.workspaceId, 'offline=true'], embeddedEnv());
  expect((await rest('GET', '/v0/products/list', { 'x-svc-public-key': ws.publicKey })).status).toBe(401);
  await runCli(['workspace', 'set', ws.workspaceId, 'offline=false'], embeddedEnv());

  expect(await server.stop('SIGTERM')).toBe(0);
  server = undefined;
  // The embedded PostgreSQL stopped with the server and released the data directory.
  expect(existsSync(lockFile())).toBe(false);

  server = await startServerProcess(embeddedEnv(), 120_000);
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  const again = await rest('GET', `/v0/products/${product.id}`, { 'x-svc-public-key': ws.publicKey });
  expect(again).toMatchObject({ status: 200, body: { status: 'success', data: { product: { id: product.id, name: 'Persisted ebook', slug: product.slug } } } });
  expect(await server.stop('SIGTERM')).toBe(0);
  server = undefined;
}, 300_000);
