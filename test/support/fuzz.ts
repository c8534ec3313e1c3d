import fc from 'fast-check';
import { operationsOf, responseProblems, unwrapNullable, type DocumentedOperation, type OpenApi, type Schema } from './openapi.js';
import { recordExchange } from './recorder.js';

// The fuzzing machinery of the property tests (test/properties.test.ts walks every operation of
// the published document with it; test/checkout-fuzz.test.ts the hosted checkout's routes):
// requests as raw as an attacker writes them, the envelope rules every answer must meet, and
// arbitraries for path values, query strings and bodies derived from the document's schemas.

export const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER;
export const MIB = 1_048_576;

export interface Sent {
  method: string;
  path: string;
  query: string;
  /** Request headers besides content-type: API keys, Idempotency-Key. */
  keys: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** null sends no content-type header. */
  contentType?: string | null;
}

export interface Received {
  status: number;
  headers: Headers;
  text: string;
}

export async function send(baseUrl: string, request: Sent): Promise<Received> {
  const url = `${baseUrl}${request.path}${request.query ? `?${request.query}` : ''}`;
  const headers: Record<string, string> = { ...request.keys };
  if (request.contentType !== null) headers['content-type'] = request.contentType ?? 'application/json';
  const response = await fetch(url, { method: request.method, headers, body: request.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

export const shown = (body: Sent['body']) => (typeof body === 'string' ? body.slice(0, 300) : body && `<${body.length} bytes>`);

export type Envelope = { status?: unknown; data?: unknown; error?: { message?: unknown } };

/** The envelope rules every response must meet, and for an operation its documented answers; returns the parsed body. */
export function checkAnswer(document: OpenApi, request: Sent, response: Received, operation?: DocumentedOperation): Envelope {
  const where = `${request.method} ${request.path}?${request.query.slice(0, 300)} (${request.contentType}) headers=${JSON.stringify(request.keys).slice(0, 300)} body=${shown(request.body)} -> ${response.status} ${response.text.slice(0, 300)}`;
  if (response.status >= 500) throw new Error(`5xx: ${where}`);
  if (!response.headers.get('x-request-id')) throw new Error(`no x-request-id: ${where}`);
  let body: Envelope;
  try {
    body = JSON.parse(response.text);
  } catch {
    throw new Error(`not JSON: ${where}`);
  }
  const success = body.status === 'success' && response.status < 300 && 'data' in body;
  const failure = body.status === 'error' && response.status >= 400 && typeof body.error?.message === 'string' && !('data' in body);
  if (!success && !failure) throw new Error(`not the envelope: ${where}`);
  const problems = operation ? responseProblems(document, operation.operation, response.status, body, response.headers) : [];
  if (operation) recordExchange({ method: request.method, url: request.path, status: response.status, request: typeof request.body === 'string' ? request.body : undefined, response: body, valid: problems.length === 0 });
  if (problems.length) throw new Error(`not as documented for ${operation!.method} ${operation!.path} (${problems.join('; ')}): ${where}`);
  return body;
}

/** Ids seen in a successful answer (`id`, `...Id` fields holding UUIDs) added to `knownIds`. */
export function harvestIds(knownIds: string[], value: unknown): void {
  if (Array.isArray(value)) value.forEach((item) => harvestIds(knownIds, item));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if ((key === 'id' || key.endsWith('Id')) && typeof inner === 'string' && /^[0-9a-f-]{36}$/.test(inner) && !knownIds.includes(inner)) knownIds.push(inner);
      else harvestIds(knownIds, inner);
    }
  }
}

/**
 * The arbitraries for one document: values from its schemas, plausible values by field name,
 * query strings and bodies per operation, path values. `knownIds` (filled by harvestIds as a run
 * goes) supplies real ids for path parameters and id fields.
 */
export function fuzzKit(document: OpenApi, knownIds: string[]) {
  const operations = operationsOf(document);
  const nasty = fc.constantFrom(
    '', ' ', '0', '-1', '1.5', '1e400', '-0', 'NaN', 'Infinity', 'null', 'true', 'false', '[]', '{}',
    '99999999999999999999999', String(MAX_TIMESTAMP + 1), '2147483648', '-2147483649',
    'a'.repeat(1000), '\u0000', 'a\u0000b', '💥', 'ǅ̶̡', '\u202e', '\ud800', 'x\udfff', '<script>', "' OR 1=1 --", '../..', '%', '%00', '%zz',
    'USD', 'EUR', 'JPY', 'XXX', 'month', 'year', 'DigitalDownload', 'SoftwareKey', 'code', 'sale', 'fixed', 'percentage',
    'active', 'inactive', 'ACTIVE', 'DRAFT', 'ASC', 'DESC', 'https://hooks.example.test/endpoint', 'user@example.com', 'DE', 'XK',
  );
  const anyString = fc.oneof(
    { weight: 3, arbitrary: nasty },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  );
  /** Strings at and just past a documented maxLength, counted in characters and in UTF-16 units. */
  const aroundMaxLength = (max: number) => fc.constantFrom('a'.repeat(max), 'a'.repeat(max + 1), '😀'.repeat(max), 'é'.repeat(max + 1), `${'😀'.repeat(max)}a`);
  const knownId = fc.nat().map((i) => knownIds[i % Math.max(knownIds.length, 1)] ?? crypto.randomUUID());
  const anyInt = fc.oneof(
    fc.integer({ min: -3, max: 150 }),
    fc.integer(),
    fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 1e20, 0.5, MAX_TIMESTAMP, MAX_TIMESTAMP + 2),
  );
  /** JSON nested 33 to 60 levels: past the limit of 32. */
  const tooDeep = fc.integer({ min: 33, max: 60 }).map((levels) => Array.from({ length: levels }).reduce<unknown>((inner) => ({ a: inner }), 1));
  const hostileJson = fc.oneof(
    tooDeep,
    fc.constantFrom({ ['k'.repeat(201)]: 1 }, { a: 'v'.repeat(2_049) }, { a: ['\u0000'] }, { '\ud800': 1 }),
  );
  const json = fc.oneof({ weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: hostileJson });

  const unwrap = (schema: Schema) => unwrapNullable(document, schema);

  /** A value of (or near) a schema, as JSON. */
  function valueFor(schema: Schema): fc.Arbitrary<unknown> {
    const { node, nullable } = unwrap(schema);
    const value = valueOfNode(node);
    return nullable ? fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) : value;
  }

  function valueOfNode(node: Schema): fc.Arbitrary<unknown> {
    if (node.enum) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(node.enum as unknown[])) }, { weight: 1, arbitrary: anyString });
    switch (node.type) {
      case 'string':
        if (node.format === 'uuid') return fc.oneof({ weight: 4, arbitrary: knownId }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: anyString });
        return node.maxLength === undefined ? anyString : fc.oneof({ weight: 4, arbitrary: anyString }, { weight: 1, arbitrary: aroundMaxLength(node.maxLength) });
      case 'integer':
        return node.minimum === 0 ? fc.oneof(fc.integer({ min: 0, max: MAX_TIMESTAMP }), fc.constantFrom(-1, MAX_TIMESTAMP + 1, 1.5, 1e300), fc.integer()) : anyInt;
      case 'number':
        return fc.oneof(anyInt, fc.double({ noNaN: true, noDefaultInfinity: true }));
      case 'boolean':
        return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 0, 1, null) });
      case 'array':
        return fc.oneof(fc.array(valueFor(node.items), { maxLength: 4 }), valueFor(node.items));
      case 'object':
        return fc.record(Object.fromEntries(Object.entries((node.properties ?? {}) as Record<string, Schema>).map(([name, property]) => [name, valueFor(property)])), { requiredKeys: [] });
      default:
        return json;
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

  /** A value that fits a schema and, by its name, probably its rules. */
  function plausibleFor(name: string, schema: Schema): fc.Arbitrary<unknown> {
    const { node } = unwrap(schema);
    if (node.enum) return fc.constantFrom(...(node.enum as unknown[]));
    const hint = HINTS.find(([pattern]) => pattern.test(name));
    if (hint && ['string', 'integer', 'number'].includes(node.type) && node.format !== 'uuid') return hint[1];
    switch (node.type) {
      case 'string':
        return node.format === 'uuid' ? knownId : fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
      case 'integer':
        return node.minimum === 0 ? fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }) : fc.integer({ min: 0, max: 100 });
      case 'number':
        return fc.integer({ min: 0, max: 100 });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(plausibleFor(name, node.items), { minLength: 1, maxLength: 2 });
      case 'object':
        return fc.record(Object.fromEntries(Object.entries((node.properties ?? {}) as Record<string, Schema>).map(([field, property]) => [field, plausibleFor(field, property)])), { requiredKeys: [] });
      default:
        return fc.constantFrom({}, { note: 'x' });
    }
  }

  const asQueryValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');
  /** Percent-encoded; a lone surrogate has no UTF-8 form, so it goes as U+FFFD (raw bad bytes come from the junk lists). */
  const encode = (text: string) => encodeURIComponent(text.replace(/\p{Surrogate}/gu, '\ufffd'));

  const parametersOf = (operation: DocumentedOperation, where: 'path' | 'query') => ((operation.operation.parameters ?? []) as Schema[]).filter((p) => p.in === where);

  /** Query strings: the operation's own parameter names with typed or garbage values, repeats, brackets and junk. */
  function queryFor(operation: DocumentedOperation): fc.Arbitrary<string> {
    const parameters = parametersOf(operation, 'query');
    const named = parameters.length
      ? fc.constantFrom(...parameters).chain((parameter) =>
          fc.tuple(
            fc.constantFrom(parameter.name, `${parameter.name}[]`, `${parameter.name}[0]`, `${parameter.name}[x][y]`),
            fc.oneof(plausibleFor(parameter.name, parameter.schema), valueFor(parameter.schema), anyString).map((v) => (Array.isArray(v) ? v.map(asQueryValue) : [asQueryValue(v)])),
          ),
        )
      : fc.constant<[string, string[]]>(['skip', ['1']]);
    const stranger = fc.tuple(fc.oneof(anyString, fc.constantFrom('__proto__', 'constructor[prototype][x]', 'skip', 'take')), anyString.map((v) => [v]));
    const pairs = fc.array(fc.oneof({ weight: 3, arbitrary: named }, { weight: 1, arbitrary: stranger }), { maxLength: 6 }).map((list) =>
      list.flatMap(([key, values]) => values.map((value) => `${encode(key)}=${encode(value)}`)).join('&'),
    );
    const junk = fc.constantFrom('', '', '', '%', 'a=%E0%A4%A', 'termOrId=%ED%A0%80', '&&&', '=', '==x', 'ids[999999999]=x', 'a[b][c][d][e][f][g][h][i]=1', `skip=${'9'.repeat(400)}`);
    return fc.tuple(pairs, junk).map(([a, b]) => [a, b].filter(Boolean).join('&'));
  }

  const utf8 = (text: string) => new TextEncoder().encode(text);

  /** Bodies: typed-ish objects with unknown extras, any JSON value, hostile encodings and sizes, or not JSON at all. */
  function bodyFor(operation: DocumentedOperation): fc.Arbitrary<Sent['body']> {
    const schema = operation.operation.requestBody?.content['application/json']?.schema ?? { properties: {} };
    const fields = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
    const requiredNames = new Set((schema.required ?? []) as string[]);
    const typed = fc
      .tuple(
        fc.record(Object.fromEntries(fields.map(([name, property]) => [name, fc.oneof({ weight: 4, arbitrary: valueFor(property) }, { weight: 1, arbitrary: json })])), { requiredKeys: [] }),
        fc.dictionary(anyString, json, { maxKeys: 2 }),
      )
      .map(([known, extra]) => JSON.stringify({ ...extra, ...known }));
    // Required fields and a few optional ones, all plausible.
    const required = fields.filter(([name]) => requiredNames.has(name));
    const optional = fields.filter(([name]) => !requiredNames.has(name));
    const plausibleObject = fc
      .tuple(
        fc.record(Object.fromEntries(required.map(([name, property]) => [name, plausibleFor(name, property)]))),
        fc.subarray(optional, { maxLength: Math.min(3, optional.length) }).chain((picked) => fc.record(Object.fromEntries(picked.map(([name, property]) => [name, plausibleFor(name, property)])))),
      )
      .map(([a, b]) => ({ ...a, ...b }));
    const plausible = plausibleObject.map((value) => JSON.stringify(value));
    // A plausible body spoiled in one place, at the level of its bytes.
    const spoiled = fc.tuple(plausibleObject, fc.constantFrom('invalid UTF-8', 'lone surrogate', 'deep', 'oversized')).map(([value, how]): Sent['body'] => {
      const text = JSON.stringify({ ...value, spoiled: 'HERE' });
      if (how === 'invalid UTF-8') return Uint8Array.from([...utf8(text.replace('HERE', '')), 0xff, 0xfe]);
      if (how === 'lone surrogate') return text.replace('HERE', 'a\\ud800b');
      if (how === 'deep') return text.replace('"HERE"', `${'['.repeat(40)}${']'.repeat(40)}`);
      return text.replace('HERE', 'x'.repeat(MIB));
    });
    const notJson = fc.oneof(
      fc.constantFrom('{', '{"a":', 'undefined', 'NaN', '{"a":1,}', "{'a':1}", '\u0000', '{"a":"\\u0000"}', '[[[[[[[[[[[[[[[[[[[[', `${'['.repeat(5000)}${']'.repeat(5000)}`),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    return fc.oneof(
      { weight: 4, arbitrary: plausible },
      { weight: 4, arbitrary: typed },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: spoiled },
      { weight: 1, arbitrary: notJson },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  }

  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom<string | null>('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', null) },
  );

  // Static segments of the document ("list", "create", ...): as a path value they would select
  // another route, and dot segments are removed by the URL parser; the random paths test has both.
  const staticSegments = new Set(operations.flatMap((o) => o.path.split('/').filter((segment) => segment && !segment.startsWith('{'))));

  /** Path parameter values: real ids, random UUIDs, and garbage (sometimes not even encoded). */
  const pathValue = fc
    .oneof(
      { weight: 4, arbitrary: knownId.map((id) => encodeURIComponent(id)) },
      { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
      { weight: 2, arbitrary: anyString.filter((s) => s.length > 0).map(encode) },
      { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%2F', '%ED%A0%80', '-1', '0') },
    )
    .filter((value) => !staticSegments.has(value) && !/^(\.|%2e){1,2}$/i.test(value));

  return { nasty, anyString, aroundMaxLength, knownId, anyInt, json, valueFor, plausibleFor, encode, parametersOf, queryFor, bodyFor, contentType, pathValue, utf8 };
}

