// What the SSRF test files share: a resolver over a fixed table (the suite is split along its
// describe blocks, each file under 400 lines).
import type { Resolver } from '../../src/webhooks/ssrf.js';

// No real network here: names resolve through this table, anything else is NXDOMAIN.
export const PUBLIC = '93.184.216.34';
export const DNS: Record<string, string[]> = {
  'hooks.example.com': [PUBLIC, '2606:2800:220:1:248:1893:25c8:1946'],
  'loopback.example.test': ['127.0.0.1'],
  'rebind.example.test': [PUBLIC, '127.0.0.1'],
  'mapped.example.test': ['::ffff:10.0.0.5'],
  'v6private.example.test': ['2606:2800:220:1::1', 'fd12::1'],
  'metadata.example.test': ['169.254.169.254'],
  'empty.example.test': [],
};
export const resolve: Resolver = async (host) => {
  const addresses = DNS[host];
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};
export const NONE: ReadonlySet<string> = new Set();
