import { randomBytes, randomUUID } from 'node:crypto';
import { call, keyHeaders, newWorkspace, raw, setWorkspace, type ApiResponse, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { sql } from './support/database.js';
import { httpOnlyEnv, loggedOutput, runCli, startServerProcess } from './support/processes.js';

// Authentication: 401 (never 403) for every failure, test/live separation and tenant isolation.

function expect401(res: ApiResponse) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { status: 'error', error: { message: expect.any(String) } } });
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

const wellFormedSecret = (mode = 'live') => `sk_${mode}_${randomBytes(32).toString('base64url')}`;
const wellFormedPublic = (mode = 'live') => `pk_${mode}_${randomBytes(24).toString('base64url')}`;

const createProduct = (ws: Workspace, name: string, headers: Record<string, string>) =>
  raw('POST', '/v0/products/create', { headers, body: JSON.stringify({ name, projectId: ws.projectId, type: 'Game' }) });
const listProducts = (headers: Record<string, string>, query = 'returnCount=true') => raw('GET', '/v0/products/list', { headers, query });
const liveRead = (ws: Workspace) => keyHeaders(ws, { write: false });

let a: Workspace;
let b: Workspace;
beforeAll(async () => {
  [a, b] = await Promise.all([newWorkspace('Auth A'), newWorkspace('Auth B')]);
});

describe('reads', () => {
  test('need a valid public key: missing, malformed, unknown are 401', async () => {
    const bad: Array<Record<string, string>> = [
      {},
      { 'x-svc-public-key': '' },
      { 'x-svc-public-key': 'not-a-key' },
      { 'x-svc-public-key': `${a.publicKey}x` },
      { 'x-svc-public-key': a.secretKey },
      { 'x-svc-public-key': wellFormedPublic() },
      { 'x-svc-public-key': wellFormedPublic('test') },
      { 'x-svc-secret-key': a.secretKey },
    ];
    for (const headers of bad) {
      expect401(await listProducts(headers));
      expect401(await raw('GET', `/v0/products/${randomUUID()}`, { headers }));
    }
    expect((await listProducts(liveRead(a))).status).toBe(200);
  });

  test('a read with a wrong secret key alongside a valid public key still reads', async () => {
    expect((await listProducts({ ...liveRead(a), 'x-svc-secret-key': b.secretKey })).status).toBe(200);
  });
});

describe('writes', () => {
  const count = async (ws: Workspace, name: string) => (await listProducts(liveRead(ws), `termOrId=${name}&returnCount=true`)).body.data.count;

  test('need the public and the secret key of the same key pair; every failure is 401 and writes nothing', async () => {
    const name = `Denied-${randomUUID().slice(0, 8)}`;
    const bad: Array<Record<string, string>> = [
      {},
      liveRead(a),
      { 'x-svc-secret-key': a.secretKey },
      { ...liveRead(a), 'x-svc-secret-key': '' },
      { ...liveRead(a), 'x-svc-secret-key': 'sk_live_short' },
      { ...liveRead(a), 'x-svc-secret-key': a.publicKey },
      { ...liveRead(a), 'x-svc-secret-key': wellFormedSecret() },
      { ...liveRead(a), 'x-svc-secret-key': b.secretKey },
      { ...liveRead(b), 'x-svc-secret-key': a.secretKey },
      { ...liveRead(a), 'x-svc-secret-key': a.testSecretKey },
      { 'x-svc-public-key': wellFormedPublic(), 'x-svc-secret-key': a.secretKey },
    ];
    for (const headers of bad) {
      expect401(await createProduct(a, name, headers));
      expect401(await raw('PATCH', `/v0/products/${randomUUID()}/archive`, { headers, body: '{}' }));
    }
    expect(await count(a, name)).toBe(0);
    expect(await count(b, name)).toBe(0);
    expect((await createProduct(a, name, keyHeaders(a))).status).toBe(200);
    expect(await count(a, name)).toBe(1);
  });

  test('authentication comes before validation: a malformed write without keys is 401, not 400', async () => {
    expect401(await raw('POST', '/v0/products/create', { body: '{not json' }));
    expect401(await raw('POST', '/v0/products/create', { headers: liveRead(a), body: '[1,2]' }));
    expect401(await raw('PATCH', '/v0/products/not-a-uuid/update', { headers: liveRead(a), body: '{"name": 5}' }));
  });
});

