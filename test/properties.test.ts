import fc from 'fast-check';
import type { Workspace } from './support/api.js';
import { fingerprinter, scratchDatabase, type ScratchDatabase } from './support/database.js';
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
  // The event outbox is not drained during the run (the dispatcher polls hourly), so the
  // fingerprint changes only through the requests themselves.
  server = await startServerProcess({
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS ?? '',
    TEMPORAL_TASK_QUEUE: `properties-${crypto.randomUUID()}`,
    EVENT_DISPATCH_INTERVAL_MS: '3600000',
    RATE_LIMIT_POINTS: '1000000',
  });
  ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Properties'], { DATABASE_URL: database.url });
  await runCli(['workspace', 'set', ws.workspaceId, 'testMode=true'], { DATABASE_URL: database.url });
  // A few real records, so ids in paths and bodies also hit existing rows.
  const keys = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
  for (const type of ['DigitalDownload', 'SoftwareKey', 'Subscription']) {
    const created = await send({ method: 'POST', path: '/v0/products/create', query: '', keys, body: JSON.stringify({ name: `Seed ${type}`, projectId: ws.projectId, type }) });
    const product = JSON.parse(created.text).data.product;
    await send({ method: 'POST', path: `/v0/products/${product.id}/variants/add`, query: '', keys, body: JSON.stringify({ name: 'Seed variant' }) });
    await send({ method: 'POST', path: '/v0/offers/create', query: '', keys, body: JSON.stringify({ productId: product.id, currency: 'USD', price: 1000 }) });
  }
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
      if (before && response.status >= 400) {
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
      const sent: Sent = { method, path, query: '', keys, body: method === 'GET' || method === 'OPTIONS' ? undefined : '{}' };
      checkResponse(sent, await send(sent));
    }),
    { numRuns: RUNS_PER_OPERATION * 4 },
  );
}, 120_000);
