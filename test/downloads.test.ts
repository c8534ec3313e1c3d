import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { baseUrl, keyHeaders, newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { CARD_DECLINED, card, orderBody, payCheckout } from './support/checkout.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { refundUnits } from './support/refunds.js';
import { failure, ok, useSuiteDatabase } from './support/responses.js';
import { checkResponse } from './support/openapi.js';

// Digital downloads through the real HTTP server: files streamed in (size limit, mimeType,
// SHA-256), listed and removed; download URLs minted exactly as the contract's rule 3 (404s,
// 400s, 429 above 60 a minute per workspace, shared through Redis across processes); the URL
// served by us (bytes, headers, Range, conditional requests), refused when expired or altered,
// and ended early by a refund (through the refund API). The same against a real S3-compatible
// server: downloads-s3.test.ts.

const SLOW = 240_000;
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIVE: KeyChoice = { mode: 'live' };
const db = useSuiteDatabase();

async function catalogue(ws: Workspace, type: 'DigitalDownload' | 'SoftwareKey' = 'DigitalDownload') {
  const client = restClient(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `File ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 900, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return { product, offer, elementId: checkoutElement.id as string };
}

async function uploadFile(ws: Workspace, productId: string, bytes: Uint8Array, options: { fileName?: string | null; contentType?: string; server?: string } = {}) {
  const query = options.fileName === null ? '' : `?fileName=${encodeURIComponent(options.fileName ?? 'manual.pdf')}`;
  const response = await fetch(`${options.server ?? baseUrl()}/v0/products/${productId}/files/upload${query}`, {
    method: 'POST',
    headers: { ...keyHeaders(ws), 'content-type': options.contentType ?? 'application/pdf' },
    body: bytes as BodyInit,
  });
  const body = (await response.json()) as any;
  checkResponse('POST', response.url, response.status, body, response.headers, new TextDecoder().decode(bytes));
  return { status: response.status, body };
}

const mint = (ws: Workspace, orderIdOrNumber: string, itemId: string, body: Record<string, unknown> = {}) =>
  restClient(ws).POST('/v0/orders/{orderIdOrNumber}/items/{itemId}/download-url', { params: { path: { orderIdOrNumber, itemId } }, body: body as never });

/** A paid order of the element and its one item's id. */
async function bought(ws: Workspace, elementId: string) {
  const paid = await payCheckout(elementId, orderBody());
  expect(paid.status).toBe(200);
  const order = (await ok(restClient(ws).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: paid.body.data.order.id } } }))).order;
  return { orderId: order.id, number: order.number, itemId: order.items[0]!.id };
}

describe('downloads', () => {
  let ws: Workspace;
  let file: Buffer;
  let shop: Awaited<ReturnType<typeof catalogue>>;
  beforeAll(async () => {
    ws = await newWorkspace('Downloads');
    shop = await catalogue(ws);
    file = randomBytes(3 * 1_048_576 + 17);
  }, SLOW);

  test('upload: streamed in with its mimeType, size and SHA-256; listed; errors 400, 401, 404', async () => {
    const uploaded = await uploadFile(ws, shop.product.id, file, { fileName: 'Handbuch – v1.pdf' });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.data.file).toMatchObject({
      object: 'file',
      productId: shop.product.id,
      variantId: null,
      fileName: 'Handbuch – v1.pdf',
      mimeType: 'application/pdf',
      size: file.length,
      sha256: createHash('sha256').update(file).digest('hex'),
    });
    const listed = await ok(restClient(ws, { write: false }).GET('/v0/products/{productId}/files', { params: { path: { productId: shop.product.id } } }));
    expect(listed.files.map((f) => f.id)).toEqual([uploaded.body.data.file.id]);

    expect((await uploadFile(ws, shop.product.id, file, { fileName: null })).status).toBe(400);
    expect((await uploadFile(ws, shop.product.id, file, { fileName: '../etc/passwd' })).status).toBe(400);
    expect((await uploadFile(ws, shop.product.id, new Uint8Array())).status).toBe(400);
    expect((await uploadFile(ws, shop.product.id, file, { contentType: 'not a type' })).status).toBe(400);
    const keyed = await catalogue(ws, 'SoftwareKey');
    expect((await uploadFile(ws, keyed.product.id, file)).status).toBe(400);
    expect((await uploadFile(ws, randomUUID(), file)).status).toBe(404);
    const stranger = await newWorkspace('Downloads: stranger');
    expect((await uploadFile(stranger, shop.product.id, file)).status).toBe(404);
    const readOnly = await fetch(`${baseUrl()}/v0/products/${shop.product.id}/files/upload?fileName=a`, { method: 'POST', headers: keyHeaders(ws, { write: false }), body: 'x' });
    expect(readOnly.status).toBe(401);
  }, SLOW);

  test('a declared body above DOWNLOAD_MAX_FILE_BYTES is 413 before anything is read', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${baseUrl()}/v0/products/${shop.product.id}/files/upload?fileName=big.bin`);
      const request = http.request(url, { method: 'POST', headers: { ...keyHeaders(ws), 'content-type': 'application/octet-stream', 'content-length': String(2 ** 31) } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.write('x');
    });
    expect(status).toBe(413);
  });

  test('the URL: bytes and headers, Range, conditional requests; R keys cannot mint', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const minted = await ok(mint(ws, orderId, itemId, { expiresIn: 600 }));
    expect(minted).toMatchObject({ mimeType: 'application/pdf', fileName: 'Handbuch – v1.pdf', size: file.length });
    const now = Math.floor(Date.now() / 1000);
    expect(minted.validTill).toBeGreaterThanOrEqual(now + 595);
    expect(minted.validTill).toBeLessThanOrEqual(now + 601);
    expect(minted.url.startsWith(`${baseUrl()}/downloads/`)).toBe(true);

    const whole = await fetch(minted.url);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(file)).toBe(true);
    expect(whole.headers.get('content-type')).toBe('application/pdf');
    expect(whole.headers.get('content-length')).toBe(String(file.length));
    expect(whole.headers.get('content-disposition')).toBe(`attachment; filename="Handbuch ? v1.pdf"; filename*=UTF-8''Handbuch%20%E2%80%93%20v1.pdf`);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const etag = whole.headers.get('etag')!;
    expect(etag).toBe(`"${createHash('sha256').update(file).digest('hex')}"`);

    const part = await fetch(minted.url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(file.subarray(100, 200))).toBe(true);
    const tail = await fetch(minted.url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(file.subarray(file.length - 10))).toBe(true);
    const open = await fetch(minted.url, { headers: { range: `bytes=${file.length - 5}-` } });
    expect([open.status, (await open.arrayBuffer()).byteLength]).toEqual([206, 5]);
    const outside = await fetch(minted.url, { headers: { range: `bytes=${file.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${file.length}`);
    await outside.arrayBuffer();
    const staleRange = await fetch(minted.url, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect([staleRange.status, (await staleRange.arrayBuffer()).byteLength]).toEqual([200, file.length]);
    const cached = await fetch(minted.url, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    const since = await fetch(minted.url, { headers: { 'if-modified-since': whole.headers.get('last-modified')! } });
    expect(since.status).toBe(304);
    const changed = await fetch(minted.url, { headers: { 'if-none-match': '"other"', 'if-modified-since': whole.headers.get('last-modified')! } });
    expect([changed.status, (await changed.arrayBuffer()).byteLength]).toEqual([200, file.length]);

    // RFC 9110: a reversed range is invalid and ignored (the whole file), the unit is case-insensitive,
    // overlapping ranges that make one are served as one, another unit is ignored.
    const reversed = await fetch(minted.url, { headers: { range: 'bytes=199-100' } });
    expect([reversed.status, (await reversed.arrayBuffer()).byteLength]).toEqual([200, file.length]);
    const upper = await fetch(minted.url, { headers: { range: 'BYTES=100-199' } });
    expect([upper.status, upper.headers.get('content-range'), Buffer.from(await upper.arrayBuffer()).equals(file.subarray(100, 200))]).toEqual([206, `bytes 100-199/${file.length}`, true]);
    const overlapping = await fetch(minted.url, { headers: { range: 'bytes=0-49, 40-99' } });
    expect([overlapping.status, overlapping.headers.get('content-range')]).toEqual([206, `bytes 0-99/${file.length}`]);
    await overlapping.arrayBuffer();
    const apart = await fetch(minted.url, { headers: { range: 'bytes=0-9, 50-59' } });
    expect([apart.status, (await apart.arrayBuffer()).byteLength]).toEqual([200, file.length]);
    const items = await fetch(minted.url, { headers: { range: 'items=0-9' } });
    expect([items.status, (await items.arrayBuffer()).byteLength]).toEqual([200, file.length]);

    // HEAD: the headers a GET of the whole file gets, no body (405 before).
    const head = await fetch(minted.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    for (const name of ['content-type', 'content-length', 'content-disposition', 'etag', 'last-modified', 'accept-ranges']) expect(head.headers.get(name)).toBe(whole.headers.get(name));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await fetch(minted.url, { method: 'HEAD', headers: { 'if-none-match': etag } })).status).toBe(304);
    const put = await fetch(minted.url, { method: 'PUT' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    await put.arrayBuffer();

    const readOnly = await failure(restClient(ws, { write: false }).POST('/v0/orders/{orderIdOrNumber}/items/{itemId}/download-url', { params: { path: { orderIdOrNumber: orderId, itemId } }, body: {} }));
    expect(readOnly.status).toBe(401);
  }, SLOW);

  test('expired and altered URLs are refused clearly', async () => {
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const { url } = await ok(mint(ws, orderId, itemId, { expiresIn: 1 }));
    const [origin, token] = url.split('/downloads/') as [string, string];
    const tampered = `${origin}/downloads/${token.replace(/\.(\d+)\./, (_m, expiry: string) => `.${Number(expiry) + 3600}.`)}`;
    const altered = await fetch(tampered);
    expect(altered.status).toBe(403);
    expect(await altered.json()).toEqual({ status: 'error', error: { message: expect.stringMatching(/not valid/) } });
    expect((await fetch(`${url}x`)).status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const expired = await fetch(url);
    expect(expired.status).toBe(410);
    expect((await expired.json()).error.message).toMatch(/expired/);
  }, SLOW);

  test('rule 3: 404 unknown order, item not on it, keyed product, no file; 400 never paid, expiresIn invalid', async () => {
    const { orderId, number, itemId } = await bought(ws, shop.elementId);
    expect((await ok(mint(ws, number, itemId))).validTill - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(895);
    expect((await failure(mint(ws, randomUUID(), itemId))).status).toBe(404);
    expect((await failure(mint(ws, orderId, randomUUID()))).status).toBe(404);
    expect((await failure(mint(ws, orderId, 'not-an-id'))).status).toBe(404);
    const other = await bought(ws, shop.elementId);
    expect((await failure(mint(ws, orderId, other.itemId))).status).toBe(404);

    const keyed = await catalogue(ws, 'SoftwareKey');
    await ok(restClient(ws).POST('/v0/products/{productId}/keys', { params: { path: { productId: keyed.product.id } }, body: { keys: ['K-1'] } }));
    const keyOrder = await bought(ws, keyed.elementId);
    expect((await failure(mint(ws, keyOrder.orderId, keyOrder.itemId))).status).toBe(404);
    const fileless = await catalogue(ws);
    const filelessOrder = await bought(ws, fileless.elementId);
    expect((await failure(mint(ws, filelessOrder.orderId, filelessOrder.itemId))).status).toBe(404);

    const declined = await payCheckout(shop.elementId, orderBody({ card: card(CARD_DECLINED) }));
    expect(declined.status).toBe(402);
    const failedId: string = (await db.query(`SELECT id FROM "Order" WHERE "workspaceId" = $1 AND status = 'FAILED' LIMIT 1`, [ws.workspaceId])).rows[0].id;
    const unpaid = (await ok(restClient(ws).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: failedId } } }))).order;
    const neverPaid = await failure(mint(ws, unpaid.id, unpaid.items[0]!.id));
    expect([neverPaid.status, neverPaid.body.error.message]).toEqual([400, 'The order was never paid']);

    for (const expiresIn of [86_401, 0, -1, 1.5, '900']) expect((await failure(mint(ws, orderId, itemId, { expiresIn }))).status).toBe(400);
    expect((await ok(mint(ws, orderId, itemId, { expiresIn: 86_400 }))).validTill).toBeGreaterThan(Math.floor(Date.now() / 1000) + 86_000);
    const stranger = await newWorkspace('Downloads: other tenant');
    expect((await failure(mint(stranger, orderId, itemId))).status).toBe(404);
  }, SLOW);

  test('a refund ends it: a partial refund keeps the URL, every unit refunded is 400 to mint and 410 at the URL; a removed file is 404', async () => {
    const both = await catalogue(ws);
    const second = await catalogue(ws);
    const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [both.offer.id, second.offer.id] } }));
    for (const { product } of [both, second]) expect((await uploadFile(ws, product.id, file)).status).toBe(200);
    // Two units of each of two items: refunds of units, then of the rest.
    const paid = await payCheckout(checkoutElement.id, orderBody({ quantity: 2 }));
    expect(paid.status).toBe(200);
    const orderId: string = paid.body.data.order.id;
    const items = (await ok(restClient(ws).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order.items;
    const itemId = items.find((item) => item.offerId === both.offer.id)!.id;
    const otherItemId = items.find((item) => item.offerId === second.offer.id)!.id;
    const { url } = await ok(mint(ws, orderId, itemId));
    expect((await fetch(url, { headers: { range: 'bytes=0-0' } })).status).toBe(206);

    expect((await refundUnits(ws, orderId, [{ id: itemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    expect((await fetch(url, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    expect((await ok(mint(ws, orderId, itemId))).size).toBe(file.length);
    expect((await refundUnits(ws, orderId, [{ id: itemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    const refunded = await failure(mint(ws, orderId, itemId));
    expect([refunded.status, refunded.body.error.message]).toEqual([400, 'Every unit of the item is refunded']);
    const gone = await fetch(url);
    expect(gone.status).toBe(410);
    expect((await gone.json()).error.message).toMatch(/every unit of the item is refunded/);
    const otherUrl = (await ok(mint(ws, orderId, otherItemId))).url;
    expect((await fetch(otherUrl, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    expect((await refundUnits(ws, orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
    expect((await failure(mint(ws, orderId, otherItemId))).body.error.message).toBe('The order is refunded');
    expect((await fetch(otherUrl)).status).toBe(410);

    const other = await catalogue(ws);
    const uploaded = (await uploadFile(ws, other.product.id, Buffer.from('hello'), { fileName: 'a.txt', contentType: 'text/plain' })).body.data.file;
    const sale = await bought(ws, other.elementId);
    const link = await ok(mint(ws, sale.orderId, sale.itemId));
    expect(await (await fetch(link.url)).text()).toBe('hello');
    const removed = await ok(restClient(ws).PATCH('/v0/products/{productId}/files/{fileId}/remove', { params: { path: { productId: other.product.id, fileId: uploaded.id } } }));
    expect(removed).toEqual({ success: true });
    expect((await fetch(link.url)).status).toBe(404);
    expect((await failure(mint(ws, sale.orderId, sale.itemId))).status).toBe(404);
    expect((await failure(restClient(ws).PATCH('/v0/products/{productId}/files/{fileId}/remove', { params: { path: { productId: other.product.id, fileId: uploaded.id } } }))).status).toBe(404);
  }, SLOW);
});

describe('download URL budget shared through Redis, and the streamed size limit', () => {
  let servers: ServerProcess[];
  beforeAll(async () => {
    const env = { ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, REDIS_URL, RATE_LIMIT_KEY_PREFIX: `downloads-${randomUUID()}`, DOWNLOAD_MAX_FILE_BYTES: '100000', RATE_LIMIT_POINTS: '100000' };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  }, 120_000);
  afterAll(() => Promise.all((servers ?? []).map((server) => server.stop())));

  test('60 mints a minute per workspace across two processes, the 61st is 429; another workspace is not affected', async () => {
    const ws = await newWorkspace('Downloads: budget');
    const shop = await catalogue(ws);
    expect((await uploadFile(ws, shop.product.id, Buffer.from('data'), { server: servers[0]!.url })).status).toBe(200);
    const { orderId, itemId } = await bought(ws, shop.elementId);
    const mintOn = (server: ServerProcess, workspace: Workspace) =>
      fetch(`${server.url}/v0/orders/${orderId}/items/${itemId}/download-url`, { method: 'POST', headers: { ...keyHeaders(workspace), 'content-type': 'application/json' }, body: '{}' });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 1) statuses.push((await mintOn(servers[i % 2]!, ws)).status);
    expect(statuses).toEqual(Array(60).fill(200));
    const limited = await mintOn(servers[1]!, ws);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ status: 'error', error: { message: expect.stringMatching(/60 download URLs a minute/) } });
    // A rolling minute: the first of the 60 frees its point within it.
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect((await mintOn(servers[0]!, ws)).status).toBe(429);
    const other = await newWorkspace('Downloads: other budget');
    expect((await mintOn(servers[0]!, other)).status).toBe(404);
  }, SLOW);

  test('a chunked upload passing the limit is 413 and leaves no file', async () => {
    const ws = await newWorkspace('Downloads: limit');
    const shop = await catalogue(ws);
    let sent = 0;
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 20) return controller.close();
        sent += 1;
        controller.enqueue(randomBytes(10_000));
      },
    });
    const response = await fetch(`${servers[0]!.url}/v0/products/${shop.product.id}/files/upload?fileName=big.bin`, {
      method: 'POST',
      headers: { ...keyHeaders(ws), 'content-type': 'application/octet-stream' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await ok(restClient(ws).GET('/v0/products/{productId}/files', { params: { path: { productId: shop.product.id } } }))).count).toBe(0);
    expect((await uploadFile(ws, shop.product.id, randomBytes(100_000), { server: servers[0]!.url })).status).toBe(200);
  }, SLOW);
});
