// License keys at rest: a database dump alone reveals no key. Each value is encrypted with
// AES-256-GCM (random 96-bit iv; the product id is the additional data, so a ciphertext moved to
// another product's row does not open) and fingerprinted with HMAC-SHA256 (the duplicates check
// without decrypting). Both keys are derived (HKDF-SHA256) from one secret: LICENSE_KEY_SECRET,
// or, unset, a random one generated once into DATA_DIR/license-key.secret (mode 0600) and read by
// every process on that DATA_DIR. Losing the secret loses the stored keys: back it up with the
// database, and set LICENSE_KEY_SECRET wherever processes do not share a DATA_DIR.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { config } from '../config.js';
import { dataDirSecret } from './secrets.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

interface VaultKeys {
  cipher: Buffer;
  fingerprint: Buffer;
}

let keys: VaultKeys | undefined;

function vaultKeys(): VaultKeys {
  if (!keys) {
    const secret = config.licenseKeySecret ?? dataDirSecret('license-key.secret');
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'commerce-api license keys', info, 32));
    keys = { cipher: derive('encryption'), fingerprint: derive('fingerprint') };
  }
  return keys;
}

/** The stored form of a key of a product. */
export function sealKey(productId: string, value: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', vaultKeys().cipher, iv);
  cipher.setAAD(Buffer.from(productId));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body]));
}

/** The value of a stored key; throws when it was not sealed for this product under this secret. */
export function openKey(productId: string, sealed: Uint8Array): string {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', vaultKeys().cipher, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(productId));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** Equal for equal values of one product: the unique index that refuses duplicates. */
export function keyFingerprint(productId: string, value: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHmac('sha256', vaultKeys().fingerprint).update(`${productId}\n${value}`).digest());
}
