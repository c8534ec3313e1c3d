// Webhook signature verification (Standard Webhooks): the signature is HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<raw body>" with the endpoint's secret (whsec_ + base64), sent
// as one or more "v1,<base64>" in webhook-signature. The timestamp must be within the tolerance
// (replays of old deliveries are refused). Web Crypto only: runs in Node 20+, Deno, Bun, browsers.

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (tests). */
  now?: number;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The bytes of base64 text; none when it is not base64. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/**
 * Verifies a delivery and returns its parsed JSON payload; throws WebhookVerificationError when
 * a header is missing, the timestamp is outside the tolerance or no signature matches. `body` is
 * the raw request body exactly as received (parse it only after verifying).
 */
export async function verifyWebhook<T = unknown>(secret: string, body: string, headers: HeaderBag, options: VerifyOptions = {}): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('The webhook timestamp is outside the tolerance');
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('The secret is not in the whsec_ format');
  const key = await crypto.subtle.importKey('raw', fromBase64(secret.slice('whsec_'.length)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature !== undefined && equal(fromBase64(signature), expected);
  });
  if (!matches) throw new WebhookVerificationError('No webhook signature matches');
  return JSON.parse(body) as T;
}
