import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';

import { TemporarilyUnavailable } from '../src/core/errors.js';
import { ReusedBufferBody } from '../src/delivery/reused-buffer-body.js';
import { getOverSocket } from '../src/delivery/storage-socket.js';
import { s3Storage } from '../src/delivery/s3-storage.js';
import { localStorage, StoredFileMissing } from '../src/delivery/storage.js';

// Download bodies reuse their buffers (ReusedBufferBody): piped, a destination that holds on to a
// chunk until its write callback must still receive every byte as stored, also when it writes
// slowly; read otherwise, a body is an ordinary stream. The local driver reads a file into one
// buffer; the S3 driver reads the storage's socket into a few (src/delivery/storage-socket.ts),
// here against storages that answer as told, over TCP and TLS: a short, chunked, silent or
// failing answer must fail the download, never end it as if complete.

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

// A self-signed certificate for localhost and 127.0.0.1 (valid until 2126), trusted by this file only.
const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg4Z9eqWPnAK9adOh/
4fqQG3caJFr0pLOjTuxdhQQNfJahRANCAARu1WL5INhvcZsIGBq8yw0sDubodoUe
jwXMAEzyL9rXrvbn9MxZvwAtNjPLa3dZmDcUMVqh8iyjnTPHpB7VqtJn
-----END PRIVATE KEY-----`;
const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUAPfOxH7wwl7i7Uw585CeGhghgKIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNTIyMjExOFoYDzIxMjYxMTAx
MjIyMTE4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARu1WL5INhvcZsIGBq8yw0sDubodoUejwXMAEzyL9rXrvbn9MxZvwAt
NjPLa3dZmDcUMVqh8iyjnTPHpB7VqtJno28wbTAdBgNVHQ4EFgQU445XIgmsMrxk
wA8nMRHnEFiRKQ4wHwYDVR0jBBgwFoAU445XIgmsMrxkwA8nMRHnEFiRKQ4wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhAONyZ+Z+4Ldx4mMzGmqGddnp9+u5/ypALX/gQtYX553qAiBa
h90Pln1U3EcsbOekkPRIxCKEUA8ux4VcYC9A0S5mJA==
-----END CERTIFICATE-----`;

