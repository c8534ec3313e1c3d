import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Workspace } from './support/api.js';
import { embeddedDatabaseUrl } from './support/database.js';
import { execCli, httpOnlyEnv, runCli, startServerProcess, type ServerProcess } from './support/processes.js';

// The service on its embedded default: no DATABASE_URL, a real PostgreSQL server on DATA_DIR.
const dataDirs: string[] = [];
const servers = new Set<ServerProcess>();

async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'commerce-embedded-'));
  dataDirs.push(dir);
  return dir;
}

// No DATABASE_URL and no Redis: the defaults a fresh clone runs with.
const embeddedEnv = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env, 180_000);
  servers.add(server);
  return server;
}

async function stop(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  servers.delete(server);
  return server.stop(signal);
}

async function rest(server: ServerProcess, method: string, urlPath: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${server.url}${urlPath}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const keys = (ws: Workspace, write = true): Record<string, string> =>
  write ? { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey } : { 'x-svc-public-key': ws.publicKey };

/** pid and port of the postmaster PostgreSQL records in its data directory. */
async function postmaster(dataDir: string): Promise<{ pid: number; port: number; listen: string }> {
  const lines = (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]), listen: lines[5]! };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose command line names the directory (postgres -D, the Temporal dev server's database). */
async function processesUsing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (commandLine.includes(dir)) found.push(`${pid}: ${commandLine.replaceAll('\0', ' ')}`);
  }
  return found;
}

/** A direct connection to the embedded database, with the password kept in DATA_DIR. */
async function connect(dataDir: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: await embeddedDatabaseUrl(dataDir) });
  await client.connect();
  return client;
}

afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL');
  // A postmaster a failed test left behind: fast shutdown before its directory goes.
  for (const dir of dataDirs) {
    const pid = await postmaster(dir).then((p) => p.pid, () => undefined);
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

test('the embedded PostgreSQL serves REST, is shared with the CLI, keeps its password to itself and persists across restarts', async () => {
  const dataDir = await newDataDir();
  const env = { ...embeddedEnv(dataDir), ...httpOnlyEnv() };
  let server = await start(env);
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  const first = await postmaster(dataDir);
  expect(first.listen).toBe('127.0.0.1');
  const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
  expect(password.length).toBeGreaterThanOrEqual(32);
  expect((await stat(path.join(dataDir, 'postgres.password'))).mode & 0o777).toBe(0o600);

  // The CLI uses the running server: the data directory keeps its one postmaster.
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Embedded'], env);
  expect(await postmaster(dataDir)).toEqual(first);
  const created = await rest(server, 'POST', '/v0/products/create', keys(ws), { name: 'Persisted ebook', projectId: ws.projectId, type: 'DigitalDownload' });
  expect(created.status).toBe(200);
  const { product } = created.body.data;
  // Hostile input is refused before the database, the embedded one too: an index row too long
  // for a btree and nesting too deep for Prisma's client both were 500s (issue 14).
  const base = { name: 'Hostile', projectId: ws.projectId, type: 'DigitalDownload' };
  const longSlug = await rest(server, 'POST', '/v0/products/create', keys(ws), { ...base, slug: 'a'.repeat(2_800) });
  expect(longSlug).toEqual({ status: 400, body: { status: 'error', error: { message: 'slug: at most 100 characters' } } });
  const deep = Array.from({ length: 3_000 }).reduce<unknown>((inner) => ({ a: inner }), 1);
  expect((await rest(server, 'POST', '/v0/products/create', keys(ws), { ...base, customFields: deep })).status).toBe(400);
  const listed = await rest(server, 'GET', '/v0/products/list', keys(ws, false));
  expect(listed.body).toMatchObject({ status: 'success', data: { products: [{ id: product.id, name: 'Persisted ebook' }] } });
  // A setting changed by the CLI while the server runs takes effect at once.
  await runCli(['workspace', 'set', ws.workspaceId, 'offline=true'], env);
  expect((await rest(server, 'GET', '/v0/products/list', keys(ws, false))).status).toBe(401);
  await runCli(['workspace', 'set', ws.workspaceId, 'offline=false'], env);

  expect(await stop(server)).toBe(0);
  // The server stopped its PostgreSQL and released the directory.
  expect(alive(first.pid)).toBe(false);
  expect(existsSync(path.join(dataDir, 'postgres.lock'))).toBe(false);
  expect(server.output()).not.toContain(password);

  // With no server running, the CLI starts the database for itself and stops it again.
  const shown = await runCli<{ workspaceId: string }>(['workspace', 'show', ws.workspaceId], env);
  expect(shown.workspaceId).toBe(ws.workspaceId);
  expect(await processesUsing(path.join(dataDir, 'postgres'))).toEqual([]);

  server = await start(env);
  const again = await rest(server, 'GET', `/v0/products/${product.id}`, keys(ws, false));
  expect(again).toMatchObject({ status: 200, body: { status: 'success', data: { product: { id: product.id, name: 'Persisted ebook', slug: product.slug } } } });
  expect(await stop(server)).toBe(0);
  expect(await readFile(path.join(dataDir, 'postgres.log'), 'utf8')).not.toContain(password);
}, 300_000);

test('a postmaster left running by a killed server is taken over by the next start and stopped with it', async () => {
  const dataDir = await newDataDir();
  const env = { ...embeddedEnv(dataDir), ...httpOnlyEnv() };
  const killed = await start(env);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Taken over'], env);
  const orphan = await postmaster(dataDir);
  await stop(killed, 'SIGKILL');
  expect(alive(orphan.pid)).toBe(true);

  const next = await start(env);
  expect(await postmaster(dataDir)).toEqual(orphan);
  const listed = await rest(next, 'GET', '/v0/products/list', keys(ws, false));
  expect(listed).toMatchObject({ status: 200, body: { status: 'success', data: { products: [] } } });
  expect(await stop(next)).toBe(0);
  expect(alive(orphan.pid)).toBe(false);
  expect(existsSync(path.join(dataDir, 'postgres.lock'))).toBe(false);
}, 300_000);

test('a DATA_DIR left by the PGlite default is refused with what to do, and nothing in it is touched', async () => {
  const dataDir = await newDataDir();
  await mkdir(path.join(dataDir, 'pglite'));
  await writeFile(path.join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
  await expect(start({ ...embeddedEnv(dataDir), ...httpOnlyEnv() })).rejects.toThrow(/earlier embedded default \(PGlite[\s\S]*Nothing was changed[\s\S]*pg_dump/);
  const cli = await execCli(['workspace', 'create', '--name', 'Refused'], embeddedEnv(dataDir));
  expect(cli.code).toBe(1);
  expect(cli.stderr).toMatch(/PGlite/);
  expect(await readdir(dataDir)).toEqual(['pglite']);
  expect(await readFile(path.join(dataDir, 'pglite', 'PG_VERSION'), 'utf8')).toBe('17\n');
}, 120_000);

describe('the whole default tree (npm start: server, in-process worker, PostgreSQL, Temporal dev server)', () => {
  let dataDir: string;
  let server: ServerProcess;
  // Its own DATA_DIR and no TEMPORAL_ADDRESS: the server starts its own Temporal dev server too.
  const env = () => ({ ...embeddedEnv(dataDir), TEMPORAL_ADDRESS: '', WORKER_IN_PROCESS: 'true' });

  beforeAll(async () => {
    dataDir = await newDataDir();
    server = await start(env());
  }, 300_000);

  test('200 parallel mixed requests in two workspaces: no 5xx, no 401, every row in its workspace, limits held; the CLI works meanwhile', async () => {
    const [a, b] = await Promise.all([runCli<Workspace>(['workspace', 'create', '--name', 'Busy A'], env()), runCli<Workspace>(['workspace', 'create', '--name', 'Busy B'], env())]);
    await runCli(['workspace', 'set', a!.workspaceId, 'productLimit=20'], env());
    const product = (ws: Workspace, name: string) => () => rest(server, 'POST', '/v0/products/create', keys(ws), { name, projectId: ws.projectId, type: 'DigitalDownload' });
    const discount = (ws: Workspace) => () => rest(server, 'POST', '/v0/discounts/create', keys(ws), { type: 'code', amount: 10, amountType: 'percentage', discountCode: 'RACE' });
    const list = (ws: Workspace) => () => rest(server, 'GET', '/v0/products/list?take=100', keys(ws, false));
    const requests = [
      ...Array.from({ length: 60 }, (_, i) => ['a-product', product(a!, `A product ${i}`)] as const),
      ...Array.from({ length: 40 }, (_, i) => ['b-product', product(b!, `B product ${i}`)] as const),
      ...Array.from({ length: 30 }, () => ['a-discount', discount(a!)] as const),
      ...Array.from({ length: 10 }, () => ['b-discount', discount(b!)] as const),
      ...Array.from({ length: 60 }, (_, i) => [i % 2 ? 'a-list' : 'b-list', list(i % 2 ? a! : b!)] as const),
    ];
    // The CLI against the busy server, in the middle of the burst.
    const [results, shown] = await Promise.all([
      Promise.all(requests.map(async ([kind, send]) => ({ kind, ...(await send()) }))),
      runCli<{ productLimit: number }>(['workspace', 'show', a!.workspaceId], env()),
    ]);
    expect(shown.productLimit).toBe(20);
    const statuses = (kind: string) => results.filter((r) => r.kind === kind).map((r) => r.status);
    const count = (values: number[]) => values.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});
    expect(count(statuses('a-product'))).toEqual({ 200: 20, 409: 40 });
    expect(count(statuses('b-product'))).toEqual({ 200: 40 });
    expect(count(statuses('a-discount'))).toEqual({ 200: 1, 400: 29 });
    expect(count(statuses('b-discount'))).toEqual({ 200: 1, 400: 9 });
    for (const r of results.filter((r) => r.kind.endsWith('list'))) {
      expect(r.status).toBe(200);
      const prefix = r.kind === 'a-list' ? 'A product' : 'B product';
      for (const p of r.body.data.products) expect(p.name).toMatch(new RegExp(`^${prefix} `));
    }
    for (const r of results) expect(r.body.status).toBe(r.status === 200 ? 'success' : 'error');

    const client = await connect(dataDir);
    try {
      const rows = await client.query<{ workspaceId: string; names: string[] }>(`SELECT "workspaceId", array_agg(name) AS names FROM "Product" GROUP BY "workspaceId"`);
      const byWorkspace = Object.fromEntries(rows.rows.map((row) => [row.workspaceId, row.names]));
      expect(byWorkspace[a!.workspaceId]).toHaveLength(20);
      expect(byWorkspace[b!.workspaceId]).toHaveLength(40);
      for (const name of byWorkspace[a!.workspaceId]!) expect(name).toMatch(/^A product /);
      for (const name of byWorkspace[b!.workspaceId]!) expect(name).toMatch(/^B product /);
      const discounts = await client.query(`SELECT 1 FROM "Discount" WHERE "workspaceId" = ANY($1)`, [[a!.workspaceId, b!.workspaceId]]);
      expect(discounts.rowCount).toBe(2);
    } finally {
      await client.end();
    }
  }, 300_000);

  test('SIGTERM after a burst stops the server, the worker, PostgreSQL and the Temporal dev server in bounded time, leaving no process', async () => {
    const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Shutdown'], env());
    const burst = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 ? rest(server, 'GET', '/v0/products/list', keys(ws, false)) : rest(server, 'POST', '/v0/products/create', keys(ws), { name: `Shutdown ${i}`, projectId: ws.projectId, type: 'DigitalDownload' }),
      ),
    );
    expect(burst.map((r) => r.status)).toEqual(burst.map(() => 200));
    const { pid } = await postmaster(dataDir);
    expect(await processesUsing(dataDir)).not.toEqual([]);

    const started = Date.now();
    expect(await stop(server)).toBe(0);
    // The bound docs/operations.md ("Embedded PostgreSQL") documents for a clean stop.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(alive(pid)).toBe(false);
    expect(await processesUsing(dataDir)).toEqual([]);
    // Fast shutdown is clean: the next start needs no crash recovery.
    expect(await readFile(path.join(dataDir, 'postgres.log'), 'utf8')).toMatch(/database system is shut down\s*$/);
  }, 300_000);
});
