import fc from 'fast-check';
import type { Workspace } from './support/api.js';
import { fingerprinter, scratchDatabase, sql, type ScratchDatabase } from './support/database.js';
import { checkAnswer, fuzzKit, harvestIds as harvest, send as sendTo, shown, type Received, type Sent } from './support/fuzz.js';
import { operationsOf, readDocument, type DocumentedOperation } from './support/openapi.js';
import { runCli, startServerProcess, type ServerProcess } from './support/processes.js';

// Every operation of the published OpenAPI document gets random and malformed path values, query
// strings and bodies (wrong types, strings past their maxLength, deep nesting, invalid UTF-8,
// lone surrogates, other content types, oversized bodies): never a 5xx, always the envelope, a
// request id and an answer the document describes for the operation, and nothing written when a
// write is rejected. Runs on a server and database of its own, so a fingerprint of the whole
// database tells whether anything changed. PROPERTY_RUNS sets the requests per operation.
const RUNS_PER_OPERATION = Number(process.env.PROPERTY_RUNS ?? 25);

const document = await readDocument();
const operations = operationsOf(document);

let database: ScratchDatabase;
let server: ServerProcess;
let ws: Workspace;
let db: Awaited<ReturnType<typeof fingerprinter>>;
/** Ids seen in successful responses: real records for path parameters and id fields. */
const knownIds: string[] = [];
const { anyString, knownId, encode, bodyFor, queryFor, contentType, pathValue, parametersOf } = fuzzKit(document, knownIds);

const send = (request: Sent) => sendTo(server.url, request);
/** The buyer routes (the hosted checkout's JSON API): outside /v0, no keys. */
const buyerRoute = (operation: DocumentedOperation) => !operation.path.startsWith('/v0/');
/** Writes that may start or signal a payment workflow, which then writes on its own. */
const reachesWorkflows = (operation: DocumentedOperation) => buyerRoute(operation) || /^\/v0\/(orders|payments|test-helpers)\//.test(operation.path);
/** A payment whose decision is still on its way: its charge was decided, or a cancel requested, but the workflow has not applied it yet. */
const UNSETTLED_PAYMENTS = `SELECT count(*)::int AS n FROM "Payment" p WHERE p.status = 'PENDING' AND p.processor IS NOT NULL
  AND (p."cancelRequestedAt" IS NOT NULL OR NOT EXISTS (SELECT 1 FROM "Charge" c WHERE c."paymentId" = p.id AND c.status = 'pending'))`;

/**
 * After a write that was accepted (or a declined checkout, 402): waits until the payment
 * workflows it started have applied what they will (a checkout's charge, a cancel request) and
 * the database stays still, so the next request's fingerprint sees only that request.
 */
async function settle(timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const n = (await sql<{ n: number }>(database.url, UNSETTLED_PAYMENTS))[0]?.n ?? 0;
    const now = JSON.stringify(await db.fingerprint());
    if (n === 0 && now === last) return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
const checkResponse = (request: Sent, response: Received, operation?: DocumentedOperation) => checkAnswer(document, request, response, operation);
const harvestIds = (value: unknown) => harvest(knownIds, value);

function keysArb(method: string): fc.Arbitrary<Record<string, string>> {
  const live: Record<string, string> = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
  const test: Record<string, string> = { 'x-svc-public-key': ws.testPublicKey, 'x-svc-secret-key': ws.testSecretKey };
  const wrong: Record<string, string>[] = [{ 'x-svc-public-key': ws.publicKey }, {}, { 'x-svc-public-key': 'pk_live_x', 'x-svc-secret-key': '\u00e9' }];
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(live) },
    { weight: 2, arbitrary: fc.constant(test) },
    { weight: method === 'GET' ? 1 : 2, arbitrary: fc.constantFrom(...wrong) },
  );
}

function requestFor(operation: DocumentedOperation): fc.Arbitrary<Sent> {
  const read = operation.method === 'GET';
  const pathParams = fc.tuple(...parametersOf(operation, 'path').map(() => pathValue));
  return fc
    .record({
      params: pathParams,
      query: queryFor(operation),
      body: read ? fc.constant(undefined) : bodyFor(operation),
      contentType: read ? fc.constant(undefined) : contentType,
      keys: keysArb(operation.method),
    })
    .map(({ params, query, body, contentType: type, keys }) => {
      let i = 0;
      const path = operation.path.replace(/\{\w+\}/g, () => params[i++]!);
      return { method: operation.method, path, query, body, contentType: type, keys };
    });
}

// ---- the properties ----------------------------------------------------------------------------

