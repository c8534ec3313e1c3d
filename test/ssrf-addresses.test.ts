import fc from 'fast-check';
import { classifyAddress, parseHostLiteral } from '../src/webhooks/ssrf.js';
import { PUBLIC } from './support/ssrf-suite.js';

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
