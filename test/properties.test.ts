import fc from 'fast-check';
import { GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLScalarType, type GraphQLInputType } from 'graphql';
import { routes } from '../src/rest/routes.js';
import type { Workspace } from './support/api.js';
import { fingerprinter, scratchDatabase, type ScratchDatabase } from './support/database.js';
import { runCli, startServerProcess, type ServerProcess } from './support/processes.js';
import { describeRoutes, type RouteInfo } from './support/routes.js';

// Random and malformed query strings, bodies and path parameters against every route of the
// table: never a 5xx, always the envelope and a request id, and nothing written when a write is
// rejected. Runs on a server and database of its own, so a fingerprint of the whole database
// tells whether anything changed.
const RUNS_PER_ROUTE = Number(process.env.PROPERTY_RUNS ?? 25);
const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER;

let database: ScratchDatabase;
let server: ServerProcess;
let ws: Workspace;
let described: RouteInfo[];
let db: Awaited<ReturnType<typeof fingerprinter>>;
/** Ids seen in successful responses: real records for path parameters and id fields. */
const knownIds: string[] = [];

interface Sent {
  method: string;
  path: string;
  query: string;
  keys: Record<string, string>;
  body?: string;
}

async function send(request: Sent) {
  const url = `${server.url}${request.path}${request.query ? `?${request.query}` : ''}`;
  const response = await fetch(url, { method: request.method, headers: { 'content-type': 'application/json', ...request.keys }, body: request.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

function harvestIds(value: unknown): void {
  if (Array.isArray(value)) value.forEach(harvestIds);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'id' || key.endsWith('Id')) && typeof inner === 'string' && /^[0-9a-f-]{36}$/.test(inner) && !knownIds.includes(inner)) knownIds.push(inner);
      else harvestIds(inner);
    }
  }
}

/** The envelope rules every response must meet; returns the parsed body. */
function checkResponse(request: Sent, response: Awaited<ReturnType<typeof send>>) {
  const where = `${request.method} ${request.path}?${request.query} body=${request.body?.slice(0, 300)} -> ${response.status} ${response.text.slice(0, 300)}`;
  if (response.status >= 500) throw new Error(`5xx: ${where}`);
  if (!response.headers.get('x-request-id')) throw new Error(`no x-request-id: ${where}`);
  let body: { status?: unknown; data?: unknown; error?: { message?: unknown } };
  try {
    body = JSON.parse(response.text);
  } catch {
    throw new Error(`not JSON: ${where}`);
  }
  const success = body.status === 'success' && response.status < 300 && 'data' in body;
  const failure = body.status === 'error' && response.status >= 400 && typeof body.error?.message === 'string' && !('data' in body);
  if (!success && !failure) throw new Error(`not the envelope: ${where}`);
  return body;
}

// ---- arbitraries -------------------------------------------------------------------------------

const nasty = fc.constantFrom(
  '', ' ', '0', '-1', '1.5', '1e400', '-0', 'NaN', 'Infinity', 'null', 'true', 'false', '[]', '{}',
  '99999999999999999999999', String(MAX_TIMESTAMP + 1), '2147483648', '-2147483649',
  'a'.repeat(1000), '\u0000', 'a\u0000b', '💥', 'ǅ̶̡', '\u202e', '<script>', "' OR 1=1 --", '../..', '%', '%00', '%zz',
  'USD', 'EUR', 'JPY', 'XXX', 'month', 'year', 'DigitalDownload', 'SoftwareKey', 'code', 'sale', 'fixed', 'percentage',
  'active', 'inactive', 'ACTIVE', 'DRAFT', 'ASC', 'DESC', 'https://hooks.example.test/endpoint', 'user@example.com', 'DE', 'XK',
);
const anyString = fc.oneof(
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);
const knownId = fc.nat().map((i) => knownIds[i % Math.max(knownIds.length, 1)] ?? crypto.randomUUID());
const anyInt = fc.oneof(
  fc.integer({ min: -3, max: 150 }),
  fc.integer(),
  fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 1e20, 0.5, MAX_TIMESTAMP, MAX_TIMESTAMP + 2),
);
const json = fc.jsonValue({ maxDepth: 3 });

/** A value of (or near) an argument's GraphQL type, as JSON. */
function valueFor(type: GraphQLInputType): fc.Arbitrary<unknown> {
  if (type instanceof GraphQLNonNull) return valueFor(type.ofType);
  if (type instanceof GraphQLList) return fc.oneof(fc.array(valueFor(type.ofType), { maxLength: 4 }), valueFor(type.ofType));
  if (type instanceof GraphQLEnumType) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...type.getValues().map((v) => v.value as unknown)) }, { weight: 1, arbitrary: anyString });
  if (type instanceof GraphQLInputObjectType) {
    const fields = Object.values(type.getFields());
    return fc.record(Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type)])), { requiredKeys: [] });
  }
  const scalar = (type as GraphQLScalarType).name;
  switch (scalar) {
    case 'Int':
      return anyInt;
    case 'Float':
      return fc.oneof(anyInt, fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'Boolean':
      return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 0, 1, null) });
    case 'UUID':
    case 'ID':
      return fc.oneof({ weight: 4, arbitrary: knownId }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: anyString });
    case 'Timestamp':
      return fc.oneof(fc.integer({ min: 0, max: MAX_TIMESTAMP }), fc.constantFrom(-1, MAX_TIMESTAMP + 1, 1.5, 1e300), fc.integer());
    case 'JSON':
      return json;
    default:
      return fc.oneof(anyString, json);
  }
}

