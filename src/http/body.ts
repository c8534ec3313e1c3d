import { ApiError } from '../errors.js';
import { checkJson, JSON_LIMITS } from '../graphql/input-limits.js';

// Request bodies (REST writes and POST /graphql): JSON in UTF-8, at most maxBytes, at most
// JSON_LIMITS.depth levels of arrays and objects, and no string that PostgreSQL cannot store.

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** application/json, optionally with charset=utf-8: the only body type the API reads. */
function isJson(contentType: string | null): boolean {
  const [type, ...parameters] = (contentType ?? '').toLowerCase().split(';').map((part) => part.trim());
  if (type !== 'application/json') return false;
  return parameters.every((parameter) => !parameter.startsWith('charset=') || /^charset="?utf-?8"?$/.test(parameter));
}

const hasBody = (headers: Headers) => headers.has('transfer-encoding') || Number(headers.get('content-length') ?? 0) > 0;

const tooLarge = (maxBytes: number) => new ApiError(413, `The request body is larger than ${maxBytes} bytes`);

export interface BodyLimits {
  maxBytes: number;
  /** Closes the request's connection (for a refused body that keeps arriving). */
  cutConnection: () => void;
}

/** How long, and how much more, of a refused body is read and dropped before its connection is cut. */
const DRAIN = { ms: 5_000, bytes: 8 * 1_048_576 };

/**
 * Reads and drops the rest of a refused body: closing a connection the client is still writing
 * to resets it, and the client would see the reset instead of the 413. A body still arriving
 * after DRAIN.ms or DRAIN.bytes has its connection cut.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, cutConnection: () => void): Promise<void> {
  const cut = setTimeout(cutConnection, DRAIN.ms);
  let drained = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      drained += chunk.value.byteLength;
      if (drained > DRAIN.bytes) return cutConnection();
    }
  } catch {
    // The connection went away.
  } finally {
    clearTimeout(cut);
  }
}

/** The body's bytes, refused as soon as they pass maxBytes (also when content-length says so up front). */
async function readBytes(request: Request, { maxBytes, cutConnection }: BodyLimits): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const refuse = () => {
    void drain(reader, cutConnection);
    return tooLarge(maxBytes);
  };
  if (Number(request.headers.get('content-length') ?? 0) > maxBytes) throw refuse();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) throw refuse();
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** A body's raw bytes within maxBytes (413 past it), for a caller that verifies them as sent (a processor webhook's signature). */
export const readRawBody = (request: Request, limits: BodyLimits): Promise<Uint8Array> => readBytes(request, limits);

/** Whether arrays and objects nest deeper than max; a scan of the text, so no depth can overflow a stack. */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // Skip the string: to its closing quote, stepping over escapes.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * The JSON body of a request, or undefined when it has none (or only white space). 415 for a body
 * of another type, 413 past maxBytes, 400 for invalid UTF-8 or JSON, nesting past the limit, or a
 * string holding NUL or a lone surrogate (anywhere, keys and unknown fields included).
 */
async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  if (hasBody(request.headers) && !isJson(request.headers.get('content-type'))) {
    throw new ApiError(415, 'The request body must be JSON: send content-type: application/json (UTF-8)');
  }
  const bytes = await readBytes(request, limits);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ApiError(400, 'The request body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  if (nestsDeeper(text, JSON_LIMITS.depth)) throw new ApiError(400, `The request body nests arrays and objects more than ${JSON_LIMITS.depth} levels deep`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Request body is not valid JSON');
  }
  // Depth is checked above; keys and strings of any length may sit in fields the request ignores.
  checkJson(body, 'body', { depth: Infinity, key: Infinity, string: Infinity });
  return body;
}

/** The JSON body of a request, which must be one JSON object when there is one (400 otherwise); see readJsonBody. */
export async function readJsonObject(request: Request, limits: BodyLimits): Promise<Record<string, unknown> | undefined> {
  const body = await readJsonBody(request, limits);
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'Request body must be a JSON object');
  return body as Record<string, unknown>;
}
