import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { deliver } from '../src/webhooks/http-delivery.js';
import {
  classifyAddress,
  parseHostLiteral,
  validateWebhookUrl,
  webhookAllowHostsFromEnv,
  type BlockReason,
  type Resolver,
} from '../src/webhooks/ssrf.js';

// No real network here: names resolve through this table, anything else is NXDOMAIN.
const PUBLIC = '93.184.216.34';
const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC, '2606:2800:220:1:248:1893:25c8:1946'],
  'loopback.example.test': ['127.0.0.1'],
  'rebind.example.test': [PUBLIC, '127.0.0.1'],
  'mapped.example.test': ['::ffff:10.0.0.5'],
  'v6private.example.test': ['2606:2800:220:1::1', 'fd12::1'],
  'metadata.example.test': ['169.254.169.254'],
  'empty.example.test': [],
};
const resolve: Resolver = async (host) => {
  const addresses = DNS[host];
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};
const NONE: ReadonlySet<string> = new Set();

describe('classifyAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'this-network'],
    ['0.1.2.3', 'this-network'],
    ['240.0.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['192.88.99.1', '6to4-relay-anycast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'ipv4-mapped:loopback'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped:link-local'],
    ['::ffff:0:10.0.0.1', 'ipv4-translated:private'],
    ['::127.0.0.1', 'ipv4-compatible:loopback'],
    ['64:ff9b::10.0.0.1', 'nat64:private'],
    ['64:ff9b:1::1', 'nat64-local-use'],
    ['2002:7f00:1::1', '6to4:loopback'],
    ['2002:c0a8:101::', '6to4:private'],
    // Teredo client 127.0.0.1 is stored bit-inverted (0x80fffffe); the server 65.54.227.120 is public.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo:loopback'],
    ['2001:0:a00:1::', 'teredo:private'],
    ['4000::1', 'reserved'],
    ['fe80::1%eth0', 'link-local'],
    ['2130706433', 'loopback'],
    ['not-an-ip', 'invalid'],
  ])('%s is blocked as %s', (ip, range) => {
    expect(classifyAddress(ip)).toBe(range);
  });

  test.each([
    PUBLIC,
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '198.20.0.0',
    '223.255.255.255',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::1',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });
});

describe('parseHostLiteral', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0X7F000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0x0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['[::1]', '::1'],
    ['[fe80::1%25eth0]', 'fe80::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::ffff:7f00:1', '::ffff:7f00:1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    // Not ::ffff:127.0.0.1: the deprecated IPv4-compatible form is its own address.
    ['::127.0.0.1', '::7f00:1'],
    ['64:ff9b::10.0.0.1', '64:ff9b::a00:1'],
  ])('%s reads as %s', (host, canonical) => {
    expect(parseHostLiteral(host)).toBe(canonical);
  });

  test.each(['example.com', 'localhost', '08.1', '1.2.3.4.5', '256.1.1.1', '4294967296', '0x1g', '1..1', '', '[example.com]', 'a:b', '::ffff:0x7f.1', '::ffff:127.1', '::256.0.0.1'])(
    '%s is not an IP literal',
    (host) => {
      expect(parseHostLiteral(host)).toBeNull();
    },
  );

  test('agrees with the WHATWG URL parser on random decimal, octal, hex and short spellings', () => {
    const spell = (n: number, base: 8 | 10 | 16) => (base === 8 ? `0${n.toString(8)}` : base === 16 ? `0x${n.toString(16)}` : String(n));
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom<8 | 10 | 16>(8, 10, 16), { minLength: 4, maxLength: 4 }),
        (octets, partCount, bases) => {
          // Merge the trailing octets into the last part, the way 127.1 stands for 127.0.0.1.
          const head = octets.slice(0, partCount - 1);
          const tail = octets.slice(partCount - 1).reduce((sum, octet) => sum * 256 + octet, 0);
          const host = [...head, tail].map((n, i) => spell(n, bases[i]!)).join('.');
          expect(parseHostLiteral(host)).toBe(octets.join('.'));
          expect(new URL(`http://${host}/`).hostname).toBe(octets.join('.'));
        },
      ),
    );
  });
});