// Plausible values by field name, so some requests get past validation into the services.
const HINTS: Array<[RegExp, fc.Arbitrary<unknown>]> = [
  [/currency/i, fc.constantFrom('USD', 'EUR', 'JPY')],
  [/email/i, fc.uuid().map((id) => `${id.slice(0, 8)}@example.com`)],
  // Never resolves (.test is reserved): no webhook gets created, so nothing is delivered meanwhile.
  [/url/i, fc.constantFrom('https://hooks.example.test/endpoint')],
  [/country/i, fc.constantFrom('DE', 'US', 'XK')],
  [/price|amount|limit|count|order|expiresIn/i, fc.integer({ min: 0, max: 10_000 })],
  [/interval$/i, fc.constantFrom('month', 'year', 'day', 'week')],
];

/** A value that fits an argument's type and, by its name, probably its rules. */
function plausibleFor(name: string, type: GraphQLInputType): fc.Arbitrary<unknown> {
  if (type instanceof GraphQLNonNull) return plausibleFor(name, type.ofType);
  if (type instanceof GraphQLList) return fc.array(plausibleFor(name, type.ofType), { minLength: 1, maxLength: 2 });
  if (type instanceof GraphQLEnumType) return fc.constantFrom(...type.getValues().map((v) => v.value as unknown));
  if (type instanceof GraphQLInputObjectType) {
    return fc.record(Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, plausibleFor(f.name, f.type)])), { requiredKeys: [] });
  }
  const scalar = (type as GraphQLScalarType).name;
  const hint = HINTS.find(([pattern]) => pattern.test(name));
  if (hint && ['String', 'Int', 'Float'].includes(scalar)) return hint[1];
  switch (scalar) {
    case 'Int':
    case 'Float':
      return fc.integer({ min: 0, max: 100 });
    case 'Boolean':
      return fc.boolean();
    case 'UUID':
    case 'ID':
      return knownId;
    case 'Timestamp':
      return fc.integer({ min: 1_700_000_000, max: 1_900_000_000 });
    case 'JSON':
      return fc.constantFrom({}, { note: 'x' });
    default:
      return fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
  }
}

const asQueryValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');

/** Query strings: the route's own argument names with typed or garbage values, repeats, brackets and junk. */
function queryFor(route: RouteInfo): fc.Arbitrary<string> {
  const named = route.args.length
    ? fc.constantFrom(...route.args).chain((arg) =>
        fc.tuple(
          fc.constantFrom(arg.name, `${arg.name}[]`, `${arg.name}[0]`, `${arg.name}[x][y]`),
          fc.oneof(plausibleFor(arg.name, arg.type), valueFor(arg.type), anyString).map((v) => (Array.isArray(v) ? v.map(asQueryValue) : [asQueryValue(v)])),
        ),
      )
    : fc.constant<[string, string[]]>(['skip', ['1']]);
  const stranger = fc.tuple(fc.oneof(anyString, fc.constantFrom('__proto__', 'constructor[prototype][x]', 'skip', 'take')), anyString.map((v) => [v]));
  const pairs = fc.array(fc.oneof({ weight: 3, arbitrary: named }, { weight: 1, arbitrary: stranger }), { maxLength: 6 }).map((list) =>
    list.flatMap(([key, values]) => values.map((value) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)).join('&'),
  );
  const junk = fc.constantFrom('', '', '', '%', 'a=%E0%A4%A', '&&&', '=', '==x', 'ids[999999999]=x', 'a[b][c][d][e][f][g][h][i]=1', `skip=${'9'.repeat(400)}`);
  return fc.tuple(pairs, junk).map(([a, b]) => [a, b].filter(Boolean).join('&'));
}

