import { randomUUID } from 'node:crypto';
import { newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { execCli, httpOnlyEnv, ownTaskQueueEnv, runProcess, startServerProcess } from './support/processes.js';

// Operating the service: the admin CLI, health and metrics endpoints, request logs, shutdown.

const SETTINGS = {
  testMode: true,
  offline: false,
  productLimit: 7,
  portalEnabled: false,
  refundsEnabled: false,
  embeddedPaymentMethodUpdate: true,
  customSubscriptionManagementUrl: 'https://billing.example.com/manage',
  pricesIncludeTax: true,
  taxRegistrations: 'CA,CA-QC,EU,GB,US-WA',
  noTaxData: 'refuse',
  contactEmail: 'ops@example.com',
  invoiceLegalName: 'Settings Ltd',
  invoiceAddress: '1 Main Street, Springfield',
  invoiceTaxId: 'DE143454214',
  invoicePrefix: 'SET-',
  brandColor: '#1a2b3c',
  accentColor: '#ffb000',
  portalPauseEnabled: true,
  portalSwitchOfferIds: '0195f8a2-0000-7000-8000-000000000001,0195f8a2-0000-7000-8000-000000000002',
};

describe('admin CLI', () => {
  test('`npm run --silent cli -- workspace create` prints exactly one JSON object with the ids and both key pairs', async () => {
    const { code, stdout, stderr } = await runProcess('npm', ['run', '--silent', 'cli', '--', 'workspace', 'create', '--name', 'Via npm']);
    expect({ code, stderr: stderr.replace(/^npm warn.*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const created = JSON.parse(stdout) as Workspace;
    expect(Object.keys(created).sort()).toEqual(['projectId', 'publicKey', 'secretKey', 'testPublicKey', 'testSecretKey', 'workspaceId']);
    expect(created).toMatchObject({
      workspaceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      publicKey: expect.stringMatching(/^pk_live_/),
      secretKey: expect.stringMatching(/^sk_live_/),
      testPublicKey: expect.stringMatching(/^pk_test_/),
      testSecretKey: expect.stringMatching(/^sk_test_/),
    });
    const listed = await raw('GET', '/v0/products/list', { headers: { 'x-svc-public-key': created.publicKey } });
    expect(listed.status).toBe(200);
  });

  test('`workspace set` takes every documented key and prints the settings; `workspace show` agrees', async () => {
    const ws = await newWorkspace('Settings');
    const assignments = Object.entries(SETTINGS).map(([key, value]) => `${key}=${value}`);
    const set = await execCli(['workspace', 'set', ws.workspaceId, ...assignments]);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ workspaceId: ws.workspaceId, name: 'Settings', ...SETTINGS });
    const shown = await execCli(['workspace', 'show', ws.workspaceId]);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(set.stdout));
    // An empty value clears the optional strings.
    const cleared = await execCli(['workspace', 'set', ws.workspaceId, 'customSubscriptionManagementUrl=', 'contactEmail=']);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ customSubscriptionManagementUrl: null, contactEmail: null, productLimit: 7 });
  });

  test('a bad command, key or value exits non-zero with a message and changes nothing', async () => {
    const ws = await newWorkspace('Bad settings');
    const before = (await execCli(['workspace', 'show', ws.workspaceId])).stdout;
    const bad: string[][] = [
      ['workspace', 'set', ws.workspaceId, 'colour=blue'],
      ['workspace', 'set', ws.workspaceId, 'testMode=yes'],
      ['workspace', 'set', ws.workspaceId, 'offline=1'],
      ['workspace', 'set', ws.workspaceId, 'productLimit=-1'],
      ['workspace', 'set', ws.workspaceId, 'productLimit=many'],
      ['workspace', 'set', ws.workspaceId, 'productLimit=1.5'],
      ['workspace', 'set', ws.workspaceId, 'customSubscriptionManagementUrl=ftp://example.com'],
      ['workspace', 'set', ws.workspaceId, 'contactEmail=not-an-email'],
      ['workspace', 'set', ws.workspaceId, 'taxRegistrations=US'],
      ['workspace', 'set', ws.workspaceId, 'taxRegistrations=DE,Bavaria'],
      ['workspace', 'set', ws.workspaceId, 'noTaxData=maybe'],
      ['workspace', 'set', ws.workspaceId, 'brandColor=blue'],
      ['workspace', 'set', ws.workspaceId, 'accentColor=#fff'],
      ['workspace', 'set', ws.workspaceId, 'portalSwitchOfferIds=one,two'],
      ['workspace', 'set', ws.workspaceId, 'testMode'],
      ['workspace', 'set', ws.workspaceId, 'testMode=true', 'offline=maybe'],
      ['workspace', 'set', ws.workspaceId],
      ['workspace', 'set', randomUUID(), 'testMode=true'],
      ['workspace', 'set', 'not-a-workspace', 'testMode=true'],
      ['workspace', 'show', 'not-a-workspace'],
      ['keys', 'rotate', 'not-a-workspace'],
      ['workspace', 'create'],
      ['workspace', 'delete', ws.workspaceId],
      [],
    ];
    // Independent runs: a few at a time keeps the test short without crowding the machine.
    for (let i = 0; i < bad.length; i += 6) {
      const batch = bad.slice(i, i + 6);
      const results = await Promise.all(batch.map((args) => execCli(args)));
      results.forEach(({ code, stdout, stderr }, j) => {
        const args = batch[j];
        expect({ args, code, stdout }).toEqual({ args, code: 1, stdout: '' });
        const message = stderr.replace(/^npm warn.*\n/gm, '').trim();
        expect(message.length).toBeGreaterThan(0);
        // A human message, not a stack trace or a database error.
        expect(message).not.toMatch(/\bat .*\(.*:\d+:\d+\)|prisma|invocation/i);
      });
    }
    expect((await execCli(['workspace', 'show', ws.workspaceId])).stdout).toBe(before);
  }, 180_000);

  test('productLimit caps product creation with 409 in the envelope', async () => {
    const ws = await newWorkspace('Limited', ['productLimit=1']);
    const api = restClient(ws);
    const create = (name: string) => api.POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'Game' } });
    const first = await create('The only one');
    expect(first.response.status).toBe(200);
    const second = await create('One too many');
    expect({ status: second.response.status, body: second.error }).toEqual({ status: 409, body: { status: 'error', error: { message: expect.any(String) } } });
    const duplicate = await api.POST('/v0/products/{productId}/duplicate', { params: { path: { productId: first.data!.data.product.id } } });
    expect(duplicate.response.status).toBe(409);
    const listed = await api.GET('/v0/products/list', { params: { query: { returnCount: true } } });
    expect(listed.data!.data.count).toBe(1);
    await setWorkspace(ws.workspaceId, 'productLimit=2');
    expect((await create('Now allowed')).response.status).toBe(200);
  });
});

