import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { keyHeaders, newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { orderBody, payCheckout } from './support/checkout.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { refundUnits } from './support/refunds.js';
import { failure, ok } from './support/responses.js';
import { SEAWEEDFS_MISSING, SEAWEEDFS_PROVISION_TIMEOUT_MS, findOrProvisionSeaweedfs, startSeaweedS3, type SeaweedS3 } from './support/seaweedfs.js';
import { checkResponse } from './support/openapi.js';

// The S3 storage driver against a real S3-compatible server, SeaweedFS (`weed server -s3`, found
// or built with Go by test/support/seaweedfs.ts; .ci/run provisions it): a service process with
// S3_BUCKET etc. streams uploads into the bucket in parts, lists them, serves the download URL
// from the bucket (bytes, headers, Range, 304), turns it off once the item is refunded, and
// deletes the object when the file is removed. Without `weed` (and no Go to build it) this fails
// saying how to install it: it never skips.

const SLOW = 240_000;
const LIVE: KeyChoice = { mode: 'live' };
const MIB = 1_048_576;
// Above one 8 MiB part, so an upload goes up as a multipart upload.
const MAX_FILE_BYTES = 24 * MIB;

let seaweed: SeaweedS3;
let server: ServerProcess;
const bucket = `downloads-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const executable = await findOrProvisionSeaweedfs();
  if (!executable) throw new Error(SEAWEEDFS_MISSING);
  seaweed = await startSeaweedS3(executable);
  await seaweed.createBucket(bucket);
  server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, DOWNLOAD_MAX_FILE_BYTES: String(MAX_FILE_BYTES), ...seaweed.env(bucket), S3_KEY_PREFIX: 'files/' });
}, SEAWEEDFS_PROVISION_TIMEOUT_MS);
afterAll(async () => {
  await server?.stop();
  await seaweed?.stop();
});

/** The /v0 client of the service storing in S3 (the suite's own server stores locally). */
const api = (ws: Workspace, key: KeyChoice = {}) => restClient(ws, key, server.url);

async function catalogue(ws: Workspace) {
  const client = api(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `S3 file ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type: 'DigitalDownload' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 900, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return { product, offer, elementId: checkoutElement.id as string };
}

/** The bytes sent as a chunked body in 64 KiB pieces (no content-length: the server cannot know the size ahead). */
function chunked(bytes: Buffer): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}

async function upload(ws: Workspace, productId: string, bytes: Buffer, fileName = 'album.zip') {
  const response = await fetch(`${server.url}/v0/products/${productId}/files/upload?fileName=${encodeURIComponent(fileName)}`, {
    method: 'POST',
    headers: { ...keyHeaders(ws), 'content-type': 'application/zip' },
    body: chunked(bytes),
    duplex: 'half',
  } as RequestInit);
  const body = (await response.json()) as any;
  checkResponse('POST', response.url, response.status, body, response.headers);
  return { status: response.status, body };
}

const mint = (ws: Workspace, orderIdOrNumber: string, itemId: string) =>
  api(ws).POST('/v0/orders/{orderIdOrNumber}/items/{itemId}/download-url', { params: { path: { orderIdOrNumber, itemId } }, body: {} });

/** A paid order of the element (`quantity` units of its one item). */
async function bought(ws: Workspace, elementId: string, quantity = 1) {
  const paid = await payCheckout(elementId, orderBody({ quantity }));
  expect(paid.status).toBe(200);
  const orderId: string = paid.body.data.order.id;
  return { orderId, itemId: (await ok(api(ws).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order.items[0]!.id };
}

const objectsOf = async (ws: Workspace) =>
  ((await seaweed.client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `files/${ws.workspaceId}/` }))).Contents ?? []).map((object) => object.Key);

