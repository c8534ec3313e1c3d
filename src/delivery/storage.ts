// Where downloadable files' bytes live, behind one interface: DATA_DIR/files by default, an
// S3-compatible bucket when S3_BUCKET is set (docs/decisions.md, "Delivery" > "Digital downloads").
// Either way the bytes stream through: an upload is never held whole, a download is piped out as
// the storage sends it, through a few buffers of its own (ReusedBufferBody).
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../config.js';
import { TemporarilyUnavailable } from '../core/errors.js';
import { logger } from '../logger.js';
import { ReusedBufferBody, type ChunkSource } from './reused-buffer-body.js';
import { getOverSocket, type SocketAnswer } from './storage-socket.js';

/** Inclusive byte positions, as HTTP ranges count them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStorage {
  /** Streams the body in under `key`; the object appears whole once it resolves, never part-written (a failed stream leaves nothing). */
  write(key: string, body: Readable): Promise<void>;
  /** The object's bytes (a range of them), once the storage has them ready; StoredFileMissing when there is no such object. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; an absent one is no error. */
  remove(key: string): Promise<void>;
}

/** The storage has no object under the key (removed, or lost outside this service). */
export class StoredFileMissing extends Error {
  constructor(key: string) {
    super(`No stored file under ${key}`);
    this.name = 'StoredFileMissing';
  }
}

// Keys are made of our ids (`<workspaceId>/<fileId>`): nothing a caller writes reaches a path.
const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;
const checked = (key: string) => {
  if (!SAFE_KEY.test(key)) throw new Error(`Not a storage key: ${key}`);
  return key;
};

// What one download of a local file reads at a time (and keeps: one such buffer per download in progress).
const CHUNK_BYTES = 64 * 1024;

/** A local file's bytes from `start` to `end` inclusive (no end: to the end of the file), read into one buffer. */
function fileChunks(handle: FileHandle, start = 0, end = Infinity): ChunkSource {
  const buffer = Buffer.allocUnsafe(Number.isFinite(end) ? Math.max(1, Math.min(CHUNK_BYTES, end - start + 1)) : CHUNK_BYTES);
  let position = start;
  return {
    async next() {
      const wanted = Math.min(buffer.length, end - position + 1);
      if (wanted <= 0) return null;
      const { bytesRead } = await handle.read(buffer, 0, wanted, position);
      if (bytesRead === 0) {
        if (Number.isFinite(end)) throw new Error(`The stored file ends before byte ${end}`);
        return null;
      }
      position += bytesRead;
      return buffer.subarray(0, bytesRead);
    },
    close: () => handle.close(),
  };
}

