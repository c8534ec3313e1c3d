// Downloadable files' bytes in an S3-compatible bucket (S3_BUCKET; docs/decisions.md, "Delivery" >
// "Digital downloads"). Imported only by a process whose storage is S3 (./storage.ts), so the AWS
// SDK (about 33 MB of memory) is not loaded where it is not used.
import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { TemporarilyUnavailable } from '../core/errors.js';
import { logger } from '../logger.js';
import { ReusedBufferBody } from './reused-buffer-body.js';
import { getOverSocket, type SocketAnswer } from './storage-socket.js';
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
