// The hand-written S3 download path the service used before issue 37, kept here only as the
// baseline of `npm run bench:storage` (docs/decisions.md, "Storage through its SDK"): one HTTP/1.1
// GET over a socket of our own, read into a few buffers of the request (the socket's `onread`)
// rather than the per-read buffers Node's HTTP client allocates. `Connection: close`, a
// Content-Length body only, no retries.
import net from 'node:net';
import tls from 'node:tls';
import type { ChunkSource } from '../src/delivery/reused-buffer-body.js';

export interface SocketAnswer {
  status: number;
  /** Names in lower case; a repeated header's values joined with ", ". */
  headers: Map<string, string>;
  /** The body as it arrives; it fails when the answer ends before its Content-Length. */
  body: ChunkSource;
}

// The status line and headers; an answer whose head is longer is refused.
const HEAD_LIMIT = 64 * 1024;
// The socket asks for the buffer of its next read right after each read, while that read's chunk
// is still queued: TCP needs a second buffer, and stops reading at once when paused. TLS first
// hands over all it decrypted from one TCP read (four or five 16 KiB records), each into the next
// buffer, before it pauses. 128 KiB per download either way.
const TCP_BUFFERS = { count: 2, bytes: 64 * 1024 };
const TLS_BUFFERS = { count: 8, bytes: 16 * 1024 };

function parseHead(head: string): { status: number; headers: Map<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine!)?.[1];
  if (!status) throw new Error(`The storage answered something other than HTTP/1.1: ${JSON.stringify(statusLine!.slice(0, 100))}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`The storage answered a malformed header: ${JSON.stringify(line.slice(0, 100))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { status: Number(status), headers };
}

/**
 * GETs `url` (http or https) with `headers`; resolves once the status and headers are in. Each of
 * `timeoutMs` bounds connecting and answering, and every wait for more of the body (not the time
 * the reader takes: the socket is paused meanwhile). The body hands out each chunk in one of this
 * request's buffers and reads on only when asked for the next, which gives the last one's back.
 */
export function getOverSocket(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<SocketAnswer> {
  const secure = url.protocol === 'https:';
  const { count, bytes } = secure ? TLS_BUFFERS : TCP_BUFFERS;
  const memory = Buffer.allocUnsafe(count * bytes);
  const buffers = Array.from({ length: count }, (_, i) => memory.subarray(i * bytes, (i + 1) * bytes));
  // Buffers whose bytes are queued or handed out (not to be read into).
  const held = new Set<Uint8Array>();
  const queue: { chunk: Buffer; buffer: Uint8Array }[] = [];
  let lent: Uint8Array | undefined;
  let head = '';
  let answered: ((answer: SocketAnswer) => void) | undefined;
  let refused: (error: Error) => void = () => undefined;
  let remaining = Infinity;
  let complete = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;

  const fail = (error: Error) => {
    if (complete || failure) return;
    failure = error;
    socket.destroy();
    refused(error);
    wake?.();
  };

  const received = (nread: number, buffer: Uint8Array): boolean => {
    let data = Buffer.from(buffer.buffer, buffer.byteOffset, nread);
    if (answered) {
      const before = head.length;
      head += data.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > HEAD_LIMIT) fail(new Error(`The storage's answer has a head longer than ${HEAD_LIMIT} bytes`));
        return true;
      }
      data = data.subarray(end + 4 - before);
      let parsed: ReturnType<typeof parseHead>;
      try {
        parsed = parseHead(head.slice(0, end));
      } catch (error) {
        fail(error as Error);
        return false;
      }
      const encoding = parsed.headers.get('transfer-encoding');
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
        fail(new Error(`The storage answered with Transfer-Encoding: ${encoding}, which this reader does not take (a GetObject answer has a Content-Length)`));
        return false;
      }
      const length = parsed.headers.get('content-length');
      if (length !== undefined) {
        if (!/^\d+$/.test(length)) {
          fail(new Error(`The storage answered a malformed Content-Length: ${length}`));
          return false;
        }
        remaining = Number(length);
        complete = remaining === 0;
      }
      const answer = answered;
      answered = undefined;
      answer({ ...parsed, body });
    }
    if (data.length > remaining) {
      fail(new Error(`The storage sent more than its Content-Length`));
      return false;
    }
    if (data.length > 0) {
      remaining -= data.length;
      complete = remaining === 0;
      queue.push({ chunk: data, buffer });
      held.add(buffer);
      wake?.();
    }
    // Paused while a chunk waits for the reader: the next read would go into a buffer it may hold.
    return queue.length === 0;
  };

  const host = url.hostname.replace(/^\[|\]$/g, '');
  const onread = {
    // Asked before each read: a buffer nobody holds; none free (TLS handing over more than expected), a one-off.
    buffer: () => buffers.find((buffer) => !held.has(buffer)) ?? Buffer.allocUnsafe(bytes),
    callback: received,
  };
  const options = { host, port: Number(url.port) || (secure ? 443 : 80), onread };
  const socket: net.Socket = secure ? tls.connect({ ...options, servername: net.isIP(host) ? undefined : host }) : net.connect(options);
  socket.setTimeout(timeoutMs);
  socket.on('timeout', () => fail(new Error(`The storage sent nothing for ${timeoutMs} ms`)));
  socket.on('error', fail);
  socket.on('end', () => {
    if (answered) fail(new Error('The storage closed the connection without answering'));
    else if (remaining === Infinity) complete = true;
    else fail(new Error(`The storage's answer ended ${remaining} bytes short of its Content-Length`));
    wake?.();
  });
  socket.on('close', () => fail(new Error('The storage closed the connection')));

  const body: ChunkSource = {
    next() {
      if (lent) held.delete(lent);
      lent = undefined;
      return new Promise<Buffer | null>((resolve, reject) => {
        const settled = () => {
          const first = queue.shift();
          if (first) {
            lent = first.buffer;
            resolve(first.chunk);
          } else if (failure) reject(failure);
          else if (complete) resolve(null);
          else return false;
          wake = undefined;
          socket.setTimeout(0);
          return true;
        };
        if (settled()) return;
        wake = settled;
        socket.setTimeout(timeoutMs);
        socket.resume();
      });
    },
    async close() {
      fail(new Error('The download was closed'));
      socket.destroy();
    },
  };

  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), 'Connection: close'];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  return new Promise<SocketAnswer>((resolve, reject) => {
    answered = resolve;
    refused = reject;
  });
}
