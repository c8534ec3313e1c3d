// The documents' links for buyers: `/invoices/{token}` (the HTML page) and `/invoices/{token}/pdf`,
// signed and expiring as download URLs are (HMAC-SHA256 under a key derived from
// DOWNLOAD_URL_SECRET, or the secret generated into DATA_DIR), so a receipt email links them with
// no key. Minted whenever a document is read; serving one writes nothing.
import { createHmac } from 'node:crypto';
import { config } from '../config.js';
import { signToken, verifyToken } from '../core/signed-tokens.js';
import { isUuid } from '../core/uuid.js';
import { dataDirSecret } from './domain-calls.js';

export const DOCUMENT_PATH = '/invoices';
/** Stripe's hosted invoice links last 30 days; a receipt email read a month later still opens. */
export const LINK_TTL_SECONDS = 30 * 24 * 60 * 60;

let key: Buffer | undefined;
// Derived, so a download token can never pass for a document's and the other way round.
const signingKey = () => (key ??= createHmac('sha256', config.downloads.urlSecret ?? dataDirSecret('download-url.secret')).update('invoice-links').digest());

/** `<documentId>.<expiry>.<signature>`. */
const token = (documentId: string, expiresAt: number) => signToken(signingKey(), [documentId, String(expiresAt)]);

/** The document a token names and its expiry (unix seconds), or null when the signature does not hold. */
export function readDocumentToken(value: string): { documentId: string; expiresAt: number } | null {
  const fields = verifyToken(signingKey(), value, 2);
  if (!fields) return null;
  const [documentId, expiry] = fields as [string, string];
  if (!isUuid(documentId) || !/^\d{1,12}$/.test(expiry)) return null;
  return { documentId, expiresAt: Number(expiry) };
}

/** Where a document is reached from `origin` (PUBLIC_BASE_URL wins), valid LINK_TTL_SECONDS from `now`. */
export function documentLinks(documentId: string, origin: string, now: Date): { url: string; pdfUrl: string; linksExpireAt: number } {
  const expiresAt = Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS;
  const url = `${config.publicBaseUrl ?? origin}${DOCUMENT_PATH}/${token(documentId, expiresAt)}`;
  return { url, pdfUrl: `${url}/pdf`, linksExpireAt: expiresAt };
}
