import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliver } from '../src/webhooks/http-delivery.js';
import { validateWebhookUrl, type Resolver } from '../src/webhooks/ssrf.js';
import { NONE, PUBLIC, resolve } from './support/ssrf-suite.js';

describe('deliver', () => {
  type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
  const routes = new Map<string, Handler>();
  const received: Array<{ path: string; host: string | undefined; body: string; headers: http.IncomingHttpHeaders }> = [];
  let server: http.Server;
  let port: number;
  const local = (path: string) => `http://127.0.0.1:${port}${path}`;
  const allowHosts = new Set(['127.0.0.1']);
  const request = (url: string) => ({ url, body: '{"type":"test"}', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' } });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ path: req.url ?? '', host: req.headers.host, body, headers: req.headers });
        const handler = routes.get(req.url ?? '');
        if (handler) handler(req, body, res);
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  beforeEach(() => {
    routes.clear();
    received.length = 0;
  });

  const redirect = (status: number, location: string): Handler => (_req, _body, res) => res.writeHead(status, { location }).end();
  const ok: Handler = (_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');

  test('2xx is delivered with the parsed JSON response, after a POST of body and headers', async () => {
    routes.set('/hook', ok);
    const outcome = await deliver(request(local('/hook')), { allowHosts });
    expect(outcome).toEqual({ kind: 'delivered', statusCode: 200, responseBody: { received: true } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ body: '{"type":"test"}', headers: { 'webhook-id': 'msg_1', 'content-type': 'application/json' } });
  });

  test('a non-JSON response body is stored as null', async () => {
    routes.set('/hook', (_req, _body, res) => res.writeHead(204).end());
    routes.set('/text', (_req, _body, res) => res.writeHead(202).end('thanks'));
    expect(await deliver(request(local('/hook')), { allowHosts })).toEqual({ kind: 'delivered', statusCode: 204, responseBody: null });
    expect(await deliver(request(local('/text')), { allowHosts })).toEqual({ kind: 'delivered', statusCode: 202, responseBody: null });
  });

  test('a response body over the size cap is not stored', async () => {
    routes.set('/big', (_req, _body, res) => res.writeHead(200).end(JSON.stringify({ pad: 'x'.repeat(70 * 1024) })));
    expect(await deliver(request(local('/big')), { allowHosts })).toEqual({ kind: 'delivered', statusCode: 200, responseBody: null });
  });

  test('500 fails with its status code and response', async () => {
    routes.set('/hook', (_req, _body, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}'));
    expect(await deliver(request(local('/hook')), { allowHosts })).toEqual({
      kind: 'failed',
      statusCode: 500,
      responseBody: { error: 'boom' },
      error: 'HTTP 500',
    });
  });

  test('a receiver that does not answer in time fails with a null status', async () => {
    routes.set('/slow', () => undefined);
    const started = Date.now();
    const outcome = await deliver(request(local('/slow')), { allowHosts, timeoutMs: 300 });
    expect(outcome).toEqual({ kind: 'failed', statusCode: null, responseBody: null, error: 'timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a refused connection fails with a null status', async () => {
    const closed = http.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const outcome = await deliver(request(`http://127.0.0.1:${closedPort}/`), { allowHosts });
    expect(outcome).toEqual({ kind: 'failed', statusCode: null, responseBody: null, error: 'connection failed: ECONNREFUSED' });
  });

  test('307 -> 307 -> 200 is delivered, re-sending the body on each hop', async () => {
    routes.set('/a', redirect(307, '/b'));
    routes.set('/b', redirect(307, local('/c')));
    routes.set('/c', ok);
    const outcome = await deliver(request(local('/a')), { allowHosts });
    expect(outcome).toMatchObject({ kind: 'delivered', statusCode: 200 });
    expect(received.map((r) => [r.path, r.body])).toEqual([
      ['/a', '{"type":"test"}'],
      ['/b', '{"type":"test"}'],
      ['/c', '{"type":"test"}'],
    ]);
  });

  test('three 308 hops are followed; a fourth redirect fails with its status', async () => {
    for (const [from, to] of [['/1', '/2'], ['/2', '/3'], ['/3', '/4'], ['/4', '/5']] as const) routes.set(from, redirect(308, to));
    routes.set('/5', ok);
    expect(await deliver(request(local('/1')), { allowHosts })).toMatchObject({ kind: 'failed', statusCode: 308, error: 'more than 3 redirects' });
    expect(received.map((r) => r.path)).toEqual(['/1', '/2', '/3', '/4']);
    expect(await deliver(request(local('/2')), { allowHosts })).toMatchObject({ kind: 'delivered', statusCode: 200 });
  });

  test.each([301, 302, 303])('%i is not followed and fails with its status', async (status) => {
    routes.set('/moved', redirect(status, '/hook'));
    routes.set('/hook', ok);
    expect(await deliver(request(local('/moved')), { allowHosts })).toMatchObject({ kind: 'failed', statusCode: status });
    expect(received.map((r) => r.path)).toEqual(['/moved']);
  });

  test('a 307 without a Location fails with its status', async () => {
    routes.set('/nowhere', (_req, _body, res) => res.writeHead(307).end());
    expect(await deliver(request(local('/nowhere')), { allowHosts })).toMatchObject({ kind: 'failed', statusCode: 307 });
  });

  test.each([
    ['http://10.0.0.1/', 'blocked_host'],
    ['http://[::ffff:169.254.169.254]/latest/meta-data', 'blocked_host'],
    ['http://loopback.example.test/', 'blocked_resolved_address'],
    ['file:///etc/passwd', 'disallowed_scheme'],
  ])('a redirect to %s is blocked (%s), with the redirect\'s status', async (location, reason) => {
    routes.set('/evil', redirect(307, location));
    expect(await deliver(request(local('/evil')), { allowHosts, resolve })).toMatchObject({ kind: 'blocked', reason, statusCode: 307 });
  });

  test('a redirect to an unparsable Location is blocked as malformed_url, with its status', async () => {
    routes.set('/broken', redirect(308, 'http://[::1'));
    expect(await deliver(request(local('/broken')), { allowHosts, resolve })).toMatchObject({ kind: 'blocked', reason: 'malformed_url', statusCode: 308 });
  });

  test('with a host:port entry, a redirect to another port of the same host is blocked and not contacted', async () => {
    const other = http.createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const receiverOnly = new Set([`127.0.0.1:${port}`]);
      routes.set('/elsewhere', redirect(307, `http://127.0.0.1:${otherPort}/hook`));
      routes.set('/same-port', redirect(307, '/hook'));
      routes.set('/hook', ok);
      let contacted = 0;
      other.on('request', () => (contacted += 1));
      expect(await deliver(request(local('/elsewhere')), { allowHosts: receiverOnly })).toEqual({
        kind: 'blocked',
        statusCode: 307,
        responseBody: null,
        reason: 'blocked_host',
        message: expect.stringMatching(/127\.0\.0\.1 is a non-public address \(loopback\)/),
      });
      expect(contacted).toBe(0);
      // The allowed port itself is still followed.
      expect(await deliver(request(local('/same-port')), { allowHosts: receiverOnly })).toMatchObject({ kind: 'delivered', statusCode: 200 });
    } finally {
      await new Promise((done) => other.close(done));
    }
  });

  test('a blocked URL is never contacted', async () => {
    const outcome = await deliver(request(`http://localhost:${port}/hook`), { allowHosts: NONE });
    expect(outcome).toMatchObject({ kind: 'blocked', reason: 'blocked_host', statusCode: null });
    expect(received).toHaveLength(0);
  });

  test('DNS rebinding: a host that was public at create time is re-resolved and refused at delivery', async () => {
    const answers = [[PUBLIC], ['127.0.0.1']];
    const rebinding: Resolver = async () => answers.shift() ?? [];
    const url = `http://rebind.example.test:${port}/hook`;
    expect(await validateWebhookUrl(url, { allowHosts: NONE, resolve: rebinding })).toMatchObject({ ok: true });
    expect(await deliver(request(url), { allowHosts: NONE, resolve: rebinding })).toMatchObject({ kind: 'blocked', reason: 'blocked_resolved_address' });
    expect(received).toHaveLength(0);
  });

  test('the connection goes to the vetted address, with the original Host, one lookup per hop', async () => {
    // hooks.example.test does not exist in real DNS: delivery only works if the socket uses
    // the injected answer, and a second lookup would show up in the count.
    const lookups: string[] = [];
    const pinned: Resolver = async (host) => {
      lookups.push(host);
      return ['127.0.0.1'];
    };
    const hookHosts = new Set(['hooks.example.test']);
    routes.set('/hook', ok);
    const direct = await deliver(request(`http://hooks.example.test:${port}/hook`), { allowHosts: hookHosts, resolve: pinned });
    expect(direct).toMatchObject({ kind: 'delivered', statusCode: 200 });
    expect(received[0]?.host).toBe(`hooks.example.test:${port}`);
    expect(lookups).toEqual(['hooks.example.test']);

    lookups.length = 0;
    received.length = 0;
    routes.set('/a', redirect(307, `http://hooks.example.test:${port}/b`));
    routes.set('/b', redirect(308, '/hook'));
    const redirected = await deliver(request(`http://hooks.example.test:${port}/a`), { allowHosts: hookHosts, resolve: pinned });
    expect(redirected).toMatchObject({ kind: 'delivered', statusCode: 200 });
    expect(lookups).toEqual(['hooks.example.test', 'hooks.example.test', 'hooks.example.test']);
    expect(received.map((r) => r.host)).toEqual(Array(3).fill(`hooks.example.test:${port}`));
  });

  test('a resolver that never answers is cut off by the delivery timeout', async () => {
    const outcome = await deliver(request('http://hooks.example.com/'), { allowHosts: NONE, timeoutMs: 200, resolve: () => new Promise(() => undefined) });
    expect(outcome).toEqual({ kind: 'failed', statusCode: null, responseBody: null, error: 'timed out after 200 ms' });
  });
});