describe('test mode', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Auth test mode');
  });

  test('a test-mode key is 401 while test mode is off, for reads and writes', async () => {
    expect401(await listProducts(keyHeaders(ws, { mode: 'test', write: false })));
    expect401(await createProduct(ws, 'Test while off', keyHeaders(ws, { mode: 'test' })));
    expect((await listProducts(liveRead(ws))).body.data.count).toBe(0);
  });

  test('once test mode is on, test and live data are separate', async () => {
    await setWorkspace(ws.workspaceId, 'testMode=true');
    const testApi = restClient(ws, { mode: 'test' });
    const liveApi = restClient(ws);
    const create = async (api: typeof liveApi, name: string) =>
      (await api.POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'Game' } })).data!.data.product;
    const names = async (api: typeof liveApi) => (await api.GET('/v0/products/list', {})).data!.data.products.map((p) => p.name);
    const status = async (api: typeof liveApi, productId: string) => (await api.GET('/v0/products/{productId}', { params: { path: { productId } } })).response.status;
    const testProduct = await create(testApi, 'Test only');
    const liveProduct = await create(liveApi, 'Live only');
    expect(await names(testApi)).toEqual(['Test only']);
    expect(await names(liveApi)).toEqual(['Live only']);
    expect([await status(liveApi, testProduct.id), await status(testApi, liveProduct.id)]).toEqual([404, 404]);
    const crossed = await testApi.PATCH('/v0/products/{productId}/update', { params: { path: { productId: liveProduct.id } }, body: { name: 'Crossed' } });
    expect(crossed.response.status).toBe(404);
    // Mixing a live public key with a test secret (or the reverse) is not a key pair.
    expect401(await createProduct(ws, 'Mixed', { 'x-svc-public-key': ws.testPublicKey, 'x-svc-secret-key': ws.secretKey }));
    await setWorkspace(ws.workspaceId, 'testMode=false');
    expect401(await listProducts(keyHeaders(ws, { mode: 'test', write: false })));
    expect(await names(liveApi)).toEqual(['Live only']);
  });
});

describe('workspace state and keys', () => {
  test('every key of an offline workspace is 401, and works again when it is back online', async () => {
    const ws = await newWorkspace('Auth offline', ['testMode=true']);
    await setWorkspace(ws.workspaceId, 'offline=true');
    for (const mode of ['live', 'test'] as const) {
      expect401(await listProducts(keyHeaders(ws, { mode, write: false })));
      expect401(await createProduct(ws, 'Offline', keyHeaders(ws, { mode })));
    }
    await setWorkspace(ws.workspaceId, 'offline=false');
    expect((await listProducts(liveRead(ws))).body.data.count).toBe(0);
    expect((await listProducts(keyHeaders(ws, { mode: 'test', write: false }))).status).toBe(200);
  });

  test('keys rotate: the old keys get 401, the new ones work on the same data', async () => {
    const old = await newWorkspace('Auth rotate', ['testMode=true']);
    const product = (await createProduct(old, 'Survives rotation', keyHeaders(old))).body.data.product;
    const rotated = await runCli<Workspace>(['keys', 'rotate', old.workspaceId]);
    const fresh: Workspace = { ...old, ...rotated };
    for (const key of ['publicKey', 'secretKey', 'testPublicKey', 'testSecretKey'] as const) expect(fresh[key]).not.toBe(old[key]);
    for (const mode of ['live', 'test'] as const) {
      expect401(await listProducts(keyHeaders(old, { mode, write: false })));
      expect401(await createProduct(old, 'Old keys', keyHeaders(old, { mode })));
      // The new public key with the old secret is no pair either.
      expect401(await createProduct(old, 'Half old', { ...keyHeaders(fresh, { mode, write: false }), 'x-svc-secret-key': mode === 'live' ? old.secretKey : old.testSecretKey }));
      expect((await listProducts(keyHeaders(fresh, { mode, write: false }))).status).toBe(200);
    }
    expect((await raw('GET', `/v0/products/${product.id}`, { headers: liveRead(fresh) })).body.data.product.name).toBe('Survives rotation');
    expect((await createProduct(fresh, 'New keys', keyHeaders(fresh))).status).toBe(200);
  });

  test('a record of another workspace is 404 for reads and writes, and absent from lists', async () => {
    const own = (await createProduct(a, 'Belongs to A', keyHeaders(a))).body.data.product;
    expect((await raw('GET', `/v0/products/${own.id}`, { headers: liveRead(a) })).status).toBe(200);
    const foreign = [
      await raw('GET', `/v0/products/${own.id}`, { headers: liveRead(b) }),
      await call('PATCH', `/v0/products/${own.id}/update`, b, { name: 'Taken over' }),
      await call('PATCH', `/v0/products/${own.id}/archive`, b, {}),
      await call('POST', `/v0/products/${own.id}/duplicate`, b, {}),
      await call('POST', `/v0/products/${own.id}/variants/add`, b, { name: 'Intruder' }),
    ];
    for (const res of foreign) expect({ status: res.status, envelope: res.body.status }).toEqual({ status: 404, envelope: 'error' });
    const listed = await listProducts(liveRead(b), `ids=${own.id}&returnCount=true`);
    expect(listed.body.data).toEqual({ products: [], count: 0 });
    const still = await raw('GET', `/v0/products/${own.id}`, { headers: liveRead(a) });
    expect(still.body.data.product).toMatchObject({ name: 'Belongs to A' });
  });
});

