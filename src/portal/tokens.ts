// The portal's secrets and tokens. Random tokens (sessions, sign-in links) are stored only as their
// SHA-256; the forms' CSRF tokens are HMAC-SHA256 under PORTAL_SECRET, or a secret generated once
// into DATA_DIR.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { config } from '../config.js';
import { dataDirSecret } from './domain-calls.js';

let secret: Buffer | undefined;
const signingKey = () => (secret ??= Buffer.from(config.portalSecret ?? dataDirSecret('portal.secret')));

/** The signature of `parts` for one purpose: a value signed for one purpose never passes for another. */
const sign = (purpose: string, ...parts: string[]) => createHmac('sha256', signingKey()).update([purpose, ...parts].join('\n')).digest('base64url');

/** Equal texts, compared in constant time. */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `<prefix>_` and 32 random bytes, base64url. */
export const newToken = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

/** A well-formed random token of that prefix (anything else is looked up nowhere). */
export const isToken = (prefix: string, token: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`).test(token);

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A form's CSRF token, bound to what the browser holds: its session, or before sign-in its form cookie. */
export const csrfToken = (binding: string) => sign('portal-form', binding);