/** Files under a directory: written to a temporary name, renamed into place when complete. */
export function localStorage(root = path.join(config.dataDir, 'files')): FileStorage {
  const pathOf = (key: string) => path.join(root, checked(key));
  return {
    async write(key, body) {
      const target = pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.part`;
      try {
        await pipeline(body, createWriteStream(temporary, { mode: 0o600 }));
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async read(key, range) {
      // Opened first, so that a missing file is known before any header is sent.
      const handle = await open(pathOf(key), 'r').catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new StoredFileMissing(key) : error;
      });
      return new ReusedBufferBody(fileChunks(handle, range?.start, range?.end));
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

export interface S3Settings {
  bucket: string;
  region: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint?: string;
  /** Unset: the AWS SDK's default credential chain (AWS_* variables, shared files, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>` (most self-hosted servers want this). */
  forcePathStyle: boolean;
  /** Prepended to every object key (e.g. `downloads/`), for a bucket shared with other data. */
  keyPrefix: string;
}

// S3 allows 10,000 parts per upload; parts are at least 8 MiB, larger when the size limit needs it.
const MIN_PART_BYTES = 8 * 1_048_576;
const MAX_PARTS = 10_000;
// Parts sent at once: an upload holds at most (PARTS_IN_FLIGHT + 1) parts in memory.
const PARTS_IN_FLIGHT = 2;
// The SDK's connections (uploads, removals; downloads have their own sockets): its default of 50
// would make the 26th concurrent upload (two parts in flight each) wait for a free one.
const MAX_STORAGE_CONNECTIONS = 1_000;
// A download's GetObject is signed for this long: it is sent at once.
const SIGNED_REQUEST_SECONDS = 60;
// Connecting, the answer's head, and each wait for more of the object's bytes.
const STORAGE_TIMEOUT_MS = 30_000;

/** The SDK's answer that the object (or the bucket) is not there. */
const isMissing = (error: unknown) =>
  error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404);

/** A storage failure as the caller's retryable 503; what went wrong is logged, never sent. */
function unavailable(error: unknown, operation: string, key: string): TemporarilyUnavailable {
  logger.error({ err: error, operation, key }, 'S3 storage failed');
  return new TemporarilyUnavailable('The file storage did not answer; retry later');
}

/** Objects in an S3-compatible bucket: uploads go up in parts as they stream in (S3 shows an object only once it is complete). */
export function s3Storage(settings: S3Settings, maxFileBytes: number): FileStorage {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only where S3 requires them: we keep our own SHA-256, and servers other than AWS
    // do not all take the SDK's newer trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { httpAgent: { maxSockets: MAX_STORAGE_CONNECTIONS }, httpsAgent: { maxSockets: MAX_STORAGE_CONNECTIONS } },
  });
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(maxFileBytes / MAX_PARTS));
  const objectKey = (key: string) => `${settings.keyPrefix}${checked(key)}`;
  return {
    async write(key, body) {
      const upload = new Upload({ client, params: { Bucket: settings.bucket, Key: objectKey(key), Body: body }, partSize, queueSize: PARTS_IN_FLIGHT, leavePartsOnError: false });
      try {
        await upload.done();
      } catch (error) {
        // The body's own failure (too large, the client gone) is the caller's; the upload was aborted either way.
        if (body.errored) throw body.errored;
        throw unavailable(error, 'write', key);
      }
    },
    async read(key, range) {
      const rangeHeader = range ? `bytes=${range.start}-${range.end}` : undefined;
      let answer: SocketAnswer;
      try {
        // Signed by the SDK (its credentials, endpoint and addressing), fetched over our own socket.
        const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), Range: rangeHeader }), { expiresIn: SIGNED_REQUEST_SECONDS });
        answer = await getOverSocket(new URL(url), rangeHeader ? { range: rangeHeader } : {}, STORAGE_TIMEOUT_MS);
      } catch (error) {
        throw unavailable(error, 'read', key);
      }
      const { status, headers, body } = answer;
      if (status === 404) {
        await body.close();
        throw new StoredFileMissing(key);
      }
      // Exactly the bytes asked for, with their length (a short answer then fails the download).
      const contentRange = headers.get('content-range');
      const length = headers.get('content-length');
      const expected = range ? status === 206 && contentRange?.startsWith(`bytes ${range.start}-${range.end}/`) && length === String(range.end - range.start + 1) : status === 200 && length !== undefined;
      if (!expected) {
        // S3's error document (its code and message) for the log.
        const detail = await body.next().then((chunk) => chunk?.toString('utf8', 0, 1_000), () => undefined);
        await body.close();
        throw unavailable(new Error(`GetObject answered ${status} (Content-Length ${length ?? 'none'}, Content-Range ${contentRange ?? 'none'}): ${detail ?? ''}`), 'read', key);
      }
      return new ReusedBufferBody(body);
    },
    async remove(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
      } catch (error) {
        if (!isMissing(error)) throw unavailable(error, 'remove', key);
      }
    },
  };
}

let storage: FileStorage | undefined;
/** The configured storage of this process. */
export const fileStorage = (): FileStorage =>
  (storage ??= config.downloads.s3 ? s3Storage(config.downloads.s3, config.downloads.maxFileBytes) : localStorage());