describe('downloads stored in S3 (SeaweedFS)', () => {
  let ws: Workspace;
  let shop: Awaited<ReturnType<typeof catalogue>>;
  let file: Buffer;
  let fileId: string;
  beforeAll(async () => {
    ws = await newWorkspace('Downloads on S3');
    shop = await catalogue(ws);
    file = randomBytes(20 * MIB + 123);
  }, SLOW);

  test('an upload streams into the bucket in parts, with its size and SHA-256; it is listed', async () => {
    const uploaded = await upload(ws, shop.product.id, file);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.data.file).toMatchObject({ productId: shop.product.id, fileName: 'album.zip', mimeType: 'application/zip', size: file.length, sha256: createHash('sha256').update(file).digest('hex') });
    fileId = uploaded.body.data.file.id;

    const key = `files/${ws.workspaceId}/${fileId}`;
    expect(await objectsOf(ws)).toEqual([key]);
    const head = await seaweed.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(file.length);
    // A multipart upload's ETag counts its parts: 20 MiB went up as three parts, not one buffered body.
    expect(head.ETag).toMatch(/-3"$/);
    const stored = await seaweed.client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: 'bytes=0-1023' }));
    expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(file.subarray(0, 1024))).toBe(true);
    // The bytes are in the bucket only, not in the data directory the local driver would use.
    expect(existsSync(path.join(process.env.DATA_DIR!, 'files', ws.workspaceId))).toBe(false);

    const listed = await ok(api(ws, { write: false }).GET('/v0/products/{productId}/files', { params: { path: { productId: shop.product.id } } }));
    expect(listed.files.map((f) => [f.id, f.size])).toEqual([[fileId, file.length]]);
  }, SLOW);

  test('the bucket stays private: an unsigned request for the object is refused', async () => {
    const response = await fetch(`${seaweed.endpoint}/${bucket}/files/${ws.workspaceId}/${fileId}`);
    expect(response.status).toBe(403);
    await response.arrayBuffer();
  });

  test('the download URL serves the object: bytes, headers, Range, 304', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const minted = await ok(mint(ws, orderId, itemId));
    expect(minted).toMatchObject({ fileName: 'album.zip', mimeType: 'application/zip', size: file.length });
    // Served by this service (it re-checks refunds at every request), not a presigned bucket URL.
    expect(minted.url.startsWith(`${server.url}/downloads/`)).toBe(true);

    const whole = await fetch(minted.url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/zip');
    expect(whole.headers.get('content-length')).toBe(String(file.length));
    expect(whole.headers.get('content-disposition')).toBe('attachment; filename=album.zip');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const etag = whole.headers.get('etag')!;
    expect(etag).toBe(`"${createHash('sha256').update(file).digest('hex')}"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(file)).toBe(true);

    // A range across the first part's end comes from the bucket as it is.
    const across = await fetch(minted.url, { headers: { range: `bytes=${8 * MIB - 10}-${8 * MIB + 9}` } });
    expect(across.status).toBe(206);
    expect(across.headers.get('content-range')).toBe(`bytes ${8 * MIB - 10}-${8 * MIB + 9}/${file.length}`);
    expect(across.headers.get('content-length')).toBe('20');
    expect(Buffer.from(await across.arrayBuffer()).equals(file.subarray(8 * MIB - 10, 8 * MIB + 10))).toBe(true);
    const tail = await fetch(minted.url, { headers: { range: 'bytes=-100' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(file.subarray(file.length - 100))).toBe(true);
    const open = await fetch(minted.url, { headers: { range: `bytes=${file.length - 7}-` } });
    expect([open.status, Buffer.from(await open.arrayBuffer()).equals(file.subarray(file.length - 7))]).toEqual([206, true]);
    const outside = await fetch(minted.url, { headers: { range: `bytes=${file.length}-` } });
    expect([outside.status, outside.headers.get('content-range')]).toEqual([416, `bytes */${file.length}`]);
    await outside.arrayBuffer();
    const resumed = await fetch(minted.url, { headers: { range: 'bytes=5-9', 'if-range': etag } });
    expect([resumed.status, Buffer.from(await resumed.arrayBuffer()).equals(file.subarray(5, 10))]).toEqual([206, true]);

    const cached = await fetch(minted.url, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    const since = await fetch(minted.url, { headers: { 'if-modified-since': whole.headers.get('last-modified')! } });
    expect(since.status).toBe(304);
  }, SLOW);

  test('a client leaving mid-download does not hurt the server; the next download is whole', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const { url } = await ok(mint(ws, orderId, itemId));
    await new Promise<void>((resolve, reject) => {
      const request = http.get(url, (response) => {
        response.once('data', () => {
          request.destroy();
          resolve();
        });
      });
      request.on('error', (error) => (request.destroyed ? resolve() : reject(error)));
    });
    const again = await fetch(url);
    expect(Buffer.from(await again.arrayBuffer()).equals(file)).toBe(true);
  }, SLOW);

  test('the storage restarted mid-download: the download is cut (never ends short as if whole); a resume from its bytes completes it, on kept-alive connections', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const { url } = await ok(mint(ws, orderId, itemId));
    const received: Buffer[] = [];
    let restarting: Promise<void> | undefined;
    const complete = await new Promise<boolean>((resolve, reject) => {
      http.get(url, (response) => {
        response.on('data', (chunk: Buffer) => {
          received.push(chunk);
          if (restarting || Buffer.concat(received).length < MIB) return;
          // Held here while the storage is SIGKILLed and started again, so the kill lands mid-object.
          response.pause();
          restarting = seaweed.restart().then(() => void response.resume());
        });
        response.on('end', () => resolve(response.complete));
        response.on('aborted', () => resolve(false));
        response.on('error', () => resolve(false));
      }).on('error', reject);
    });
    await restarting;
    const have = Buffer.concat(received);
    expect([complete, have.length < file.length]).toEqual([false, true]);
    expect(have.equals(file.subarray(0, have.length))).toBe(true);
    const rest = await fetch(url, { headers: { range: `bytes=${have.length}-` } });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([have, Buffer.from(await rest.arrayBuffer())]).equals(file)).toBe(true);
  }, SLOW);

  test('with S3_PRESIGNED_REDIRECT_SECONDS the checked URL redirects to a short-lived presigned one: bytes, name and Range from the bucket; HEAD and 410 stay ours', async () => {
    const redirecting = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, ...seaweed.env(bucket), S3_KEY_PREFIX: 'files/', S3_PRESIGNED_REDIRECT_SECONDS: '30' });
    try {
      const { orderId, itemId } = await bought(ws, shop.elementId);
      const url = (await ok(mint(ws, orderId, itemId))).url.replace(server.url, redirecting.url);
      const redirect = await fetch(url, { redirect: 'manual' });
      expect([redirect.status, redirect.headers.get('cache-control')]).toEqual([302, 'private, no-store']);
      const location = new URL(redirect.headers.get('location')!);
      expect([location.origin, location.searchParams.get('X-Amz-Expires')]).toEqual([seaweed.endpoint, '30']);
      const whole = await fetch(url);
      expect([whole.status, whole.headers.get('content-type'), whole.headers.get('content-disposition')]).toEqual([200, 'application/zip', 'attachment; filename=album.zip']);
      expect(Buffer.from(await whole.arrayBuffer()).equals(file)).toBe(true);
      const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
      expect([part.status, Buffer.from(await part.arrayBuffer()).equals(file.subarray(10, 20))]).toEqual([206, true]);
      const head = await fetch(url, { method: 'HEAD', redirect: 'manual' });
      expect([head.status, head.headers.get('content-length'), head.headers.get('etag')]).toEqual([200, String(file.length), `"${createHash('sha256').update(file).digest('hex')}"`]);

      expect((await refundUnits(ws, orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
      const gone = await fetch(url, { redirect: 'manual' });
      expect(gone.status).toBe(410);
      await gone.arrayBuffer();
    } finally {
      await redirecting.stop();
    }
  }, SLOW);

  test('a refund turns the URL off: units left keep it, every unit refunded is 410 at the URL and 400 to mint', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId, 2);
    const { url } = await ok(mint(ws, orderId, itemId));
    expect((await fetch(url, { headers: { range: 'bytes=0-0' } })).status).toBe(206);

    expect((await refundUnits(ws, orderId, [{ id: itemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    const stillOwned = await fetch(url, { headers: { range: 'bytes=0-3' } });
    expect([stillOwned.status, Buffer.from(await stillOwned.arrayBuffer()).equals(file.subarray(0, 4))]).toEqual([206, true]);

    expect((await refundUnits(ws, orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
    const gone = await fetch(url);
    expect(gone.status).toBe(410);
    expect(await gone.json()).toEqual({ status: 'error', error: { message: expect.stringMatching(/no longer available: the order is refunded/) } });
    const refused = await failure(mint(ws, orderId, itemId));
    expect([refused.status, refused.body.error.message]).toEqual([400, 'The order is refunded']);
  }, SLOW);

  test('an upload past DOWNLOAD_MAX_FILE_BYTES is 413 and leaves no object and no unfinished multipart upload', async () => {
    const other = await catalogue(ws);
    const before = await objectsOf(ws);
    // Past the limit and past the 8 MiB the server reads and drops: the upload is aborted mid-stream.
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${server.url}/v0/products/${other.product.id}/files/upload?fileName=big.bin`, { method: 'POST', headers: { ...keyHeaders(ws), 'content-type': 'application/octet-stream' } });
      let answered = false;
      request.on('response', (response) => {
        answered = true;
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', (error) => (answered ? undefined : reject(error)));
      const piece = randomBytes(MIB);
      let sent = 0;
      const write = () => {
        while (!answered && sent < MAX_FILE_BYTES + 16 * MIB) {
          sent += piece.length;
          if (!request.write(piece)) return void request.once('drain', write);
        }
        request.end();
      };
      write();
    });
    expect(status).toBe(413);
    expect((await ok(api(ws).GET('/v0/products/{productId}/files', { params: { path: { productId: other.product.id } } }))).count).toBe(0);
    expect(await objectsOf(ws)).toEqual(before);
    const unfinished = await seaweed.client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: `files/${ws.workspaceId}/` }));
    expect(unfinished.Uploads ?? []).toEqual([]);
  }, SLOW);

  test('removing the file deletes its object; its URLs answer 404', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const { url } = await ok(mint(ws, orderId, itemId));
    expect(await objectsOf(ws)).toEqual([`files/${ws.workspaceId}/${fileId}`]);
    const removed = await ok(api(ws).PATCH('/v0/products/{productId}/files/{fileId}/remove', { params: { path: { productId: shop.product.id, fileId } } }));
    expect(removed).toEqual({ success: true });
    expect(await objectsOf(ws)).toEqual([]);
    const missing = await seaweed.client.send(new HeadObjectCommand({ Bucket: bucket, Key: `files/${ws.workspaceId}/${fileId}` })).catch((error: Error) => error.name);
    expect(missing).toBe('NotFound');
    expect((await fetch(url)).status).toBe(404);
    expect((await failure(mint(ws, orderId, itemId))).status).toBe(404);
  }, SLOW);
});

