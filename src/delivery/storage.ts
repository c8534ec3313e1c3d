// Where downloadable files' bytes live, behind one interface. The default driver keeps them in
// DATA_DIR/files; an S3-compatible driver is the next step (docs/decisions.md, "Delivery").
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { config } from '../config.js';

/** Inclusive byte positions, as HTTP ranges count them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStorage {
  /** Streams the body in under `key`; the object appears whole once it resolves, never part-written (a failed stream leaves nothing). */
  write(key: string, body: Readable): Promise<void>;
  /** The object's bytes (a range of them). */
  read(key: string, range?: ByteRange): Readable;
  /** Removes the object; an absent one is no error. */
  remove(key: string): Promise<void>;
}

// Keys are made of our ids (`<workspaceId>/<fileId>`): nothing a caller writes reaches a path.
const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** Files under a directory: written to a temporary name, renamed into place when complete. */
export function localStorage(root = path.join(config.dataDir, 'files')): FileStorage {
  const pathOf = (key: string) => {
    if (!SAFE_KEY.test(key)) throw new Error(`Not a storage key: ${key}`);
    return path.join(root, key);
  };
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
    read(key, range) {
      return createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}

let storage: FileStorage | undefined;
/** The configured storage of this process. */
export const fileStorage = (): FileStorage => (storage ??= localStorage());