describe("the S3 driver's socket reader", () => {
  const defaultCAs = tls.getCACertificates('default');
  beforeAll(() => tls.setDefaultCACertificates([...defaultCAs, TLS_CERT]));
  afterAll(() => tls.setDefaultCACertificates(defaultCAs));
  const servers: net.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A storage (plain or TLS) that answers each request as `answer` writes; `requests` gets each request's head. */
  async function storage(answer: (socket: net.Socket) => void, secure = false) {
    const requests: string[] = [];
    const connections: net.Socket[] = [];
    const handle = (socket: net.Socket) => {
      connections.push(socket);
      socket.on('error', () => undefined);
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        requests.push(head);
        answer(socket);
      };
      socket.on('data', onData);
    };
    const server = secure ? tls.createServer({ key: TLS_KEY, cert: TLS_CERT }, handle) : net.createServer(handle);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    return { url: `${secure ? 'https://localhost' : 'http://127.0.0.1'}:${port}`, requests, connections };
  }
  const answerWith = (head: string, body: Buffer = Buffer.alloc(0), end = true) => (socket: net.Socket) => {
    socket.write(head.replaceAll('\n', '\r\n') + '\r\n');
    if (end) socket.end(body);
    else socket.write(body);
  };

  test.each([['TCP', false], ['TLS', true]])('a Content-Length answer over %s arrives whole through a slow destination; the request is a GET with Connection: close', async (_name, secure) => {
    const bytes = randomBytes(5 * MIB + 321);
    const { url, requests } = await storage(answerWith(`HTTP/1.1 206 Partial Content\nContent-Length: ${bytes.length}\nContent-Range: bytes 7-${bytes.length + 6}/9999999\n`, bytes), secure);
    const answer = await getOverSocket(new URL(`${url}/bucket/a/b?X-Amz-Signature=x`), { range: `bytes=7-${bytes.length + 6}` }, 5_000);
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-range')).toBe(`bytes 7-${bytes.length + 6}/9999999`);
    expect((await piped(new ReusedBufferBody(answer.body))).equals(bytes)).toBe(true);
    expect(requests[0]).toBe(`GET /bucket/a/b?X-Amz-Signature=x HTTP/1.1\r\nHost: ${new URL(url).host}\r\nrange: bytes=7-${bytes.length + 6}\r\nConnection: close\r\n\r\n`);
  });

  test('an answer that ends short of its Content-Length fails the download: the destination is never ended', async () => {
    const { url } = await storage(answerWith('HTTP/1.1 200 OK\nContent-Length: 300000\n', randomBytes(200_000)));
    const body = new ReusedBufferBody((await getOverSocket(new URL(url), {}, 5_000)).body);
    const { sink } = slowSink();
    body.pipe(sink);
    const [error] = (await once(body, 'error')) as [Error];
    expect(error.message).toBe("The storage's answer ended 100000 bytes short of its Content-Length");
    expect(sink.writableEnded).toBe(false);
  });

  test('a chunked answer is refused, and so is a storage that stops sending', async () => {
    const chunked = await storage(answerWith('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n', Buffer.from('5\r\nhello\r\n0\r\n\r\n')));
    await expect(getOverSocket(new URL(chunked.url), {}, 5_000)).rejects.toThrow('The storage answered with Transfer-Encoding: chunked, which this reader does not take');

    const silent = await storage(answerWith('HTTP/1.1 200 OK\nContent-Length: 100\n', Buffer.from('0123456789'), false));
    const body = new ReusedBufferBody((await getOverSocket(new URL(silent.url), {}, 300)).body);
    const chunks: Buffer[] = [];
    await expect((async () => {
      for await (const chunk of body) chunks.push(chunk as Buffer);
    })()).rejects.toThrow('The storage sent nothing for 300 ms');
    expect(Buffer.concat(chunks).toString()).toBe('0123456789');
  });

  test('a download closed mid-answer (the buyer went away) closes the connection to the storage', async () => {
    const { url, connections } = await storage(answerWith(`HTTP/1.1 200 OK\nContent-Length: ${64 * MIB}\n`, randomBytes(MIB), false));
    const body = new ReusedBufferBody((await getOverSocket(new URL(url), {}, 5_000)).body);
    const closed = new Promise((resolve) => connections[0]!.on('close', resolve));
    body.once('data', () => body.destroy());
    await closed;
    expect(body.destroyed).toBe(true);
  });

  test('the S3 driver: 404 is StoredFileMissing; a 5xx, a refused or unreachable storage and an answer for another range are TemporarilyUnavailable', async () => {
    const settings = { bucket: 'files', region: 'us-east-1', credentials: { accessKeyId: 'AKTEST', secretAccessKey: 'secret' }, forcePathStyle: true, keyPrefix: 'p/' };
    const driver = (endpoint: string) => s3Storage({ ...settings, endpoint }, MIB);
    const k = key();
    const error = '<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>';

    const missing = await storage(answerWith(`HTTP/1.1 404 Not Found\nContent-Length: ${error.length}\n`, Buffer.from(error)));
    await expect(driver(missing.url).read(k)).rejects.toBeInstanceOf(StoredFileMissing);
    // Path-style, presigned, with the range it asks for signed and sent.
    expect(missing.requests[0]).toMatch(new RegExp(`^GET /files/p/${k}\\?[^ ]*X-Amz-Signature=[0-9a-f]{64}[^ ]* HTTP/1.1\\r\\n`));
    await driver(missing.url).read(k, { start: 5, end: 9 }).catch(() => undefined);
    expect(missing.requests[1]).toMatch(/X-Amz-SignedHeaders=host%3Brange[^ ]* HTTP\/1\.1\r\n[^]*\r\nrange: bytes=5-9\r\n/);

    for (const status of ['500 Internal Server Error', '503 Slow Down', '403 Forbidden']) {
      const failing = await storage(answerWith(`HTTP/1.1 ${status}\nContent-Length: 0\n`));
      await expect(driver(failing.url).read(k)).rejects.toBeInstanceOf(TemporarilyUnavailable);
    }
    const wholeForARange = await storage(answerWith('HTTP/1.1 200 OK\nContent-Length: 10\n', Buffer.from('0123456789')));
    await expect(driver(wholeForARange.url).read(k, { start: 2, end: 3 })).rejects.toBeInstanceOf(TemporarilyUnavailable);
    const garbage = await storage((socket) => socket.end('SSH-2.0-OpenSSH\r\n\r\n'));
    await expect(driver(garbage.url).read(k)).rejects.toBeInstanceOf(TemporarilyUnavailable);
    await expect(driver('http://127.0.0.1:9').read(k)).rejects.toBeInstanceOf(TemporarilyUnavailable);
  });
});
