// The two HTTP endpoints of files that are not JSON routes: the upload (the body is the file,
// streamed into storage) and the download a minted URL points at (HTTP Range and conditional
// requests, HEAD, the stored content type, a Content-Disposition file name; or a redirect to the
// bucket when S3_PRESIGNED_REDIRECT_SECONDS says so). Errors in the envelope.
import { Readable } from 'node:stream';
import { Response } from '@whatwg-node/server';
import { config } from '../config.js';
import { authenticate } from '../http/auth.js';
import { logger } from '../logger.js';
import type { EndpointOperation, EndpointRequest } from '../http/endpoint.js';
import { errorResponse, errorToResponse, successResponse } from '../rest/envelope.js';
import { readDownloadToken, undeliverable } from './download-links.js';
import { FileTooLarge, MAX_FILE_NAME_LENGTH, fileResource, uploadFile } from './files.js';
import { parseRange, notModified, contentDisposition } from './http-ranges.js';
import { fileStorage, StoredFileMissing } from './storage.js';

/** A request body's chunks as they arrive (the server adapter's stream is not Node's own ReadableStream class). */
async function* chunksOf(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) yield chunk.value;
}

/** The upload in the OpenAPI document. */
export const uploadOperation: EndpointOperation = {
  operationId: 'uploadProductFile',
  summary: "Upload a file to a DigitalDownload product (the body is the file's bytes)",
  description: 'The raw body is the file, streamed into storage; its content-type (any media type) is recorded as the file\'s mimeType, and its size may not exceed the configured maximum (413).',
  query: [
    { name: 'fileName', required: true, description: 'The file name buyers see when they download it', schema: { type: 'string', minLength: 1, maxLength: MAX_FILE_NAME_LENGTH } },
    { name: 'variantId', required: false, description: 'The variant the file belongs to (the product itself when absent)', schema: { $ref: '#/components/schemas/UUID' } },
  ],
  body: { mediaType: 'application/octet-stream', description: "The file's bytes; send its own media type as content-type (e.g. application/pdf) to record it" },
  data: { file: 'DownloadFile' },
};

/** POST /v0/products/{productId}/files/upload?fileName=…[&variantId=…]: the body is the file; its content-type is recorded as mimeType. */
export async function handleFileUpload({ request, url, params, requestId, limits, prisma }: EndpointRequest): Promise<Response> {
  try {
    const principal = await authenticate(prisma, request.headers, 'write');
    const length = request.headers.get('content-length');
    const file = await uploadFile(
      prisma,
      fileStorage(),
      principal,
      params.productId!,
      {
        fileName: url.searchParams.get('fileName'),
        variantId: url.searchParams.get('variantId') || null,
        contentType: request.headers.get('content-type'),
        declaredBytes: length === null ? null : Number(length),
        body: request.body ? Readable.from(chunksOf(request.body)) : null,
      },
      config.downloads.maxFileBytes,
    );
    return successResponse({ file: { ...file, createdAt: Math.floor(file.createdAt.getTime() / 1000) } });
  } catch (error) {
    if (error instanceof FileTooLarge) {
      // A body announced too large, or still arriving past what was dropped, has its connection closed after the answer.
      if (error.unread) setTimeout(limits.cutConnection, 1_000).unref();
      return errorResponse(413, error.message);
    }
    return errorToResponse(error, requestId);
  }
}

/** GET or HEAD /downloads/{token}: the signed grant checked (403 tampered, 410 expired or no longer delivered), then the bytes (or a redirect to them). */
export async function handleDownload({ request, params, requestId, limits, prisma }: EndpointRequest): Promise<Response> {
  try {
    const grant = readDownloadToken(params.token!);
    if (!grant) return errorResponse(403, 'This download link is not valid (it was altered or never issued)');
    if (grant.expiresAt * 1000 <= Date.now()) return errorResponse(410, `This download link expired at ${new Date(grant.expiresAt * 1000).toISOString()}; ask for a new one`);
    const [file, item] = await Promise.all([
      prisma.downloadFile.findUnique({ where: { id: grant.fileId } }),
      prisma.orderItem.findUnique({ where: { id: grant.orderItemId }, include: { order: { select: { status: true, paidAt: true } } } }),
    ]);
    if (!file || !item) return errorResponse(404, 'This download no longer exists');
    const reason = undeliverable(item.order, item);
    if (reason) return errorResponse(410, `This download is no longer available: ${reason.toLowerCase()}`);

    const resource = fileResource(file);
    const etag = `"${file.sha256}"`;
    const lastModified = new Date(Math.floor(file.createdAt.getTime() / 1000) * 1000);
    const contentType = file.mimeType ?? 'application/octet-stream';
    const headers: Record<string, string> = {
      'content-type': contentType,
      'content-disposition': contentDisposition(file.fileName),
      'accept-ranges': 'bytes',
      etag,
      'last-modified': lastModified.toUTCString(),
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    };
    if (notModified(request.headers, etag, lastModified)) return new Response(null, { status: 304, headers });
    // HEAD: what a GET of the whole file would answer, without asking the storage (RFC 9110 §9.3.2; Range applies to GET only).
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers: { ...headers, 'content-length': String(resource.size) } });
    const storage = fileStorage();
    if (storage.redirectUrl) {
      // Checked above; the bytes (and any Range of them) come from the bucket, for a URL that lives seconds.
      const location = await storage.redirectUrl(file.storageKey, { fileName: file.fileName, contentType });
      return new Response(null, { status: 302, headers: { location, 'cache-control': 'private, no-store' } });
    }
    const range = parseRange(request.headers, resource.size, etag, lastModified);
    if (range === 'unsatisfiable') {
      return errorResponse(416, `The range is outside the file's ${resource.size} bytes`, { 'content-range': `bytes */${resource.size}` });
    }
    let stored: Readable;
    try {
      stored = await storage.read(file.storageKey, range ?? undefined);
    } catch (error) {
      if (error instanceof StoredFileMissing) return errorResponse(404, 'This download no longer exists');
      throw error;
    }
    // The storage failing mid-file cannot change the status any more: the connection is cut, so the
    // client sees a short body (and can resume with a Range) rather than waiting for bytes that never come.
    stored.on('error', (error) => {
      logger.warn({ err: error, requestId, fileId: file.id }, 'download: the storage stream failed');
      limits.cutConnection();
    });
    // The adapter's Response streams a Node Readable as it is (destroying it when the client goes): the file is never held whole.
    const stream = stored as unknown as BodyInit;
    if (!range) return new Response(stream, { status: 200, headers: { ...headers, 'content-length': String(resource.size) } });
    return new Response(stream, {
      status: 206,
      headers: { ...headers, 'content-length': String(range.end - range.start + 1), 'content-range': `bytes ${range.start}-${range.end}/${resource.size}` },
    });
  } catch (error) {
    return errorToResponse(error, requestId);
  }
}
