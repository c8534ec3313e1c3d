import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

import { TemporarilyUnavailable } from '../src/core/errors.js';
import { s3Storage } from '../src/delivery/s3-storage.js';
import { localStorage, StoredFileMissing } from '../src/delivery/storage.js';

// Local download bodies reuse their buffer (ReusedBufferBody): piped, a destination that holds on
// to a chunk until its write callback must still receive every byte as stored, also when it writes
// slowly; read otherwise, a body is an ordinary stream. The S3 driver is the SDK's GetObject
// stream, here against storages that answer as told: retried where S3 says to retry, a short or
// failing answer fails the download, never ends it as if complete.

const MIB = 1_048_576;
let root: string;
const storage = () => localStorage(root);
const key = () => `${randomUUID()}/${randomUUID()}`;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'storage-test-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A destination that keeps each chunk as given (no copy) and copies it only when it "reaches the socket", later. */
function slowSink(): { sink: Writable; received: () => Buffer } {
  const parts: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      void sleep(Math.random() < 0.2 ? 2 : 0).then(() => {
        parts.push(Buffer.from(chunk));
        callback();
      });
    },
  });
  return { sink, received: () => Buffer.concat(parts) };
}

async function piped(body: Readable): Promise<Buffer> {
  const { sink, received } = slowSink();
  body.pipe(sink);
  await new Promise((resolve, reject) => sink.on('finish', resolve).on('error', reject));
  return received();
}

test('piped: every byte as stored, whole and in ranges, through a slow destination', async () => {
  const bytes = randomBytes(3 * MIB + 12_345);
  const k = key();
  await storage().write(k, Readable.from([bytes]));
  expect((await piped(await storage().read(k))).equals(bytes)).toBe(true);
  expect((await piped(await storage().read(k, { start: 70_000, end: 2 * MIB }))).equals(bytes.subarray(70_000, 2 * MIB + 1))).toBe(true);
  expect((await piped(await storage().read(k, { start: bytes.length - 1, end: bytes.length - 1 }))).equals(bytes.subarray(-1))).toBe(true);
});

test('read as an ordinary stream: the same bytes; an empty file is an empty body; a missing one is StoredFileMissing', async () => {
  const bytes = randomBytes(MIB + 1);
  const k = key();
  await storage().write(k, Readable.from([bytes]));
  const chunks: Buffer[] = [];
  for await (const chunk of await storage().read(k, { start: 1, end: MIB })) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).equals(bytes.subarray(1, MIB + 1))).toBe(true);

  const empty = key();
  await storage().write(empty, Readable.from([Buffer.alloc(0)]));
  expect((await piped(await storage().read(empty))).length).toBe(0);
  await expect(storage().read(key())).rejects.toBeInstanceOf(StoredFileMissing);
});

test('a destination gone mid-file stops the reads and closes the file', async () => {
  const k = key();
  await storage().write(k, Readable.from([randomBytes(4 * MIB)]));
  const body = await storage().read(k);
  let written = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written += chunk.length;
      if (written > MIB) return callback(new Error('the buyer went away'));
      callback();
    },
  });
  sink.on('error', () => undefined);
  body.pipe(sink);
  await new Promise((resolve) => body.on('close', resolve));
  expect(written).toBeLessThan(2 * MIB);
  expect(body.destroyed).toBe(true);
});