/** Bodies: typed-ish objects with unknown extras, any JSON value, or not JSON at all. */
function bodyFor(route: RouteInfo): fc.Arbitrary<string | undefined> {
  const fields = route.args.filter((arg) => !route.pathParams.includes(arg.name));
  const typed = fc
    .tuple(
      fc.record(Object.fromEntries(fields.map((arg) => [arg.name, fc.oneof({ weight: 4, arbitrary: valueFor(arg.type) }, { weight: 1, arbitrary: json })])), { requiredKeys: [] }),
      fc.dictionary(anyString, json, { maxKeys: 2 }),
    )
    .map(([known, extra]) => JSON.stringify({ ...extra, ...known }));
  // Required fields and a few optional ones, all plausible.
  const required = fields.filter((arg) => arg.type instanceof GraphQLNonNull);
  const optional = fields.filter((arg) => !(arg.type instanceof GraphQLNonNull));
  const plausible = fc
    .tuple(
      fc.record(Object.fromEntries(required.map((arg) => [arg.name, plausibleFor(arg.name, arg.type)]))),
      fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((picked) => fc.record(Object.fromEntries(picked.map((arg) => [arg.name, plausibleFor(arg.name, arg.type)])))),
    )
    .map(([a, b]) => JSON.stringify({ ...a, ...b }));
  const notJson = fc.oneof(
    fc.constantFrom('{', '{"a":', 'undefined', 'NaN', '{"a":1,}', "{'a':1}", '\u0000', '{"a":"\\u0000"}', '[[[[[[[[[[[[[[[[[[[[', `${'['.repeat(5000)}${']'.repeat(5000)}`),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 4, arbitrary: typed }, { weight: 2, arbitrary: json.map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: notJson }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/** Path parameter values: real ids, random UUIDs, and garbage (sometimes not even encoded). */
const pathValue = fc.oneof(
  { weight: 4, arbitrary: knownId.map((id) => encodeURIComponent(id)) },
  { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  { weight: 2, arbitrary: anyString.filter((s) => s.length > 0).map((s) => encodeURIComponent(s)) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..', '.', '%2F', '%2e%2e', 'list', 'create', '-1', '0') },
);

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

function requestFor(route: RouteInfo): fc.Arbitrary<Sent> {
  const pathParams = fc.tuple(...route.pathParams.map(() => pathValue));
  return fc.record({ params: pathParams, query: queryFor(route), body: route.method === 'GET' ? fc.constant(undefined) : bodyFor(route), keys: keysArb(route.method) }).map(({ params, query, body, keys }) => {
    let i = 0;
    const path = `/v0${route.path.replace(/:\w+/g, () => params[i++]!)}`;
    return { method: route.method, path, query, body, keys };
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
  described = await describeRoutes(server.url);
  // A few real records, so ids in paths and bodies also hit existing rows.
  const keys = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
  for (const type of ['DigitalDownload', 'SoftwareKey', 'Subscription']) {
    const created = await send({ method: 'POST', path: '/v0/products/create', query: '', keys, body: JSON.stringify({ name: `Seed ${type}`, projectId: ws.projectId, type }) });
    const product = JSON.parse(created.text).data.product;
    await send({ method: 'POST', path: `/v0/products/${product.id}/variants/add`, query: '', keys, body: JSON.stringify({ name: 'Seed variant' }) });
    await send({ method: 'POST', path: '/v0/offers/create', query: '', keys, body: JSON.stringify({ productId: product.id, currency: 'USD', price: 1000 }) });
  }
  knownIds.push(ws.projectId);
  for (const route of described.filter((r) => r.method === 'GET' && r.pathParams.length === 0)) {
    const listed = await send({ method: 'GET', path: route.url(), query: '', keys });
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

test.each(routes.map((r) => [`${r.method} ${r.path}`, r.field] as const))('%s: random input never gets a 5xx, always the envelope; a rejected write changes nothing', async (_, field) => {
  const route = described.find((r) => r.field === field)!;
  await fc.assert(
    fc.asyncProperty(requestFor(route), async (request) => {
      const before = route.method === 'GET' ? undefined : await db.fingerprint();
      const response = await send(request);
      const body = checkResponse(request, response);
      if (body.status === 'success') harvestIds(body.data);
      if (before && response.status >= 400) {
        const after = await db.fingerprint();
        const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        if (changed.length) throw new Error(`rejected with ${response.status} but changed ${changed.join(', ')}: ${request.method} ${request.path} ${request.body?.slice(0, 300)}`);
      }
    }),
    { numRuns: RUNS_PER_ROUTE },
  );
}, 120_000);

test('random paths and methods under /v0 and beside it get the envelope, never a 5xx', async () => {
  const segment = fc.oneof(
    fc.constantFrom('v0', 'products', 'list', 'create', 'update', 'archive', 'offers', 'discounts', 'users', 'elements', 'checkout', 'variants', 'plans', ''),
    knownId,
    anyString.map((s) => encodeURIComponent(s)),
  );
  const request = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'),
    segments: fc.array(segment, { minLength: 0, maxLength: 6 }),
    rooted: fc.boolean(),
    keys: keysArb('POST'),
  });
  await fc.assert(
    fc.asyncProperty(request, async ({ method, segments, rooted, keys }) => {
      const path = `${rooted ? '/v0' : ''}/${segments.join('/')}`;
      if (path === '/graphql' || ['/healthz', '/readyz', '/metrics'].includes(path) || path.startsWith('/v0/openapi') || path.startsWith('/v0/docs')) return;
      const sent: Sent = { method, path, query: '', keys, body: method === 'GET' || method === 'OPTIONS' ? undefined : '{}' };
      checkResponse(sent, await send(sent));
    }),
    { numRuns: RUNS_PER_ROUTE * 4 },
  );
}, 120_000);
