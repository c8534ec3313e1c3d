import { promises as dns } from 'node:dns';
import ipaddr from 'ipaddr.js';

// SSRF rules for webhook URLs: a webhook may only reach hosts whose every address is public
// unicast. The same check runs at create/update and again before every delivery hop; the
// delivery then connects to the addresses vetted here (see http-delivery.ts), so a DNS answer
// that changes between the check and the connection cannot redirect the request.

/** Why a webhook URL cannot be used; stored as the webhook's lastBlockReason. */
export type BlockReason =
  | 'malformed_url'
  | 'disallowed_scheme'
  | 'blocked_host'
  | 'unresolvable_host'
  | 'blocked_resolved_address';

export type Resolver = (host: string) => Promise<string[]>;

export interface ValidateOptions {
  /**
   * Receivers let through without the blocked-host and address checks, as
   * webhookAllowHostsFromEnv returns them: `host` (every port) or `host:port` (that port only),
   * normalized (lower case, canonical IP; an IPv6 host in brackets before a port).
   */
  allowHosts: ReadonlySet<string>;
  /** Injected in tests; defaults to the system resolver (A and AAAA). */
  resolve?: Resolver;
}

export type ValidationResult =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; reason: BlockReason; message: string };

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidr = (text: string): Range => ipaddr.parseCIDR(text);

// Listed explicitly (rather than trusting ipaddr's range names alone) so every range the
// policy names is visibly covered. First match wins: broadcast sits inside 240/4.
const IPV4_BLOCKED: ReadonlyArray<[string, Range]> = [
  ['this-network', cidr('0.0.0.0/8')],
  ['private', cidr('10.0.0.0/8')],
  ['cgnat', cidr('100.64.0.0/10')],
  ['loopback', cidr('127.0.0.0/8')],
  ['link-local', cidr('169.254.0.0/16')],
  ['private', cidr('172.16.0.0/12')],
  ['ietf-protocol-assignments', cidr('192.0.0.0/24')],
  ['documentation', cidr('192.0.2.0/24')],
  ['6to4-relay-anycast', cidr('192.88.99.0/24')],
  ['private', cidr('192.168.0.0/16')],
  ['benchmarking', cidr('198.18.0.0/15')],
  ['documentation', cidr('198.51.100.0/24')],
  ['documentation', cidr('203.0.113.0/24')],
  ['multicast', cidr('224.0.0.0/4')],
  ['broadcast', cidr('255.255.255.255/32')],
  ['reserved', cidr('240.0.0.0/4')],
];

const IPV6_BLOCKED: ReadonlyArray<[string, Range]> = [
  // RFC 8215 local-use NAT64 prefix: translated by a local gateway, embedding not fixed.
  ['nat64-local-use', cidr('64:ff9b:1::/48')],
  ['discard', cidr('100::/64')],
  ['benchmarking', cidr('2001:2::/48')],
  ['documentation', cidr('2001:db8::/32')],
  ['unique-local', cidr('fc00::/7')],
  ['link-local', cidr('fe80::/10')],
  ['site-local', cidr('fec0::/10')],
  ['multicast', cidr('ff00::/8')],
];

const GLOBAL_UNICAST_V6 = cidr('2000::/3');

/**
 * Returns null for a public unicast address, otherwise the name of the blocked range.
 * Accepts any literal spelling parseHostLiteral understands; anything else is 'invalid'
 * (fail closed: a string we cannot read is never treated as public).
 */
export function classifyAddress(ip: string): string | null {
  const canonical = parseHostLiteral(ip);
  if (canonical === null) return 'invalid';
  const address = ipaddr.parse(canonical);
  return address.kind() === 'ipv4' ? classifyV4(address as ipaddr.IPv4) : classifyV6(address as ipaddr.IPv6);
}

function classifyV4(address: ipaddr.IPv4): string | null {
  for (const [name, range] of IPV4_BLOCKED) if (address.match(range)) return name;
  // Catch-all for special-purpose blocks added to ipaddr.js after this list was written.
  const range = address.range();
  return range === 'unicast' ? null : range;
}

