// The portal's secrets and tokens. Random tokens (sessions, emailed sign-in links) are stored only
// as their SHA-256; signed values (the sign-in grants of portal links, the forms' CSRF tokens) are
// HMAC-SHA256 under PORTAL_SECRET, or a secret generated once into DATA_DIR.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { config } from '../config.js';
import { dataDirSecret } from './domain-calls.js';

let secret: Buffer | undefined;
const signingKey = () => (secret ??= Buffer.from(config.portalSecret ?? dataDirSecret('portal.secret')));

/** The signature of `parts` for one purpose: a value signed for one purpose never passes for another. */
export const sign = (purpose: string, ...parts: string[]) => createHmac('sha256', signingKey()).update([purpose, ...parts].join('\n')).digest('base64url');

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

/** How long the sign-in grant of a link from GET /v0/portal/url works. */
const LINK_GRANT_SECONDS = 60 * 60;

/** The `signin` value of a portal link: the buyer and the expiry, signed with the workspace. */
export function linkGrant(workspaceId: string, userId: string, now: Date): string {
  const expires = String(Math.floor(now.getTime() / 1000) + LINK_GRANT_SECONDS);
  return `${userId}.${expires}.${sign('portal-link', workspaceId, userId, expires)}`;
}

/** The buyer a grant signs in to this workspace, 'expired', or null for anything not signed here for it. */
export function readLinkGrant(workspaceId: string, grant: string, now: Date): { userId: string } | 'expired' | null {
  const parts = grant.split('.');
  if (parts.length !== 3) return null;
  const [userId, expires, signature] = parts as [string, string, string];
  if (!/^\d{1,12}$/.test(expires) || !sameText(signature, sign('portal-link', workspaceId, userId, expires))) return null;
  return Number(expires) * 1000 <= now.getTime() ? 'expired' : { userId };
}

/** A form's CSRF token, bound to what the browser holds: its session, or before sign-in its form cookie. */
export const csrfToken = (binding: string) => sign('portal-form', binding);
