// The Commerce API client: openapi-fetch over the types generated from the published OpenAPI
// document, with the keys set once, an Idempotency-Key on every write that takes one (kept across
// retries), retries with backoff (retries.ts), an error class per status (errors.ts), pagination
// iterators (pagination.ts), webhook verification (webhooks.ts) and test helpers.
import createClient, { type Client } from 'openapi-fetch';
import { errorOf } from './errors.js';
import type { paths } from './generated/openapi.js';
import { IDEMPOTENT_OPERATIONS } from './generated/operations.js';
import { paginators, type ListGet } from './pagination.js';
import { retryingFetch, type RetryOptions } from './retries.js';
import { testHelpers } from './test-helpers.js';

export * from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export type { CursorListPath, ItemOf, ItemsKey, ListData, ListOptions, OffsetListPath, PageListPath } from './pagination.js';
export { retryAfterMs, type RetryOptions } from './retries.js';
export { unwrap } from './unwrap.js';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions } from './webhooks.js';

export interface CommerceOptions {
  /** The API's origin, e.g. https://api.example.com (the paths start with /v0). */
  baseUrl: string;
  /** x-svc-public-key: every request. */
  publicKey: string;
  /** x-svc-secret-key: writes. Never ship it to a browser. */
  secretKey?: string;
  retries?: RetryOptions;
  /** Generates Idempotency-Key values (default crypto.randomUUID). */
  idempotencyKey?: () => string;
  /** Another fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
  /** Further headers on every request. */
  headers?: Record<string, string>;
}

const idempotencyOf = (method: string, pathname: string) => IDEMPOTENT_OPERATIONS.find((operation) => operation.method === method && operation.pattern.test(pathname));

/** The request with an idempotency key where its operation takes one and the caller gave none; set once, so every retry repeats it. */
async function withIdempotencyKey(request: Request, newKey: () => string): Promise<Request | undefined> {
  const operation = idempotencyOf(request.method, new URL(request.url).pathname);
  if (!operation) return undefined;
  if (operation.in === 'header') {
    if (request.headers.has('idempotency-key')) return undefined;
    request.headers.set('Idempotency-Key', newKey());
    return request;
  }
  const text = await request.clone().text();
  const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body.idempotencyKey) return undefined;
  return new Request(request, { body: JSON.stringify({ ...body, idempotencyKey: newKey() }) });
}

export type CommerceClient = Client<paths> & {
  /** Async iterators over every list, item by item, for each pagination style. */
  paginate: ReturnType<typeof paginators>;
  testHelpers: ReturnType<typeof testHelpers>;
};

export function createCommerceClient(options: CommerceOptions): CommerceClient {
  const base = options.fetch ?? ((request: Request) => fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      'x-svc-public-key': options.publicKey,
      ...(options.secretKey ? { 'x-svc-secret-key': options.secretKey } : {}),
      ...options.headers,
    },
    // The client's middleware gives every body-keyed write its key before the first try.
    fetch: retryingFetch(base, options.retries, (request) => idempotencyOf(request.method, new URL(request.url).pathname)?.in === 'body'),
  });
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  client.use({
    onRequest: ({ request }) => withIdempotencyKey(request, newKey),
    async onResponse({ response }) {
      if (!response.ok) throw await errorOf(response);
      return undefined;
    },
  });
  return Object.assign(client, {
    paginate: paginators(client.GET as unknown as ListGet),
    testHelpers: testHelpers(client),
  });
}