// Every entry is refused with no allow-list configured, including every loopback/private spelling.
const HOSTILE: Array<[string, BlockReason]> = [
  ['http://127.0.0.1/', 'blocked_host'],
  ['http://127.0.0.1:22/', 'blocked_host'],
  ['http://127.1/', 'blocked_host'],
  ['http://127.0.1/', 'blocked_host'],
  ['http://127.0.0.1./', 'blocked_host'],
  ['http://0x7f.1/', 'blocked_host'],
  ['http://0x7f.0.0.1/', 'blocked_host'],
  ['http://0x7f000001/', 'blocked_host'],
  ['http://2130706433/', 'blocked_host'],
  ['http://017700000001/', 'blocked_host'],
  ['http://0177.0.0.1/', 'blocked_host'],
  ['http://0177.1/', 'blocked_host'],
  ['http://%31%32%37.0.0.1/', 'blocked_host'],
  ['http://\uff11\uff12\uff17.0.0.1/', 'blocked_host'],
  ['http://0/', 'blocked_host'],
  ['http://0.0.0.0/', 'blocked_host'],
  ['http://[::1]/', 'blocked_host'],
  ['http://[::]/', 'blocked_host'],
  ['http://[0:0:0:0:0:0:0:1]/', 'blocked_host'],
  ['http://[::ffff:127.0.0.1]/', 'blocked_host'],
  ['http://[::ffff:7f00:1]/', 'blocked_host'],
  ['http://[::ffff:169.254.169.254]/', 'blocked_host'],
  ['http://[::127.0.0.1]/', 'blocked_host'],
  ['http://[::ffff:0:7f00:1]/', 'blocked_host'],
  ['http://[64:ff9b::a9fe:a9fe]/', 'blocked_host'],
  ['http://[2002:7f00:1::]/', 'blocked_host'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'blocked_host'],
  ['http://169.254.169.254/latest/meta-data', 'blocked_host'],
  ['http://0xa9fea9fe/latest/meta-data', 'blocked_host'],
  ['http://2852039166/latest/meta-data', 'blocked_host'],
  ['http://[fd00::1]/', 'blocked_host'],
  ['http://[fc00::1]/', 'blocked_host'],
  ['http://[fe80::1]/', 'blocked_host'],
  ['http://[fec0::1]/', 'blocked_host'],
  ['http://[ff02::1]/', 'blocked_host'],
  ['http://[2001:db8::1]/', 'blocked_host'],
  ['http://[100::1]/', 'blocked_host'],
  ['http://100.64.0.1/', 'blocked_host'],
  ['http://192.168.1.1/', 'blocked_host'],
  ['http://10.0.0.1/', 'blocked_host'],
  ['http://012.0.0.1/', 'blocked_host'],
  ['https://10.0.0.1:8443/hook', 'blocked_host'],
  ['http://172.16.0.1/', 'blocked_host'],
  ['http://172.31.255.255/', 'blocked_host'],
  ['http://224.0.0.1/', 'blocked_host'],
  ['http://255.255.255.255/', 'blocked_host'],
  ['http://240.0.0.1/', 'blocked_host'],
  ['http://192.0.2.1/', 'blocked_host'],
  ['http://198.51.100.7/', 'blocked_host'],
  ['http://203.0.113.9/', 'blocked_host'],
  ['http://198.18.0.1/', 'blocked_host'],
  ['http://192.0.0.8/', 'blocked_host'],
  ['http://localhost/', 'blocked_host'],
  ['http://localhost:8080/', 'blocked_host'],
  ['http://LOCALHOST./', 'blocked_host'],
  ['http://foo.localhost/', 'blocked_host'],
  ['http://printer.local/', 'blocked_host'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'blocked_host'],
  ['http://metadata.goog/', 'blocked_host'],
  ['http://intranet/', 'blocked_host'],
  ['http://loopback.example.test/', 'blocked_resolved_address'],
  ['http://rebind.example.test/', 'blocked_resolved_address'],
  ['http://mapped.example.test/', 'blocked_resolved_address'],
  ['http://v6private.example.test/', 'blocked_resolved_address'],
  ['http://metadata.example.test/', 'blocked_resolved_address'],
  ['http://nxdomain.example.test/', 'unresolvable_host'],
  ['http://empty.example.test/', 'unresolvable_host'],
  ['http://user:pass@example.com/', 'malformed_url'],
  ['http://user@hooks.example.com/', 'malformed_url'],
  ['https://:secret@hooks.example.com/', 'malformed_url'],
  ['http://hooks.example.com@127.0.0.1/', 'malformed_url'],
  ['http://[fe80::1%25eth0]/', 'malformed_url'],
  ['http://08.1/', 'malformed_url'],
  ['http://256.256.256.256/', 'malformed_url'],
  ['/relative/path', 'malformed_url'],
  ['not a url', 'malformed_url'],
  ['http://', 'malformed_url'],
  ['ftp://example.com/', 'disallowed_scheme'],
  ['file:///etc/passwd', 'disallowed_scheme'],
  ['javascript:alert(1)', 'disallowed_scheme'],
  ['gopher://127.0.0.1:6379/_INFO', 'disallowed_scheme'],
  ['dict://127.0.0.1:11211/stats', 'disallowed_scheme'],
  ['data:text/plain,hello', 'disallowed_scheme'],
  ['ws://hooks.example.com/', 'disallowed_scheme'],
];

