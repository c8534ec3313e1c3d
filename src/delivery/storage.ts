// Where downloadable files' bytes live, behind one interface: DATA_DIR/files by default, an
// S3-compatible bucket when S3_BUCKET is set (docs/decisions.md, "Delivery" > "Digital downloads").
// Either way the bytes stream through: an upload is never held whole, a download is piped out as
// the storage sends it (a local file through one buffer of its own, ReusedBufferBody; S3 as the
// SDK's GetObject stream), unless S3 downloads are redirected to presigned URLs.
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { config } from '../config.js';
import { ReusedBufferBody, type ChunkSource } from './reused-buffer-body.js';
import type { S3Settings } from './s3-storage.js';
import { checked, StoredFileMissing, type FileStorage } from './stored-file.js';

export { StoredFileMissing, type ByteRange, type FileStorage } from './stored-file.js';

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

/**
 * The S3 storage, its module (and with it the AWS SDK) imported on first use, as the Stripe SDK is
 * (src/payments/processors/index.ts): every call of the interface is asynchronous already.
 */
function lazyS3Storage(settings: S3Settings, maxFileBytes: number): FileStorage {
  let loading: Promise<FileStorage> | undefined;
  const storage = () =>
    (loading ??= import('./s3-storage.js').then(
      ({ s3Storage }) => s3Storage(settings, maxFileBytes),
      (error: unknown) => {
        // Tried again by the next call.
        loading = undefined;
        throw error;
      },
    ));
  const lazy: FileStorage = {
    write: async (key, body) => (await storage()).write(key, body),
    read: async (key, range) => (await storage()).read(key, range),
    remove: async (key) => (await storage()).remove(key),
  };
  if (settings.redirectSeconds > 0) lazy.redirectUrl = async (key, as) => (await storage()).redirectUrl!(key, as);
  return lazy;
}

let storage: FileStorage | undefined;
/** The configured storage of this process. */
export const fileStorage = (): FileStorage =>
  (storage ??= config.downloads.s3 ? lazyS3Storage(config.downloads.s3, config.downloads.maxFileBytes) : localStorage());
