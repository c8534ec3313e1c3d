// HTTP's rules for serving a stored file (RFC 9110) through the libraries that own them: Range by
// `range-parser`, conditional requests by `fresh`, Content-Disposition by `content-disposition`.
// Only If-Range is ours (range-parser leaves it to the server; it is what `send` does).
import { create } from 'content-disposition';
import fresh from 'fresh';
import { combineRanges, parse } from 'range-parser';
import type { ByteRange } from './storage.js';

/** A conditional GET or HEAD the client's copy satisfies (304): If-None-Match wins over If-Modified-Since. */
export function notModified(headers: Headers, etag: string, lastModified: Date): boolean {
  const request = { 'if-none-match': headers.get('if-none-match') ?? undefined, 'if-modified-since': headers.get('if-modified-since') ?? undefined };
  return fresh(request, { etag, 'last-modified': lastModified.toUTCString() });
}

/** If-Range (a strong tag or a date) still names this file: else the Range is ignored and the whole file sent. */
function rangeStillFresh(ifRange: string | null, etag: string, lastModified: Date): boolean {
  if (ifRange === null) return true;
  if (ifRange.includes('"')) return ifRange.trim() === etag;
  return Date.parse(ifRange) >= lastModified.getTime();
}

/**
 * The byte range to send: null for the whole file (no Range, an If-Range that no longer holds, a
 * unit other than bytes, a malformed or reversed range, several ranges that do not merge into one),
 * 'unsatisfiable' for a range wholly outside the file (416). RFC 9110 §14.2: a server may ignore a
 * Range it cannot or will not serve, and an invalid one (`bytes=9-3`) is such.
 */
export function parseRange(headers: Headers, size: number, etag: string, lastModified: Date): ByteRange | null | 'unsatisfiable' {
  const header = headers.get('range');
  if (!header || !rangeStillFresh(headers.get('if-range'), etag, lastModified)) return null;
  const parsed = parse(size, header);
  // Bit 1: a malformed (or reversed) range-spec; the unit compared as the library lowercases it.
  if (parsed.type !== 'bytes' || parsed.code & 1) return null;
  if (parsed.ranges.length === 0) return parsed.code & 2 ? 'unsatisfiable' : null;
  // Several ranges are answered with the whole file (RFC 9110 allows it), unless they are one in effect.
  const merged = combineRanges(parsed.ranges);
  return merged.length === 1 ? { start: merged[0]!.start, end: merged[0]!.end } : null;
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 8187 encoding where it is not ASCII. */
export const contentDisposition = (fileName: string): string => create(fileName);
