// Downloadable files' bytes in an S3-compatible bucket (S3_BUCKET; docs/decisions.md, "Delivery" >
// "Digital downloads"). Imported only by a process whose storage is S3 (./storage.ts), so the AWS
// SDK (about 33 MB of memory) is not loaded where it is not used.
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { create as contentDisposition } from 'content-disposition';
import { TemporarilyUnavailable } from '../core/errors.js';
import { logger } from '../logger.js';
import { checked, StoredFileMissing, type FileStorage } from './stored-file.js';

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
  /** 0: downloads stream through this service; otherwise they redirect to a URL presigned for this long. */
  redirectSeconds: number;
}

// S3 allows 10,000 parts per upload; parts are at least 8 MiB, larger when the size limit needs it.
const MIN_PART_BYTES = 8 * 1_048_576;
const MAX_PARTS = 10_000;
// Parts sent at once: an upload holds at most (PARTS_IN_FLIGHT + 1) parts in memory.
const PARTS_IN_FLIGHT = 2;
// The SDK's kept-alive connections: its default of 50 would make the 51st concurrent download (or
// the 26th upload, two parts in flight each) wait for a free one.
const MAX_STORAGE_CONNECTIONS = 1_000;
// Connecting, and then each wait for the answer's head or more of the object's bytes.
const CONNECT_TIMEOUT_MS = 5_000;
const STORAGE_TIMEOUT_MS = 30_000;
// The SDK's standard retries (S3's 503 SlowDown, a connection reset or refused before the answer,
// a stale kept-alive socket), with its backoff: three attempts in all.
const MAX_ATTEMPTS = 3;

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** The SDK's answer that the object (or the bucket) is not there. */
const isMissing = (error: unknown) => error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound' || statusOf(error) === 404);

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
    maxAttempts: MAX_ATTEMPTS,
    // Checksums only where S3 requires them: we keep our own SHA-256, and servers other than AWS
    // do not all take the SDK's newer trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: STORAGE_TIMEOUT_MS,
      httpAgent: { keepAlive: true, maxSockets: MAX_STORAGE_CONNECTIONS },
      httpsAgent: { keepAlive: true, maxSockets: MAX_STORAGE_CONNECTIONS },
    },
  });
  const partSize = Math.max(MIN_PART_BYTES, Math.ceil(maxFileBytes / MAX_PARTS));
  const objectKey = (key: string) => `${settings.keyPrefix}${checked(key)}`;
  const storage: FileStorage = {
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
      let answer;
      try {
        answer = await client.send(new GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), Range: rangeHeader }));
      } catch (error) {
        if (isMissing(error)) throw new StoredFileMissing(key);
        throw unavailable(error, 'read', key);
      }
      const body = answer.Body as Readable;
      // Exactly the bytes asked for: anything else is the storage's fault. A body shorter than its
      // Content-Length fails the stream (Node's HTTP client); a chunked one (no length) is taken as sent.
      const length = answer.ContentLength;
      const expected = range
        ? answer.ContentRange?.startsWith(`bytes ${range.start}-${range.end}/`) && (length === undefined || length === range.end - range.start + 1)
        : answer.ContentRange === undefined;
      if (!expected) {
        body.destroy();
        throw unavailable(new Error(`GetObject answered Content-Length ${answer.ContentLength ?? 'none'}, Content-Range ${answer.ContentRange ?? 'none'}`), 'read', key);
      }
      return body;
    },
    async remove(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: settings.bucket, Key: objectKey(key) }));
      } catch (error) {
        if (!isMissing(error)) throw unavailable(error, 'remove', key);
      }
    },
  };
  if (settings.redirectSeconds > 0) {
    storage.redirectUrl = (key, { fileName, contentType }) =>
      getSignedUrl(
        client,
        // The bucket's answer carries our name and type, as the streamed answer would.
        new GetObjectCommand({ Bucket: settings.bucket, Key: objectKey(key), ResponseContentDisposition: contentDisposition(fileName), ResponseContentType: contentType, ResponseCacheControl: 'private, no-store' }),
        { expiresIn: settings.redirectSeconds },
      );
  }
  return storage;
}
