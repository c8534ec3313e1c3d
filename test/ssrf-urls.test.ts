import { classifyAddress, validateWebhookUrl, webhookAllowHostsFromEnv, type BlockReason, type Resolver } from '../src/webhooks/ssrf.js';
import { DNS, NONE, PUBLIC, resolve } from './support/ssrf-suite.js';

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
