import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { validateWebhookUrl, type BlockReason, type Resolver } from './ssrf.js';

// One webhook POST, following the spec's delivery rules (Events §5): 25 s to answer, 2xx is
// success, 307/308 followed up to 3 hops, anything else a failure. Every hop is vetted by the
// SSRF rules and the socket is opened to the vetted addresses only.

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface DeliveryOptions {
  allowHosts: ReadonlySet<string>;
  /** Budget for the whole delivery, redirects and DNS included. */
  timeoutMs?: number;
  maxRedirects?: number;
  resolve?: Resolver;
}

export type DeliveryOutcome =
  | { kind: 'delivered'; statusCode: number; responseBody: unknown | null }
  | { kind: 'failed'; statusCode: number | null; responseBody: unknown | null; error: string }
  /** statusCode and responseBody are the redirect's that led to the blocked URL; null for the webhook's own URL. */
  | { kind: 'blocked'; statusCode: number | null; responseBody: unknown | null; reason: BlockReason; message: string };

/** Larger response bodies are not stored (responseBody null); receivers should answer briefly. */
const MAX_RESPONSE_BYTES = 64 * 1024;

interface HopResponse {
  statusCode: number;
  location: string | undefined;
  body: unknown | null;
}

/** Whether an endpoint's status code counts as a delivery: any 2xx. */
export const isSuccess = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;

export async function deliver(request: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryOutcome> {
  const timeoutMs = options.timeoutMs ?? 25_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let target = request.url;
    // The redirect that named the target, if any: a blocked target is recorded with its status.
    let redirect: HopResponse | undefined;
    const blocked = (reason: BlockReason, message: string): DeliveryOutcome =>
      ({ kind: 'blocked', statusCode: redirect?.statusCode ?? null, responseBody: redirect?.body ?? null, reason, message });
    for (let redirects = 0; ; redirects++) {
      // Resolved afresh for each hop, port included: a URL accepted at create time may point elsewhere by now.
      const vetted = await untilAborted(validateWebhookUrl(target, options), controller.signal);
      if (!vetted.ok) return blocked(vetted.reason, vetted.message);

      const response = await post(vetted.url, vetted.addresses, request, controller.signal);
      const { statusCode, location, body } = response;
      if (isSuccess(statusCode)) return { kind: 'delivered', statusCode, responseBody: body };

      const failed = (error: string): DeliveryOutcome => ({ kind: 'failed', statusCode, responseBody: body, error });
      // Only 307/308 keep the method and body, so only they can carry a webhook onwards.
      if (statusCode !== 307 && statusCode !== 308) {
        return failed(statusCode >= 300 && statusCode < 400 ? `redirect ${statusCode} is not followed (only 307 and 308 are)` : `HTTP ${statusCode}`);
      }
      if (location === undefined) return failed(`redirect ${statusCode} without a Location header`);
      if (redirects >= maxRedirects) return failed(`more than ${maxRedirects} redirects`);
      redirect = response;
      try {
        target = new URL(location, vetted.url).href;
      } catch {
        return blocked('malformed_url', `The redirect target "${location}" is not a valid URL.`);
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return { kind: 'failed', statusCode: null, responseBody: null, error: `timed out after ${timeoutMs} ms` };
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: 'failed', statusCode: null, responseBody: null, error: `connection failed: ${code ?? (error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

function post(url: URL, addresses: string[], request: DeliveryRequest, signal: AbortSignal): Promise<HopResponse> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const body = Buffer.from(request.body);
  // The request keeps the original host name (Host header, TLS SNI and certificate check) while
  // the lookup hook hands the socket the vetted addresses, so no second DNS query can happen.
  // IP literals are never looked up by Node, and they are their own vetted address.
  const isName = net.isIP(host) === 0;
  const common = {
    method: 'POST',
    hostname: host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...request.headers, 'content-length': String(body.length) },
    // A pooled socket could have been opened to an address vetted for an earlier hop.
    agent: false,
    signal,
    lookup: isName ? pinnedLookup(addresses) : undefined,
  };
  return new Promise((resolve, reject) => {
    const onResponse = (response: IncomingMessage) => {
      readBody(response).then(
        (text) => resolve({ statusCode: response.statusCode ?? 0, location: response.headers.location, body: parseJson(text) }),
        reject,
      );
    };
    const req =
      url.protocol === 'https:'
        ? https.request({ ...common, servername: isName ? host : undefined }, onResponse)
        : http.request(common, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
  return (_hostname, options, callback) => {
    // Node asks for all addresses when it races IPv4/IPv6 (autoSelectFamily); all are vetted.
    if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
}

/** The body as text, or null when it exceeds the cap. */
async function readBody(response: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string | null): unknown | null {
  if (text === null || text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Rejects when the delivery budget runs out, so a hanging resolver cannot stall a delivery. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
