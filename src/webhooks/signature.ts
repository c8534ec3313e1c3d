import { createHmac } from 'node:crypto';

// Standard Webhooks signing (https://www.standardwebhooks.com): the receiver recomputes
// HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>" with the webhook's secret key and
// compares it with the v1 signature. Any Standard Webhooks library verifies these deliveries.

export const USER_AGENT = 'CommerceAPI-Webhooks/0';

/** A Standard Webhooks secret is this prefix and the base64 of the HMAC key. */
export const SECRET_PREFIX = 'whsec_';

/** The HMAC key bytes of a secret in the whsec_ format, or null when it is not one. */
export function secretKey(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  // Only canonical base64 (what encoding the key gives back), so one key has one spelling.
  return key.toString('base64') === encoded ? key : null;
}

/** `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`; timestamp in Unix seconds. */
export function sign(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The headers of one delivery try. webhook-id is the event id on every try, so a receiver
 * deduplicates retries on it; the timestamp (and so the signature) is fresh on each try.
 * x-svc-signature carries the same value as webhook-signature (the contract's header name).
 */
export function deliveryHeaders(key: Buffer, eventId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signature = sign(key, eventId, timestamp, body);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
    'x-svc-signature': signature,
  };
}