describe('validateWebhookUrl', () => {
  test('the SSRF table has at least 40 hostile URLs', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  test.each(HOSTILE)('%s is refused as %s', async (url, reason) => {
    const result = await validateWebhookUrl(url, { allowHosts: NONE, resolve });
    expect(result).toEqual({ ok: false, reason, message: expect.any(String) });
  });

  test('messages name the rule that failed', async () => {
    const message = async (url: string) => {
      const result = await validateWebhookUrl(url, { allowHosts: NONE, resolve });
      return result.ok ? '' : result.message;
    };
    expect(await message('http://user:pass@example.com/')).toMatch(/credentials/i);
    expect(await message('ftp://example.com/')).toMatch(/"ftp" is not allowed.*http:\/\/ or https:\/\//);
    expect(await message('http://0x7f.1/')).toMatch(/127\.0\.0\.1 .*loopback/);
    expect(await message('http://foo.localhost/')).toMatch(/local-network name/);
    expect(await message('http://rebind.example.test/')).toMatch(/resolves to 127\.0\.0\.1.*loopback/);
    expect(await message('http://nxdomain.example.test/')).toMatch(/could not be resolved \(ENOTFOUND\)/);
  });

  test('a public host passes with every resolved address', async () => {
    const result = await validateWebhookUrl('https://hooks.example.com/webhooks?x=1', { allowHosts: NONE, resolve });
    expect(result).toMatchObject({ ok: true, addresses: DNS['hooks.example.com'] });
    expect(result.ok && result.url.href).toBe('https://hooks.example.com/webhooks?x=1');
  });

  test('a public IP literal passes without a lookup', async () => {
    const result = await validateWebhookUrl(`http://${PUBLIC}:8080/`, {
      allowHosts: NONE,
      resolve: () => Promise.reject(new Error('literal hosts must not be resolved')),
    });
    expect(result).toMatchObject({ ok: true, addresses: [PUBLIC] });
  });

  test('the allow-list lets 127.0.0.1 through only when configured, and nothing else', async () => {
    const allowHosts = new Set(['127.0.0.1']);
    expect(await validateWebhookUrl('http://127.0.0.1:4000/hook', { allowHosts: NONE, resolve })).toMatchObject({ ok: false, reason: 'blocked_host' });
    expect(await validateWebhookUrl('http://127.0.0.1:4000/hook', { allowHosts, resolve })).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    // Another spelling of the same address is the same host.
    expect(await validateWebhookUrl('http://2130706433:4000/', { allowHosts, resolve })).toMatchObject({ ok: true });
    for (const url of ['http://127.0.0.2/', 'http://[::1]/', 'http://10.0.0.1/', 'http://localhost/', 'http://loopback.example.test/']) {
      expect(await validateWebhookUrl(url, { allowHosts, resolve })).toMatchObject({ ok: false });
    }
  });

  test('an allow-listed name skips the rules but is still resolved', async () => {
    let calls = 0;
    const counting: Resolver = async () => {
      calls += 1;
      return ['127.0.0.1', '::1'];
    };
    const result = await validateWebhookUrl('http://localhost:4000/', { allowHosts: new Set(['localhost']), resolve: counting });
    expect(result).toMatchObject({ ok: true, addresses: ['127.0.0.1', '::1'] });
    expect(calls).toBe(1);
  });

  test('the system resolver is used by default', async () => {
    const result = await validateWebhookUrl('http://localhost:4000/', { allowHosts: new Set(['localhost']) });
    expect(result.ok).toBe(true);
    expect(result.ok && result.addresses.every((address) => classifyAddress(address)?.endsWith('loopback'))).toBe(true);
  });
});

describe('webhookAllowHostsFromEnv', () => {
  test('is empty by default', () => {
    expect(webhookAllowHostsFromEnv({}).size).toBe(0);
    expect(webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: '', NODE_ENV: 'production' }).size).toBe(0);
  });

  test('reads a comma-separated list of hosts, normalised', () => {
    const hosts = webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, LocalHost. ,[::1],', NODE_ENV: 'test' });
    expect([...hosts]).toEqual(['127.0.0.1', 'localhost', '::1']);
  });

  test('refuses to start in production with an allow-list', () => {
    expect(() => webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', NODE_ENV: 'production' })).toThrow(/production/);
  });

  test('reads host:port entries, IPv6 in brackets, normalised like bare hosts', () => {
    const hosts = webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1:47301,[::1]:8080,LocalHost.:3000,127.1:80,[::1],::1:80' });
    expect([...hosts]).toEqual(['127.0.0.1:47301', '[::1]:8080', 'localhost:3000', '127.0.0.1:80', '::1', '::1:80']);
  });

  test.each([
    ['http://127.0.0.1/', /"http:\/\/127\.0\.0\.1\/" is not a host or host:port/],
    ['*', /"\*" is not a valid host name or IP address/],
    ['127.0.0.1:', /is not a host or host:port/],
    ['127.0.0.1:0', /has the port 0, outside 1-65535/],
    ['127.0.0.1:65536', /has the port 65536, outside 1-65535/],
    ['localhost:http', /is not a host or host:port/],
    ['[127.0.0.1]:80', /not an IPv6 address/],
    ['[::1', /is not a host or host:port/],
    ['fe80:::1', /is not a valid IPv6 address/],
    ['999.1.1.1', /not a valid host name or IP address/],
    ['user@host', /not a valid host name or IP address/],
  ])('refuses the malformed entry %s, naming it and the accepted forms', (entry, why) => {
    const read = () => webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: `localhost, ${entry}` });
    expect(read).toThrow(why);
    expect(read).toThrow(/^WEBHOOK_ALLOWED_HOSTS entry .* Entries are host names or IP addresses, each optionally with :port \(IPv6 as \[::1\]:8080\)\.$/);
  });
});

