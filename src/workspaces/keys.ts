import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Key format: pk_<mode>_<32 base64url chars> / sk_<mode>_<43 base64url chars> (192 / 256 random bits).
// The mode is part of the key so a leaked key tells at a glance whether it can touch live data.
export type KeyMode = 'live' | 'test';

const PUBLIC_KEY = /^pk_(live|test)_[A-Za-z0-9_-]{32}$/;
const SECRET_KEY = /^sk_(live|test)_[A-Za-z0-9_-]{43}$/;

export function generateKeyPair(mode: KeyMode): { publicKey: string; secretKey: string } {
  return {
    publicKey: `pk_${mode}_${randomBytes(24).toString('base64url')}`,
    secretKey: `sk_${mode}_${randomBytes(32).toString('base64url')}`,
  };
}

export const isWellFormedPublicKey = (value: string) => PUBLIC_KEY.test(value);
export const isWellFormedSecretKey = (value: string) => SECRET_KEY.test(value);

/** Secrets carry 256 random bits, so a plain SHA-256 is a safe one-way store (no slow KDF needed). */
export function hashSecretKey(secretKey: string): string {
  return createHash('sha256').update(secretKey).digest('hex');
}

/** Constant-time check of a presented secret against the stored hash. */
export function secretKeyMatches(secretKey: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecretKey(secretKey), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