describe('the S3 driver when the object or the storage is gone', () => {
  test('an object deleted behind the service is 404 at the URL; a storage that does not answer is 503 to download and upload, never 500', async () => {
    const ws = await newWorkspace('Downloads on S3: failures');
    const shop = await catalogue(ws);
    const uploaded = await upload(ws, shop.product.id, Buffer.from('small file'), 'readme.txt');
    expect(uploaded.status).toBe(200);
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const { url } = await ok(mint(ws, orderId, itemId));
    expect(await (await fetch(url)).text()).toBe('small file');

    // Deleted in the bucket behind the service's back: the row is there, the bytes are not.
    await seaweed.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `files/${ws.workspaceId}/${uploaded.body.data.file.id}` }));
    const missing = await fetch(url);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ status: 'error', error: { message: 'This download no longer exists' } });

    // A service whose storage does not answer (nothing listens on its endpoint).
    const down = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, ...seaweed.env(bucket), S3_ENDPOINT: 'http://127.0.0.1:9', S3_KEY_PREFIX: 'files/' });
    try {
      const unavailable = await fetch(url.replace(server.url, down.url));
      expect(unavailable.status).toBe(503);
      expect(await unavailable.json()).toEqual({ status: 'error', error: { message: 'The file storage did not answer; retry later' } });
      const refused = await fetch(`${down.url}/v0/products/${shop.product.id}/files/upload?fileName=b.txt`, { method: 'POST', headers: { ...keyHeaders(ws), 'content-type': 'text/plain' }, body: 'bytes' });
      expect(refused.status).toBe(503);
      await refused.arrayBuffer();
    } finally {
      await down.stop();
    }
    expect((await ok(api(ws).GET('/v0/products/{productId}/files', { params: { path: { productId: shop.product.id } } }))).count).toBe(1);
  }, SLOW);
});
