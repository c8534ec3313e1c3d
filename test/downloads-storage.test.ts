import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

import { localStorage, StoredFileMissing } from '../src/delivery/storage.js';

// The local driver's download body (StoredFileBody): piped, it reuses one buffer per download,
// so a destination that holds on to a chunk until its write callback must still receive every byte
// as stored, also when it writes slowly; read otherwise, it is an ordinary stream.

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
