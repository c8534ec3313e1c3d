import { randomBytes, randomUUID } from 'node:crypto';
import {
  AuthenticationError,
  CommerceApiError,
  createCommerceClient,
  NotFoundError,
  RateLimitError,
  retryAfterMs,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
} from '../sdk/src/index.js';
import { deliveryHeaders } from '../src/webhooks/signature.js';
import { baseUrl, newWorkspace } from './support/api.js';
import { checkResponse } from './support/openapi.js';

// The SDK's behaviour, from its sources: retries, idempotency keys and errors against a scripted
// transport (what a server answers in each case is the input), webhook verification against the
// server's own signing, and its pagination iterators against the suite's server.

/** A transport answering from a script, keeping each request it was given. */
function scripted(...answers: (() => Response)[]) {
  const seen: { method: string; url: string; key: string | null; body: string }[] = [];
  const fetch = async (request: Request) => {
    seen.push({ method: request.method, url: request.url, key: request.headers.get('idempotency-key'), body: await request.text() });
    const next = answers.shift();
    if (!next) throw new Error('no more answers scripted');
    return next();
  };
  return { seen, fetch };
}

const envelope = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers } });
const success = envelope(200, { status: 'success', data: { order: { id: 'o1' } } });
const failed = (status: number, message: string, headers: Record<string, string> = {}) => envelope(status, { status: 'error', error: { message } }, headers);
const fast = { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 1_000 };

describe('the SDK client (sdk/src)', () => {
  const options = { baseUrl: 'http://api.invalid', publicKey: 'pk_test_x', secretKey: 'sk_test_x', retries: fast };

  test('a keyed write gets one Idempotency-Key, repeated on every retry of a 429 and a 503; Retry-After is honoured', async () => {
    const transport = scripted(failed(429, 'Too many requests', { 'retry-after': '0' }), failed(503, 'Unavailable'), success);
    const client = createCommerceClient({ ...options, fetch: transport.fetch });
    const { order } = await unwrap(client.POST('/checkout/{checkoutElementId}/orders', { params: { path: { checkoutElementId: 'e1' } }, body: { email: 'a@example.com' } as never }));
    expect(order).toEqual({ id: 'o1' });
    expect(transport.seen).toHaveLength(3);
    expect(transport.seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(transport.seen.map((s) => s.key)).size).toBe(1);
    expect(new Set(transport.seen.map((s) => s.body)).size).toBe(1);
  });

  test("the refund's key goes in its body, the same on each try; a caller's own key is kept", async () => {
    const transport = scripted(failed(500, 'Internal server error'), success, success);
    const client = createCommerceClient({ ...options, fetch: transport.fetch });
    await client.PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: 'o1' } }, body: { amount: 100 } });
    const [first, second] = transport.seen.map((s) => JSON.parse(s.body));
    expect(first).toEqual({ amount: 100, idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(second).toEqual(first);
    await client.PATCH('/v0/orders/{orderIdOrNumber}/refund', { params: { path: { orderIdOrNumber: 'o1' } }, body: { amount: 100, idempotencyKey: 'mine' } });
    expect(JSON.parse(transport.seen[2]!.body)).toEqual({ amount: 100, idempotencyKey: 'mine' });
  });

  test('an unkeyed write is not repeated after a 5xx (it could be done twice), a read is; a write without a key gets none', async () => {
    const write = scripted(failed(500, 'Internal server error'));
    const writer = createCommerceClient({ ...options, fetch: write.fetch });
    await expect(writer.POST('/v0/products/create', { body: { name: 'x', projectId: randomUUID(), type: 'DigitalDownload' } })).rejects.toBeInstanceOf(CommerceApiError);
    expect(write.seen).toHaveLength(1);
    expect(write.seen[0]!.key).toBeNull();
    const read = scripted(failed(502, 'Bad gateway'), envelope(200, { status: 'success', data: { products: [], count: null } }));
    const reader = createCommerceClient({ ...options, fetch: read.fetch });
    expect(await unwrap(reader.GET('/v0/products/list'))).toEqual({ products: [], count: null });
    expect(read.seen).toHaveLength(2);
  });

  test('a failed answer throws the class of its status with the envelope message and request id; retries run out on a 429', async () => {
    const client = createCommerceClient({ ...options, fetch: scripted(failed(404, 'Product not found')).fetch });
    const error = await client.GET('/v0/products/{productId}', { params: { path: { productId: randomUUID() } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, message: 'Product not found', requestId: 'req-1', body: { status: 'error' } });
    const limited = scripted(...Array.from({ length: 4 }, () => failed(429, 'Too many requests', { 'retry-after': '0' })));
    const impatient = createCommerceClient({ ...options, fetch: limited.fetch });
    const rateLimited = await impatient.GET('/v0/products/list').catch((e: unknown) => e);
    expect(rateLimited).toBeInstanceOf(RateLimitError);
    expect(limited.seen).toHaveLength(4);
    // A Retry-After longer than the client waits ends the retries at once.
    const long = scripted(failed(429, 'Too many requests', { 'retry-after': '3600' }));
    await expect(createCommerceClient({ ...options, fetch: long.fetch }).GET('/v0/products/list')).rejects.toMatchObject({ retryAfter: 3600 });
    expect(long.seen).toHaveLength(1);
    expect([retryAfterMs('2'), retryAfterMs(new Date(Date.now() + 5_000).toUTCString()) !== null, retryAfterMs('soon')]).toEqual([2_000, true, null]);
  });

  test("verifyWebhook accepts the server's own signature and refuses a changed body, a wrong secret and an old delivery", async () => {
    const key = randomBytes(32);
    const secret = `whsec_${key.toString('base64')}`;
    const body = JSON.stringify({ type: 'order_paid', data: { id: randomUUID() } });
    const headers = new Headers(deliveryHeaders(key, randomUUID(), body));
    expect(await verifyWebhook(secret, body, headers)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(secret, body, Object.fromEntries(headers))).toEqual(JSON.parse(body));
    await expect(verifyWebhook(secret, body.replace('order_paid', 'order_refunded'), headers)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, body, headers)).rejects.toBeInstanceOf(WebhookVerificationError);
    const old = new Headers(deliveryHeaders(key, randomUUID(), body, Date.now() - 10 * 60_000));
    await expect(verifyWebhook(secret, body, old)).rejects.toThrow(/tolerance/);
    headers.set('webhook-signature', 'v1,not*base64');
    await expect(verifyWebhook(secret, body, headers)).rejects.toThrow(/No webhook signature matches/);
  });
});