describe('health and metrics', () => {
  test('/healthz and /readyz answer 200', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await raw('GET', path);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  test('/metrics is Prometheus text counting requests per route pattern and status', async () => {
    // On a server of its own (the suite's server counts every test file's requests): the counters
    // before and after this test's requests differ by exactly those requests.
    const server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL!, ...httpOnlyEnv() });
    try {
      const ws = await newWorkspace('Metrics');
      const headers = { 'x-svc-public-key': ws.publicKey };
      const metrics = async () => {
        const res = await fetch(`${server.url}/metrics`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
        return res.text();
      };
      const counter = (text: string, route: string, status: number) => {
        const series = new RegExp(`^http_requests_total\\{(?=[^}]*method="GET")(?=[^}]*route="${route.replace(/[/:]/g, '\\$&')}")(?=[^}]*status="${status}")[^}]*\\} (\\d+)$`, 'm').exec(text);
        return series ? Number(series[1]) : 0;
      };
      const before = await metrics();
      for (let i = 0; i < 3; i += 1) expect((await fetch(`${server.url}/v0/products/list`, { headers })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) expect((await fetch(`${server.url}/v0/products/${randomUUID()}`, { headers })).status).toBe(404);
      const after = await metrics();

      expect(after).toMatch(/^# TYPE http_requests_total counter$/m);
      expect(counter(after, '/v0/products/list', 200) - counter(before, '/v0/products/list', 200)).toBe(3);
      // Labelled by the route pattern, not the concrete path: one series for every product id.
      expect(counter(after, '/v0/products/:productId', 404) - counter(before, '/v0/products/:productId', 404)).toBe(2);
      expect(after).not.toMatch(/route="\/v0\/products\/[0-9a-f]{8}-/);
      const observed = (text: string) => Number(/^http_request_duration_seconds_count\{(?=[^}]*route="\/v0\/products\/list")(?=[^}]*status="200")[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0);
      expect(observed(after) - observed(before)).toBe(3);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('a server process of its own', () => {
  test('logs each request with its request id, and exits 0 on SIGTERM with a client connection still open', async () => {
    // A task queue of its own: on the suite's, its in-process worker could take other files'
    // workflow tasks, and a graceful shutdown rightly waits for those.
    const server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: 'info', ...ownTaskQueueEnv('operations') });
    const requestId = `ops-${randomUUID()}`;
    // fetch keeps the connection alive: shutdown must not wait for the idle connection to time out.
    const res = await fetch(`${server.url}/v0/products/list`, { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(401);
    await res.text();
    const started = Date.now();
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const line = server.output().split('\n').find((l) => l.includes(requestId));
    expect(JSON.parse(line!)).toMatchObject({ requestId, method: 'GET', route: expect.any(String), status: 401 });
  }, 120_000);

  test('SIGINT stops it cleanly too', async () => {
    const server = await startServerProcess({ DATABASE_URL: process.env.DATABASE_URL!, ...ownTaskQueueEnv('operations') });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await server.stop('SIGINT')).toBe(0);
  }, 120_000);
});