function classifyV6(address: ipaddr.IPv6): string | null {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // Forms that carry an IPv4 address are judged by it, so ::ffff:127.0.0.1 is loopback.
  const embedded = (form: string, inner: ipaddr.IPv4): string | null => {
    const name = classifyV4(inner);
    return name === null ? null : `${form}:${name}`;
  };
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);

  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && p[7] === 1) return 'loopback';
  if (zeros(0, 5) && p[5] === 0xffff) return embedded('ipv4-mapped', v4(p[6], p[7]));
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return embedded('ipv4-translated', v4(p[6], p[7]));
  if (zeros(0, 6)) return embedded('ipv4-compatible', v4(p[6], p[7]));
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return embedded('nat64', v4(p[6], p[7]));
  if (p[0] === 0x2002) return embedded('6to4', v4(p[1], p[2]));
  if (p[0] === 0x2001 && p[1] === 0) {
    // Teredo: the server address is in clear, the client address is bit-inverted; both are hops.
    return embedded('teredo', v4(p[2], p[3])) ?? embedded('teredo', v4(~p[6] & 0xffff, ~p[7] & 0xffff));
  }
  for (const [name, range] of IPV6_BLOCKED) if (address.match(range)) return name;
  const range = address.range();
  if (range !== 'unicast') return range;
  // IANA allocates global unicast from 2000::/3 only; everything else is unassigned.
  return address.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
}

/**
 * Reads a host as an IP literal and returns its canonical form (dotted quad, or RFC 5952 IPv6
 * without zone id), or null when the host is a name. Accepts every IPv4 spelling the WHATWG URL
 * parser and inet_aton accept, since a resolver may turn any of them into an address:
 * decimal/octal/hex parts, 1 to 4 parts (127.1 = 127.0.0.1), one trailing dot.
 */
export function parseHostLiteral(host: string): string | null {
  const bracketed = /^\[(.*)\]$/.exec(host);
  const bare = bracketed ? bracketed[1]! : host;
  if (bracketed || bare.includes(':')) {
    // Zone ids (fe80::1%eth0, or %25eth0 as written in a URL) do not change the range.
    const hex = embeddedIPv4ToHex(bare.replace(/%.*$/, ''));
    return hex !== null && ipaddr.IPv6.isValid(hex) ? ipaddr.IPv6.parse(hex).toString() : null;
  }
  return parseLegacyIPv4(bare);
}

// ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d, a different address, so a trailing dotted IPv4
// (strict decimal, as in RFC 4291 and the URL parser) is turned into two hex groups first.
function embeddedIPv4ToHex(text: string): string | null {
  if (!text.includes('.')) return text;
  const match = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (match === null) return null;
  const parts = match.slice(2, 6);
  if (parts.some((part) => /^0./.test(part) || Number(part) > 255)) return null;
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function parseLegacyIPv4(host: string): string | null {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === null) return null;
    numbers.push(value);
  }
  // Every part but the last is one byte; the last fills the remaining bytes (127.1 -> 127.0.0.1).
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  const value = numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last;
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

function parseIPv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return parseInt(part, 10);
  return null;
}

// Names that only mean something on a private network. Cloud metadata names such as
// metadata.google.internal fall under .internal; metadata.goog is GCE's public-suffix alias.
const LOCAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa'];
const METADATA_NAMES = new Set(['metadata.goog']);

function blockedNameRule(name: string): string | null {
  for (const suffix of LOCAL_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return `"${name}" is a local-network name (.${suffix})`;
  }
  if (METADATA_NAMES.has(name)) return `"${name}" is a cloud metadata service name`;
  // Single-label names are completed with the machine's search domains, i.e. internal hosts.
  if (!name.includes('.')) return `"${name}" is a single-label name, which resolves inside the local network`;
  return null;
}

/** The allow-list key of a host: canonical IP for literals, lower case without trailing dot for names. */
export function normalizeHost(host: string): string {
  return parseHostLiteral(host) ?? host.toLowerCase().replace(/\.$/, '');
}

/** The allow-list key of a host on one port (IPv6 in brackets, as in a URL). */
const receiverKey = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

/** The port a URL connects to: its own, or its scheme's default. */
const portOf = (url: URL) => (url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port));

const systemResolver: Resolver = async (host) => {
  const results = await dns.lookup(host, { all: true, verbatim: true });
  return results.map((result) => result.address);
};

const refuse = (reason: BlockReason, message: string): ValidationResult => ({ ok: false, reason, message });

/**
 * Checks a webhook URL and resolves its host. On success `addresses` are the only addresses a
 * delivery may connect to. Allow-listed hosts skip the host and address rules but are still
 * resolved, so a delivery to them is pinned the same way.
 */