beforeAll(async () => {
  database = await scratchDatabase();
  // Its own worker on its own task queue: workflows a request starts stay with this database.
  // The event outbox is not drained during the run (the dispatcher polls hourly), nor is the
  // sandbox's webhook outbox (no relay), so the fingerprint changes only through the requests
  // themselves and the payment workflows they start (settle() waits for those).
  server = await startServerProcess({
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '',
    TEMPORAL_TASK_QUEUE: `properties-${crypto.randomUUID()}`,
    EVENT_DISPATCH_INTERVAL_MS: '3600000',
    RATE_LIMIT_POINTS: '1000000',
    SANDBOX_WEBHOOK_DELIVERY: 'false',
  });
  ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Properties'], { DATABASE_URL: database.url });
  await runCli(['workspace', 'set', ws.workspaceId, 'testMode=true'], { DATABASE_URL: database.url });
  // A few real records, so ids in paths and bodies also hit existing rows.
  const keys = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
  const offerIds: string[] = [];
  for (const type of ['DigitalDownload', 'SoftwareKey', 'Subscription']) {
    const created = await send({ method: 'POST', path: '/v0/products/create', query: '', keys, body: JSON.stringify({ name: `Seed ${type}`, projectId: ws.projectId, type }) });
    const product = JSON.parse(created.text).data.product;
    await send({ method: 'POST', path: `/v0/products/${product.id}/variants/add`, query: '', keys, body: JSON.stringify({ name: 'Seed variant' }) });
    const offer = await send({ method: 'POST', path: '/v0/offers/create', query: '', keys, body: JSON.stringify({ productId: product.id, currency: 'USD', price: 1000 }) });
    offerIds.push(JSON.parse(offer.text).data.offer.id);
  }
  // A checkout element, so that the buyer routes also reach a real one.
  await send({ method: 'POST', path: '/v0/elements/checkout/create', query: '', keys, body: JSON.stringify({ offersIds: offerIds.slice(0, 2) }) });
  knownIds.push(ws.projectId);
  for (const operation of operations.filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
    const listed = await send({ method: 'GET', path: operation.path, query: '', keys });
    if (listed.status === 200) harvestIds(JSON.parse(listed.text).data);
  }
  db = await fingerprinter(database.url);
}, 240_000);

afterAll(async () => {
  await db?.close();
  await server?.stop();
  await database?.drop();
});

test('the database fingerprint sees every application table', () => {
  expect(db.tables).toEqual(expect.arrayContaining(['Workspace', 'ApiKey', 'Product', 'Variant', 'Offer']));
});

test('the document has operations to walk, reads and writes', () => {
  expect(operations.length).toBeGreaterThan(30);
  expect(new Set(operations.map((o) => o.method))).toEqual(new Set(['GET', 'POST', 'PATCH']));
});

test.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))('%s: random input never gets a 5xx, always a documented answer in the envelope; a rejected write changes nothing', async (_, operation) => {
  await fc.assert(
    fc.asyncProperty(requestFor(operation), async (request) => {
      const before = operation.method === 'GET' ? undefined : await db.fingerprint();
      const response = await send(request);
      const body = checkResponse(request, response, operation);
      if (body.status === 'success') harvestIds(body.data);
      // A declined card is a checkout that happened: it leaves its FAILED order and payment.
      const declined = buyerRoute(operation) && response.status === 402;
      if (before && reachesWorkflows(operation) && (response.status < 400 || declined)) await settle();
      if (before && response.status >= 400 && !declined) {
        const after = await db.fingerprint();
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length) throw new Error(`rejected with ${response.status} but changed ${changed.join(', ')}: ${request.method} ${request.path} ${shown(request.body)}`);
      }
    }),
    { numRuns: RUNS_PER_OPERATION },
  );
}, 120_000);

test('random paths and methods under /v0 and beside it get the envelope, never a 5xx', async () => {
  const segment = fc.oneof(
    fc.constantFrom('v0', 'products', 'list', 'create', 'update', 'archive', 'offers', 'discounts', 'users', 'elements', 'checkout', 'variants', 'plans', '', '.', '..', '%2e%2e'),
    knownId,
    anyString.map(encode),
  );
  const request = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'),
    segments: fc.array(segment, { minLength: 0, maxLength: 6 }),
    rooted: fc.boolean(),
    keys: keysArb('POST'),
  });
  await fc.assert(
    fc.asyncProperty(request, async ({ method, segments, rooted, keys }) => {
      // The path as the server gets it: fetch resolves dot segments the same way.
      const path = new URL(`http://x${rooted ? '/v0' : ''}/${segments.join('/')}`).pathname;
      if (path === '/graphql' || ['/healthz', '/readyz', '/metrics'].includes(path) || path.startsWith('/v0/openapi') || path.startsWith('/v0/docs')) return;
      // The hosted checkout's page is HTML, not the envelope: only its status is checked.
      if (method === 'GET' && /^\/checkout\/[^/]+$/.test(path)) {
        const page = await send({ method, path, query: '', keys });
        if (page.status >= 500) throw new Error(`5xx: GET ${path} -> ${page.status} ${page.text.slice(0, 300)}`);
        return;
      }
      const sent: Sent = { method, path, query: '', keys, body: method === 'GET' || method === 'OPTIONS' ? undefined : '{}' };
      checkResponse(sent, await send(sent));
    }),
    { numRuns: RUNS_PER_OPERATION * 4 },
  );
}, 120_000);
