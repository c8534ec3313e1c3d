// Files of DigitalDownload products (or of one of their variants): streamed in (never held whole),
// at most DOWNLOAD_MAX_FILE_BYTES, with the sent content type as `mimeType` and a SHA-256 computed
// on the way; listed and removed. An order item downloads the newest file of its variant, else
// the newest of its product without a variant (a new upload is a new version for later downloads).
import { createHash, randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { DownloadFile, PrismaClient } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { DomainError, NotFound, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { logger } from '../logger.js';
import type { FileStorage } from './storage.js';
import { isUuid } from '../core/uuid.js';

export const MAX_FILE_NAME_LENGTH = 255;

/** The file passes DOWNLOAD_MAX_FILE_BYTES (the upload endpoint answers 413). */
export class FileTooLarge extends DomainError {
  readonly kind = 'invalid';

  /** `unread`: part of the body was never read (the connection is best closed after the answer). */
  constructor(
    maxBytes: number,
    readonly unread = true,
  ) {
    super(`The file is larger than ${maxBytes} bytes (DOWNLOAD_MAX_FILE_BYTES)`);
  }
}
const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\\]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** The DigitalDownload product of the scope: 404 when absent or archived, 400 for another type. */
async function downloadProduct(db: Db, scope: Scope, productId: string) {
  const product = await db.product.findFirst({ where: { id: productId, ...inScope(scope), archivedAt: null }, select: { id: true, type: true } });
  if (!product) throw new NotFound('Product');
  if (product.type !== 'DigitalDownload') throw new ValidationFailed(`Product ${productId} is a ${product.type} product: files attach to DigitalDownload products`);
  return product;
}

export interface FileUpload {
  fileName: string | null;
  variantId: string | null;
  /** The request's content type; absent is recorded as null. */
  contentType: string | null;
  /** The body's declared length, when sent: checked before anything is read. */
  declaredBytes: number | null;
  body: Readable | null;
}

function checkFileName(fileName: string | null): string {
  const name = fileName?.trim() ?? '';
  if (name === '') throw new ValidationFailed('fileName (query parameter) is required');
  if ([...name].length > MAX_FILE_NAME_LENGTH) throw new ValidationFailed(`fileName: at most ${MAX_FILE_NAME_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/\\]/.test(name)) throw new ValidationFailed('fileName cannot contain a slash, a backslash or a control character');
  return name;
}

// Past the limit, this much more of a body is read and dropped (the client then gets its 413 rather than a reset connection); beyond it the stream fails.
const DROP_BYTES = 8 * 1_048_576;

/** Counts and hashes the bytes going through; past `maxBytes` passes nothing more on and marks the upload too large. */
function measured(maxBytes: number) {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes + DROP_BYTES) return done(new FileTooLarge(maxBytes));
      if (size > maxBytes) return done();
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, tooLarge: () => size > maxBytes, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/** Streams a file into storage and records it; nothing is recorded when the stream fails. */
export async function uploadFile(prisma: PrismaClient, storage: FileStorage, scope: Scope, productId: string, upload: FileUpload, maxBytes: number) {
  const fileName = checkFileName(upload.fileName);
  const mimeType = upload.contentType?.trim() || null;
  if (mimeType !== null && (mimeType.length > 255 || !MIME_TYPE.test(mimeType))) throw new ValidationFailed('content-type is not a valid media type');
  if (upload.declaredBytes !== null && upload.declaredBytes > maxBytes) throw new FileTooLarge(maxBytes);
  // The path and query of this endpoint are not parsed as GraphQL arguments: ids are checked here (not a query on a malformed id).
  for (const [name, value] of [['productId', productId], ['variantId', upload.variantId]] as const) {
    if (value !== null && !isUuid(value)) throw new ValidationFailed(`${name}: expected a UUID, got ${JSON.stringify(value.slice(0, 100))}`);
  }
  const product = await downloadProduct(prisma, scope, productId);
  if (upload.variantId) {
    const variant = await prisma.variant.findFirst({ where: { id: upload.variantId, productId: product.id, archivedAt: null }, select: { id: true } });
    if (!variant) throw new ValidationFailed(`variantId ${upload.variantId} is not a live variant of product ${productId}`);
  }
  if (!upload.body) throw new ValidationFailed('The request body (the file) is empty');
  const id = randomUUID();
  const storageKey = `${scope.workspaceId}/${id}`;
  const meter = measured(maxBytes);
  await storage.write(storageKey, upload.body.pipe(meter.stream));
  if (meter.tooLarge()) {
    await storage.remove(storageKey);
    throw new FileTooLarge(maxBytes, false);
  }
  const { size, sha256 } = meter.result();
  if (size === 0) {
    await storage.remove(storageKey);
    throw new ValidationFailed('The request body (the file) is empty');
  }
  const file = await prisma.downloadFile.create({
    data: { id, ...inScope(scope), productId: product.id, variantId: upload.variantId, fileName, mimeType, size, sha256, storageKey },
  });
  return fileResource(file);
}

export function fileResource(file: DownloadFile) {
  return {
    object: 'file',
    id: file.id,
    productId: file.productId,
    variantId: file.variantId,
    fileName: file.fileName,
    mimeType: file.mimeType,
    size: Number(file.size),
    sha256: file.sha256,
    createdAt: file.createdAt,
  };
}

export async function listFiles(prisma: PrismaClient, scope: Scope, productId: string) {
  const product = await downloadProduct(prisma, scope, productId);
  const files = await prisma.downloadFile.findMany({ where: { productId: product.id, ...inScope(scope) }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return { files: files.map(fileResource), count: files.length };
}

/** Removes a file and its bytes: URLs minted for it stop working, and its items fall back to an older file if there is one. */
export async function removeFile(prisma: PrismaClient, storage: FileStorage, scope: Scope, productId: string, fileId: string) {
  const file = await prisma.downloadFile.findFirst({ where: { id: fileId, productId, ...inScope(scope) } });
  if (!file) throw new NotFound('File');
  await prisma.downloadFile.delete({ where: { id: file.id } });
  // The row goes first: from then on the file is removed for every reader. Bytes the storage fails
  // to delete now stay behind, logged with their key, rather than failing a removal that happened.
  await storage.remove(file.storageKey).catch((error: unknown) => logger.warn({ err: error, storageKey: file.storageKey }, 'removed file: its bytes are left in storage'));
  return { success: true };
}

/** The file an order item downloads: its variant's newest, else its product's newest without a variant; null when none. */
export async function fileOfItem(db: Db, item: { productId: string; variantId: string | null }) {
  const newest = (variantId: string | null) => db.downloadFile.findFirst({ where: { productId: item.productId, variantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return (item.variantId ? await newest(item.variantId) : null) ?? (await newest(null));
}