describe('secrets', () => {
  test('secret keys are stored hashed: no ApiKey row holds a secret in clear', async () => {
    const ws = await newWorkspace('Auth hashing');
    const rows = await sql<{ row: string }>(process.env.DATABASE_URL!, `SELECT row_to_json(k)::text AS row FROM "ApiKey" k WHERE "workspaceId" = $1`, [ws.workspaceId]);
    expect(rows).toHaveLength(2);
    const text = rows.map((r) => r.row).join('\n');
    expect(text).toContain(ws.publicKey);
    for (const secret of [ws.secretKey, ws.testSecretKey]) {
      // Neither the secret nor its random part is anywhere in the table.
      const randomPart = secret.slice('sk_live_'.length);
      const hits = await sql<{ n: string }>(process.env.DATABASE_URL!, `SELECT count(*) AS n FROM "ApiKey" k WHERE row_to_json(k)::text LIKE '%' || $1 || '%'`, [randomPart]);
      expect(Number(hits[0]!.n)).toBe(0);
    }
  });

  test('the server never logs a secret key, even at debug level and on failed authentication', async () => {
    const server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: 'debug' });
    try {
      const ws = await newWorkspace('Auth logs', ['testMode=true']);
      const stranger = wellFormedSecret();
      const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
        fetch(`${server.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-request-id': `logcheck-${randomUUID()}`, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const statuses = [
        (await send('GET', '/v0/products/list', keyHeaders(ws))).status,
        (await send('POST', '/v0/products/create', keyHeaders(ws), { name: 'Logged', projectId: ws.projectId, type: 'Game' })).status,
        (await send('POST', '/v0/products/create', keyHeaders(ws, { mode: 'test' }), { name: 'Logged test', projectId: ws.projectId, type: 'Game' })).status,
        (await send('POST', '/v0/products/create', { ...keyHeaders(ws, { write: false }), 'x-svc-secret-key': stranger }, {})).status,
        (await send('POST', '/v0/products/create', { 'x-svc-public-key': ws.secretKey, 'x-svc-secret-key': ws.secretKey }, {})).status,
        (await send('POST', '/v0/products/create', keyHeaders(ws), { name: 5 })).status,
        (await send('POST', '/v0/products/create', keyHeaders(ws), '{bad')).status,
      ];
      expect(statuses).toEqual([200, 200, 200, 401, 401, 400, 400]);
      await send('POST', '/graphql', keyHeaders(ws), { query: '{ products { count } }' });
      await send('POST', '/graphql', { 'x-svc-public-key': ws.secretKey }, { query: '{ products { count } }' });
      const output = await loggedOutput(server);
      // The log is there (debug level, our request ids) and none of the secrets is in it.
      expect(output).toContain('logcheck-');
      for (const secret of [ws.secretKey, ws.testSecretKey, stranger]) {
        expect(output).not.toContain(secret);
        expect(output).not.toContain(secret.slice(8));
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});
