import { addressBucket, clientAddress, trustedProxiesFromEnv } from '../src/http/client-address.js';

// Who a request comes from (the per-address budgets): X-Forwarded-For is read only through the
// proxies TRUST_PROXY names, from its right end; the HTTP tests (rate-limit, license key budgets)
// drive the same rules through a server.

describe('TRUST_PROXY', () => {
  const xff = '198.51.100.9, 203.0.113.7, 10.0.0.5';

  test('unset or false: the peer is the client, whatever the header says', () => {
    for (const raw of [undefined, '', 'false']) {
      expect(clientAddress('10.0.0.1', xff, trustedProxiesFromEnv(raw))).toBe('10.0.0.1');
    }
  });

  test('true: the peer alone is a proxy, so the client is the entry it appended (a forged entry left of it is never read)', () => {
    const trusted = trustedProxiesFromEnv('true');
    expect(clientAddress('10.0.0.1', xff, trusted)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.1', null, trusted)).toBe('10.0.0.1');
  });

  test('a list: every trusted hop is skipped from the right; the first address that is not one is the client', () => {
    const trusted = trustedProxiesFromEnv(' 10.0.0.0/8, 127.0.0.1 ');
    expect(clientAddress('10.0.0.1', xff, trusted)).toBe('203.0.113.7');
    expect(clientAddress('127.0.0.1', '203.0.113.7', trusted)).toBe('203.0.113.7');
    // An untrusted peer's header is not read at all.
    expect(clientAddress('192.0.2.1', xff, trusted)).toBe('192.0.2.1');
    // Only proxies all the way: the leftmost address.
    expect(clientAddress('127.0.0.1', '10.1.1.1, 10.2.2.2', trusted)).toBe('10.1.1.1');
    // An entry that is not an address ends the walk at the hop that passed it on.
    expect(clientAddress('127.0.0.1', '203.0.113.7, bogus, 10.9.9.9', trusted)).toBe('10.9.9.9');
  });

  test('IPv4-mapped IPv6 peers and entries are their IPv4 addresses; IPv6 ranges match IPv6 peers', () => {
    expect(clientAddress('::ffff:127.0.0.1', '::ffff:203.0.113.7', trustedProxiesFromEnv('127.0.0.1'))).toBe('203.0.113.7');
    expect(clientAddress('::1', '2001:db8::1', trustedProxiesFromEnv('::1/128'))).toBe('2001:db8::1');
    expect(clientAddress('::ffff:127.0.0.1', '203.0.113.7', trustedProxiesFromEnv('::ffff:127.0.0.0/104'))).toBe('203.0.113.7');
  });

  test('anything else stops the start, naming the entry', () => {
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1,,10.0.0.2', 'proxy.example.com']) {
      expect(() => trustedProxiesFromEnv(bad)).toThrow(/^TRUST_PROXY must be false, true .* not "/);
    }
  });
});

describe('addressBucket', () => {
  test('an IPv4 address is its own bucket; IPv6 addresses of one /64 share one', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:2:ffff::9')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});
