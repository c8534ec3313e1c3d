// HTTP's rules for serving a stored file (RFC 9110): a single byte range (several ranges are
// answered with the whole file, which the RFC allows), If-Range, If-None-Match and
// If-Modified-Since, and a Content-Disposition that carries any file name.
import type { ByteRange } from './storage.js';

/** Whether a validator list (If-None-Match, If-Range) names this entity tag (weak comparison, as If-None-Match uses). */
const namesTag = (header: string, etag: string) => header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);

/** A conditional GET the client's copy satisfies (304): If-None-Match wins over If-Modified-Since. */
export function notModified(headers: Headers, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) return namesTag(ifNoneMatch, etag);
  const since = Date.parse(headers.get('if-modified-since') ?? '');
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}

/**
 * The byte range to send: null for the whole file (no Range, an If-Range that no longer holds, a
 * Range header that is not one bytes range), 'unsatisfiable' for a range outside the file (416).
 */
export function parseRange(headers: Headers, size: number, etag: string, lastModified: Date): ByteRange | null | 'unsatisfiable' {
  const header = headers.get('range');
  if (!header) return null;
  const ifRange = headers.get('if-range');
  if (ifRange !== null) {
    // If-Range takes a strong tag or a date; anything else means "send it all".
    const holds = ifRange.startsWith('"') ? ifRange === etag : Date.parse(ifRange) >= lastModified.getTime();
    if (!holds) return null;
  }
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || (last !== '' && Number(last) < start)) return 'unsatisfiable';
  return { start, end };
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 encoding. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