/** The global fetch, every answer checked against the published document as the suite's clients do. */
async function checkedFetch(request: Request): Promise<Response> {
  const body = await request.clone().text();
  const response = await fetch(request);
  checkResponse(request.method, request.url, response.status, await response.clone().json(), response.headers, body || undefined);
  return response;
}

describe('the SDK against the server: keys, errors and the pagination iterators', () => {
  test('offset and page iterators walk every record across pages; a wrong key is an AuthenticationError', async () => {
    const ws = await newWorkspace('SDK pagination');
    const client = createCommerceClient({ baseUrl: baseUrl(), publicKey: ws.publicKey, secretKey: ws.secretKey, fetch: checkedFetch });
    const names = ['a', 'b', 'c'].map((n) => `Paged ${n}`);
    for (const name of names) await unwrap(client.POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'DigitalDownload' } }));
    const emails = ['a', 'b', 'c'].map((n) => `paged-${n}-${randomUUID()}@example.com`);
    for (const email of emails) await unwrap(client.POST('/v0/users/create', { body: { email } }));

    const products: string[] = [];
    for await (const product of client.paginate.offset('/v0/products/list', 'products', { pageSize: 2 })) products.push(product.name);
    expect(products.sort()).toEqual(names);
    const users: string[] = [];
    for await (const user of client.paginate.pages('/v0/users/list', 'users', { pageSize: 2 })) users.push(user.email ?? "");
    expect(users.sort()).toEqual([...emails].sort());

    const stranger = createCommerceClient({ baseUrl: baseUrl(), publicKey: 'pk_live_unknown', fetch: checkedFetch });
    await expect(stranger.GET('/v0/products/list')).rejects.toBeInstanceOf(AuthenticationError);
  });
});
