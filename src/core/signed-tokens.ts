// Tokens that carry their own fields and an HMAC-SHA256 over them, `<field>.<field>…<signature>`
// (base64url): a link that needs no database row to be checked (download URLs, invoice links).
// Fields must not contain dots.
import { createHmac, timingSafeEqual } from 'node:crypto';

const signature = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function signToken(key: Buffer, fields: readonly string[]): string {
  const payload = fields.join('.');
  return `${payload}.${signature(key, payload)}`;
}

/** The token's `count` fields when its signature holds (compared in constant time), else null. */
export function verifyToken(key: Buffer, token: string, count: number): string[] | null {
  const parts = token.split('.');
  if (parts.length !== count + 1) return null;
  const fields = parts.slice(0, count);
  const expected = Buffer.from(signature(key, fields.join('.')));
  const given = Buffer.from(parts[count]!);
  return given.length === expected.length && timingSafeEqual(given, expected) ? fields : null;
}