describe("the S3 driver (the SDK's GetObject stream) against storages that answer as told", () => {
  const servers: net.Server[] = [];
  const sockets: net.Socket[] = [];
  afterEach(async () => {
    // Kept-alive connections would hold the servers open.
    for (const socket of sockets.splice(0)) socket.destroy();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });
  const settings = { bucket: 'files', region: 'us-east-1', credentials: { accessKeyId: 'AKTEST', secretAccessKey: 'secret' }, forcePathStyle: true, keyPrefix: 'p/', redirectSeconds: 0 };
  const driver = (endpoint: string) => s3Storage({ ...settings, endpoint }, MIB);

  /** A storage that answers the n-th request (from 0, over any connection) as `answer` writes; `requests` gets each request's head. */
  async function storage(answer: (socket: net.Socket, n: number) => void) {
    const requests: string[] = [];
    const connections: net.Socket[] = [];
    const server = net.createServer((socket) => {
      connections.push(socket);
      sockets.push(socket);
      socket.on('error', () => undefined);
      let pending = '';
      socket.on('data', (chunk: Buffer) => {
        pending += chunk.toString('latin1');
        for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
          requests.push(pending.slice(0, end + 4));
          pending = pending.slice(end + 4);
          answer(socket, requests.length - 1);
        }
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, requests, connections };
  }
  /** An answer: `end` closes the connection after it, else it stays open for the next request (or for a body that never ends). */
  const answerWith = (head: string, body: Buffer = Buffer.alloc(0), end = true) => (socket: net.Socket) => {
    socket.write(head.replaceAll('\n', '\r\n') + '\r\n');
    if (end) socket.end(body);
    else socket.write(body);
  };
  const k = key();

  test('a range arrives whole through a slow destination: a signed path-style GET with the Range; the next read reuses the connection', async () => {
    const bytes = randomBytes(5 * MIB + 321);
    const { url, requests, connections } = await storage(answerWith(`HTTP/1.1 206 Partial Content\nContent-Length: ${bytes.length}\nContent-Range: bytes 7-${bytes.length + 6}/9999999\n`, bytes, false));
    const range = { start: 7, end: bytes.length + 6 };
    const s3 = driver(url);
    expect((await piped(await s3.read(k, range))).equals(bytes)).toBe(true);
    expect(requests[0]).toMatch(new RegExp(`^GET /files/p/${k}\\?x-id=GetObject HTTP/1.1\r\n`));
    expect(requests[0]).toContain(`\r\nrange: bytes=7-${bytes.length + 6}\r\n`);
    expect(requests[0]).toMatch(/\r\nauthorization: AWS4-HMAC-SHA256 Credential=AKTEST\/[^\r]*SignedHeaders=[^\r]*range/);
    await piped(await s3.read(k, range));
    // A kept-alive connection: the hand-written reader opened one per request.
    expect([requests.length, connections.length]).toEqual([2, 1]);
  });

  test("S3's 503 SlowDown and a connection reset before the first byte are retried; a chunked answer is taken", async () => {
    const slowDown = '<?xml version="1.0"?><Error><Code>SlowDown</Code></Error>';
    const { url, requests } = await storage((socket, n) => {
      if (n === 0) return answerWith(`HTTP/1.1 503 Slow Down\nContent-Length: ${slowDown.length}\n`, Buffer.from(slowDown))(socket);
      if (n === 1) return void socket.destroy();
      answerWith('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n', Buffer.from('5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'))(socket);
    });
    expect((await piped(await driver(url).read(k))).toString()).toBe('hello world');
    expect(requests).toHaveLength(3);
  });

  test('an answer that ends short of its Content-Length fails the download: the destination is never ended', async () => {
    const { url } = await storage(answerWith('HTTP/1.1 200 OK\nContent-Length: 300000\n', randomBytes(200_000)));
    const body = await driver(url).read(k);
    const { sink } = slowSink();
    body.pipe(sink);
    await once(body, 'error');
    expect(sink.writableEnded).toBe(false);
  });

  test('a download closed mid-answer (the buyer went away) closes the connection to the storage', async () => {
    const { url, connections } = await storage(answerWith(`HTTP/1.1 200 OK\nContent-Length: ${64 * MIB}\n`, randomBytes(MIB), false));
    const body = await driver(url).read(k);
    const closed = new Promise((resolve) => connections[0]!.on('close', resolve));
    body.once('data', () => body.destroy());
    await closed;
    expect(body.destroyed).toBe(true);
  });

  test('404 is StoredFileMissing; a lasting 5xx, a 403, an unreachable storage and an answer for another range are TemporarilyUnavailable', async () => {
    const error = '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>';
    const missing = await storage(answerWith(`HTTP/1.1 404 Not Found\nContent-Length: ${error.length}\n`, Buffer.from(error)));
    await expect(driver(missing.url).read(k)).rejects.toBeInstanceOf(StoredFileMissing);
    for (const status of ['500 Internal Server Error', '503 Slow Down', '403 Forbidden']) {
      const failing = await storage(answerWith(`HTTP/1.1 ${status}\nContent-Length: 0\n`));
      await expect(driver(failing.url).read(k)).rejects.toBeInstanceOf(TemporarilyUnavailable);
      // Retried (three attempts) only where retrying can help.
      expect(failing.requests).toHaveLength(status.startsWith('403') ? 1 : 3);
    }
    const wholeForARange = await storage(answerWith('HTTP/1.1 200 OK\nContent-Length: 10\n', Buffer.from('0123456789')));
    await expect(driver(wholeForARange.url).read(k, { start: 2, end: 3 })).rejects.toBeInstanceOf(TemporarilyUnavailable);
    await expect(driver('http://127.0.0.1:9').read(k)).rejects.toBeInstanceOf(TemporarilyUnavailable);
  });

  test('with S3_PRESIGNED_REDIRECT_SECONDS, a presigned GetObject URL carrying our name and type, valid that long', async () => {
    const url = await s3Storage({ ...settings, endpoint: 'http://127.0.0.1:9', redirectSeconds: 60 }, MIB).redirectUrl!(k, { fileName: 'Handbuch – v1.pdf', contentType: 'application/pdf' });
    const signed = new URL(url);
    expect(signed.pathname).toBe(`/files/p/${k}`);
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(signed.searchParams.get('response-content-type')).toBe('application/pdf');
    expect(signed.searchParams.get('response-content-disposition')).toBe(`attachment; filename="Handbuch ? v1.pdf"; filename*=UTF-8''Handbuch%20%E2%80%93%20v1.pdf`);
    expect(s3Storage({ ...settings, endpoint: 'http://127.0.0.1:9' }, MIB).redirectUrl).toBeUndefined();
  });
});