export async function validateWebhookUrl(raw: string, options: ValidateOptions): Promise<ValidationResult> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('malformed_url', 'The webhook URL is not a valid absolute URL (e.g. https://hooks.example.com/path).');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('disallowed_scheme', `The URL scheme "${url.protocol.slice(0, -1)}" is not allowed; use http:// or https://.`);
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('malformed_url', 'Credentials (user name or password) are not allowed in a webhook URL.');
  }

  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node's URL parser already canonicalises IPv4 spellings; parsing again keeps this check
  // independent of that behaviour.
  const literal = parseHostLiteral(host);
  const key = literal ?? normalizeHost(host);
  const allowed = options.allowHosts.has(key) || options.allowHosts.has(receiverKey(key, portOf(url)));

  if (!allowed) {
    if (literal !== null) {
      const range = classifyAddress(literal);
      if (range !== null) return refuse('blocked_host', `The host ${literal} is a non-public address (${range}).`);
    } else {
      const rule = blockedNameRule(normalizeHost(host));
      if (rule !== null) return refuse('blocked_host', `The host ${rule}; only public hosts are allowed.`);
    }
  }

  let addresses: string[];
  if (literal !== null) {
    addresses = [literal];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch (error) {
      const code = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
      return refuse('unresolvable_host', `The host "${host}" could not be resolved (${code}).`);
    }
    const canonical = addresses.map(parseHostLiteral);
    if (canonical.length === 0 || canonical.includes(null)) {
      return refuse('unresolvable_host', `The host "${host}" did not resolve to any IP address.`);
    }
    addresses = canonical as string[];
  }

  if (!allowed) {
    // Every address must be public: a client may use any of them, and a rebinding attacker
    // only needs one private answer in the set.
    for (const address of addresses) {
      const range = classifyAddress(address);
      if (range !== null) {
        return refuse('blocked_resolved_address', `The host "${host}" resolves to ${address}, a non-public address (${range}).`);
      }
    }
  }
  return { ok: true, url, addresses };
}

// A host name as DNS has it (labels of letters, digits, hyphens and underscores).
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
// host, host:port, [IPv6] or [IPv6]:port; a bare IPv6 address is told apart by its colons.
const ENTRY = /^(?:\[(?<ipv6>[^\]]*)\]|(?<host>[^:[\]]+))(?::(?<port>\d+))?$/;

/** One WEBHOOK_ALLOWED_HOSTS entry as an allow-list key; throws naming the entry when it is not one. */
function allowListKey(entry: string): string {
  const invalid = (why: string) =>
    new Error(`WEBHOOK_ALLOWED_HOSTS entry "${entry}" ${why}. Entries are host names or IP addresses, each optionally with :port (IPv6 as [::1]:8080).`);
  if (!entry.startsWith('[') && entry.split(':').length > 2) {
    // A bare IPv6 address: its colons leave no room for a port.
    const literal = parseHostLiteral(entry);
    if (literal === null) throw invalid('is not a valid IPv6 address');
    return literal;
  }
  const groups = ENTRY.exec(entry)?.groups;
  if (!groups) throw invalid('is not a host or host:port');
  let host: string;
  if (groups.ipv6 !== undefined) {
    const literal = parseHostLiteral(groups.ipv6);
    if (literal === null || !literal.includes(':')) throw invalid('has brackets around something that is not an IPv6 address');
    host = literal;
  } else {
    host = normalizeHost(groups.host!);
    // A name ending in a number is read as an IPv4 address by URLs, so it must be a valid one.
    if (parseHostLiteral(host) === null && (!HOST_NAME.test(host) || /(^|\.)\d+$/.test(host))) throw invalid('is not a valid host name or IP address');
  }
  if (groups.port === undefined) return host;
  const port = Number(groups.port);
  if (port < 1 || port > 65535) throw invalid(`has the port ${groups.port}, outside 1-65535`);
  return receiverKey(host, port);
}

/**
 * The delivery allow-list from WEBHOOK_ALLOWED_HOSTS: comma-separated host names or IP literals,
 * each either bare (every port of that host) or with :port (that port only; IPv6 as [::1]:8080).
 * Empty by default. It exists for local receivers in development and tests; production refuses
 * to start with it set, so a stray config cannot open the SSRF rules. A malformed entry stops the
 * start with a message naming it.
 */
export function webhookAllowHostsFromEnv(env: NodeJS.ProcessEnv = process.env): ReadonlySet<string> {
  const entries = (env.WEBHOOK_ALLOWED_HOSTS ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length > 0 && env.NODE_ENV === 'production') {
    throw new Error('WEBHOOK_ALLOWED_HOSTS must be empty when NODE_ENV=production: it bypasses the webhook SSRF rules.');
  }
  return new Set(entries.map(allowListKey));
}
