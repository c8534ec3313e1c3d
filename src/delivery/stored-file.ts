// What every storage of downloadable files implements (./storage.ts: the local directory and
// the choice of this process's storage; ./s3-storage.ts: an S3-compatible bucket).
import type { Readable } from 'node:stream';

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
  /**
   * Only where downloads are redirected to the storage (S3_PRESIGNED_REDIRECT_SECONDS): a
   * short-lived URL that serves the object as `as` says (its name and type), for a buyer already checked.
   */
  redirectUrl?(key: string, as: { fileName: string; contentType: string }): Promise<string>;
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
export const checked = (key: string) => {
  if (!SAFE_KEY.test(key)) throw new Error(`Not a storage key: ${key}`);
  return key;
};