describe('the allow-list and ports', () => {
  const allow = (entries: string) => ({ allowHosts: webhookAllowHostsFromEnv({ WEBHOOK_ALLOWED_HOSTS: entries }), resolve });
  const allowed = async (url: string, entries: string) => (await validateWebhookUrl(url, allow(entries))).ok;

  test('a host:port entry lets that port through and no other', async () => {
    expect(await allowed('http://127.0.0.1:47301/hook', '127.0.0.1:47301')).toBe(true);
    expect(await allowed('http://127.0.0.1:47302/hook', '127.0.0.1:47301')).toBe(false);
    expect(await allowed('http://127.0.0.1/hook', '127.0.0.1:47301')).toBe(false);
    expect(await validateWebhookUrl('http://127.0.0.1:47302/', allow('127.0.0.1:47301'))).toMatchObject({ ok: false, reason: 'blocked_host' });
  });

  test("a URL without a port is on its scheme's default port", async () => {
    expect(await allowed('http://127.0.0.1/', '127.0.0.1:80')).toBe(true);
    expect(await allowed('https://127.0.0.1/', '127.0.0.1:80')).toBe(false);
    expect(await allowed('https://127.0.0.1/', '127.0.0.1:443')).toBe(true);
    expect(await allowed('https://127.0.0.1:443/', '127.0.0.1:443')).toBe(true);
  });

  test('IPv6 entries with a port match that address on that port, in any spelling', async () => {
    expect(await allowed('http://[::1]:8080/', '[::1]:8080')).toBe(true);
    expect(await allowed('http://[0:0:0:0:0:0:0:1]:8080/', '[::1]:8080')).toBe(true);
    expect(await allowed('http://[::1]:8081/', '[::1]:8080')).toBe(false);
  });

  test('a name with a port matches the name on that port only', async () => {
    expect(await allowed('http://LOOPBACK.Example.test:3000/', 'loopback.example.test:3000')).toBe(true);
    expect(await allowed('http://loopback.example.test:3001/', 'loopback.example.test:3000')).toBe(false);
  });

  test('a bare host means every port of it', async () => {
    for (const port of [80, 443, 3000, 47301, 65535]) expect(await allowed(`http://127.0.0.1:${port}/`, '127.0.0.1')).toBe(true);
    expect(await allowed('http://127.0.0.2:3000/', '127.0.0.1')).toBe(false);
  });
});

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
