import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidProcessorSignature } from './processor.js';

// The sandbox signs its webhooks as Stripe does (stripe-signature): `t=<unix seconds>,v1=<hex
// HMAC-SHA256(secret, "<t>.<raw body>")>`. The timestamp inside the signed text bounds replays.

export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';
/** Stripe's default tolerance: a delivery older (or newer) than this is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function signSandboxPayload(secret: string, body: string, now: Date): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${hmac(secret, timestamp, body)}`;
}

/** Throws InvalidProcessorSignature unless one v1 signature matches and the timestamp is recent. */
export function verifySandboxSignature(secret: string, body: string, header: string | undefined, now: Date): void {
  if (!header) throw new InvalidProcessorSignature(`Missing ${SANDBOX_SIGNATURE_HEADER} header`);
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([key]) => key === 't')?.[1]);
  const signatures = parts.filter(([key, value]) => key === 'v1' && value).map(([, value]) => value!);
  if (!Number.isInteger(timestamp) || signatures.length === 0) throw new InvalidProcessorSignature('Malformed signature header');
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new InvalidProcessorSignature('No signature matches the payload');
  if (Math.abs(now.getTime() / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS) {
    throw new InvalidProcessorSignature('Signature timestamp outside the tolerance');
  }
}
