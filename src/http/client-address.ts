// Who a request comes from, for the budgets per client address (the edge limit, the license key
// checks). X-Forwarded-For names the client only through proxies the operator trusts
// (TRUST_PROXY): the header is read from its right end, each trusted hop's entry naming the hop
// before it, and the first address that is not a trusted proxy is the client. What a client
// writes into the header itself lies left of that and is never read.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Whether `address`, `hop` steps from us (0: the connection's peer), is a proxy we trust. */
export type TrustedProxies = (address: Address, hop: number) => boolean;

const USAGE = 'TRUST_PROXY must be false, true (the connection peer alone is a proxy) or a comma-separated list of proxy addresses and CIDR ranges, e.g. 127.0.0.1,10.0.0.0/8';

/** An address as one spelling: IPv4-mapped IPv6 (::ffff:10.0.0.1) as IPv4. */
function parseAddress(text: string): Address | undefined {
  return ipaddr.isValid(text) ? ipaddr.process(text) : undefined;
}

/**
 * TRUST_PROXY: unset or `false` trusts no proxy (the connection's peer is the client); `true`
 * trusts the peer alone, whatever its address (one load balancer in front, Express's `trust proxy`
 * of 1); a list trusts those addresses and ranges at any hop. Anything else stops the start.
 */
export function trustedProxiesFromEnv(raw: string | undefined): TrustedProxies {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return () => false;
  if (value === 'true') return (_address, hop) => hop === 0;
  const ranges = value.split(',').map((entry): [Address, number] => {
    const text = entry.trim();
    try {
      if (text.includes('/')) {
        const [address, bits] = ipaddr.parseCIDR(text);
        return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? [(address as ipaddr.IPv6).toIPv4Address(), bits - 96] : [address, bits];
      }
    } catch {
      throw new Error(`${USAGE}; not ${JSON.stringify(text)}`);
    }
    const address = parseAddress(text);
    if (!address) throw new Error(`${USAGE}; not ${JSON.stringify(text)}`);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
  return (address) => ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/**
 * The client's address: the peer's, or through trusted proxies the rightmost X-Forwarded-For
 * entry that is not one. An entry that is not an address ends the walk at the hop that sent it.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trusted: TrustedProxies): string {
  const peerAddress = peer === undefined ? undefined : parseAddress(peer);
  if (!peerAddress) return peer ?? 'unknown';
  const forwarded = forwardedFor?.split(',').map((entry) => entry.trim()).reverse() ?? [];
  let client = peerAddress;
  for (let hop = 0; trusted(client, hop) && hop < forwarded.length; hop++) {
    const before = parseAddress(forwarded[hop]!);
    if (!before) break;
    client = before;
  }
  return client.toString();
}

/**
 * The key a client address is counted under: an IPv4 address itself, an IPv6 address's /64 (one
 * subscriber's network: a host picks any address in it at will).
 */
export function addressBucket(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed || parsed.kind() === 'ipv4') return address;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
