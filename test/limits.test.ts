import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getIntrospectionQuery } from 'graphql';
import { JSON_LIMITS, STRING_LIMITS } from '../src/graphql/input-limits.js';
import { QUERY_LIMITS } from '../src/graphql/query-limits.js';
import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { operationAt, operationsOf, readDocument, responseProblems, unwrapNullable, type OpenApi, type Schema } from './support/openapi.js';
import { httpOnlyEnv, ROOT, startServerProcess, type ServerProcess } from './support/processes.js';
import { useSuiteDatabase } from './support/responses.js';

// Hostile input through the real server: body size, nesting, encodings and content types, the
// maximum length of every string, GraphQL document limits, and the answers Node's HTTP parser
// gives before the app runs. Every REST answer is checked against the published document.

const MIB = 1_048_576;
const db = useSuiteDatabase();
let ws: Workspace;
let document: OpenApi;

beforeAll(async () => {
  [ws, document] = await Promise.all([newWorkspace('Hostile input'), readDocument()]);
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A request with any body (bytes included) and the keys of the test workspace unless told otherwise. */
async function send(method: string, path: string, options: { body?: string | Buffer; contentType?: string | null; headers?: Record<string, string>; url?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...keyHeaders(ws), ...options.headers };
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const body = typeof options.body === 'string' || options.body === undefined ? options.body : new Uint8Array(options.body);
  const response = await fetch(`${options.url ?? baseUrl()}${path}`, { method, headers, body });
  const text = await response.text();
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) };
  } catch {
    // Stays text: the assertion shows it.
    return { status: response.status, headers: response.headers, body: text };
  }
}

/** An error answer in the envelope, with a request id, as the document describes it for the operation. */
function expectRefused(answer: Answer, status: number, method: string, path: string, message?: RegExp | string) {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { status: 'error', error: { message: expect.any(String) } } });
  expect(answer.headers.get('x-request-id')).toBeTruthy();
  if (message !== undefined) expect(answer.body.error.message).toMatch(message);
  if (path.startsWith('/v0/')) expect(responseProblems(document, operationAt(document, method, path.split('?')[0]!).operation, answer.status, answer.body)).toEqual([]);
}

const productsNamed = async (name: string) => Number((await db.query('SELECT count(*) FROM "Product" WHERE name = $1', [name])).rows[0].count);
const nested = (levels: number, leaf = '1') => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
const productBody = (name: string, extra = '') => `{"name":${JSON.stringify(name)},"projectId":"${ws.projectId}","type":"Game"${extra}}`;

describe('request bodies', () => {
  test('a body over 1 MiB is refused with 413 from its content-length, before it is read', async () => {
    const name = `Too large ${randomUUID()}`;
    const body = productBody(name, `,"description":"${'x'.repeat(MIB)}"`);
    const answer = await send('POST', '/v0/products/create', { body });
    expectRefused(answer, 413, 'POST', '/v0/products/create', /larger than 1048576 bytes/);
    expect(await productsNamed(name)).toBe(0);
  });

  test('a body without a length is refused while it streams, once it passes the limit; one that goes on is cut off', async () => {
    // Chunked, 64 KiB at a time, and on after the answer (as a client that does not read would):
    // the 413 must come after about 1 MiB, and the connection must be cut a few MiB later.
    const result = await new Promise<{ status?: number; text: string; sentBeforeAnswer?: number; sent: number }>((done) => {
      const outcome: { status?: number; text: string; sentBeforeAnswer?: number; sent: number } = { text: '', sent: 0 };
      const request = http.request(`${baseUrl()}/v0/products/create`, { method: 'POST', headers: { ...keyHeaders(ws), 'content-type': 'application/json' } }, (response) => {
        outcome.status = response.statusCode;
        outcome.sentBeforeAnswer = outcome.sent;
        response.on('data', (chunk: Buffer) => (outcome.text += chunk.toString()));
      });
      request.on('error', () => done(outcome));
      request.on('close', () => done(outcome));
      request.write('{"description":"');
      const push = () => {
        if (outcome.sent > 256 * MIB) return request.destroy();
        outcome.sent += 65_536;
        request.write('x'.repeat(65_536), (error) => error || setImmediate(push));
      };
      push();
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.text)).toEqual({ status: 'error', error: { message: 'The request body is larger than 1048576 bytes' } });
    expect(result.sentBeforeAnswer).toBeLessThan(8 * MIB);
    expect(result.sent).toBeLessThan(64 * MIB);
  });

  test('JSON nested more than 32 levels is a 400; 32 levels are stored', async () => {
    const name = `Nested ${randomUUID()}`;
    // The body is level 1: customFields nested 31 deep makes 32.
    const fits = await send('POST', '/v0/products/create', { body: productBody(name, `,"customFields":${nested(31)}`) });
    expect(fits.status).toBe(200);
    const tooDeep = await send('POST', '/v0/products/create', { body: productBody(`${name} deeper`, `,"customFields":${nested(32)}`) });
    expectRefused(tooDeep, 400, 'POST', '/v0/products/create', /nests arrays and objects more than 32 levels deep/);
    expect(await productsNamed(`${name} deeper`)).toBe(0);
  });

  test('the issue\'s 3,000 levels on products create and update and on users details are 400s, never a 5xx', async () => {
    const product = (await send('POST', '/v0/products/create', { body: productBody(`Deep target ${randomUUID()}`) })).body.data.product;
    const deep = nested(3_000);
    const deepArrays = `${'['.repeat(3_000)}${']'.repeat(3_000)}`;
    const cases: Array<[string, string, string]> = [
      ['POST', '/v0/products/create', productBody(`Deep ${randomUUID()}`, `,"customFields":${deep}`)],
      ['PATCH', `/v0/products/${product.id}/update`, `{"customFields":${deep}}`],
      ['POST', '/v0/users/create', `{"email":"deep-${randomUUID()}@example.com","details":${deepArrays}}`],
    ];
    for (const [method, path, body] of cases) expectRefused(await send(method, path, { body }), 400, method, path, /more than 32 levels deep/);
    expect((await send('GET', `/v0/products/${product.id}`)).body.data.product.customFields).toBeNull();
  });

  test('invalid UTF-8 is a 400, anywhere in the body', async () => {
    const name = `Bytes ${randomUUID()}`;
    const prefix = Buffer.from(`{"name":"${name}`);
    for (const bad of [[0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]) {
      const body = Buffer.concat([prefix, Buffer.from(bad), Buffer.from(`","projectId":"${ws.projectId}","type":"Game"}`)]);
      expectRefused(await send('POST', '/v0/products/create', { body }), 400, 'POST', '/v0/products/create', 'The request body is not valid UTF-8');
    }
    expect(await productsNamed(name)).toBe(0);
    const valid = await send('POST', '/v0/products/create', { body: Buffer.from(productBody(`${name} ✓ 💥`)) });
    expect(valid.body.data.product.name).toBe(`${name} ✓ 💥`);
  });

  test('a lone surrogate escape in a string or key is a 400; a pair is a character', async () => {
    const name = `Surrogate ${randomUUID()}`;
    const named = (escape: string) => productBody(name).replace(name, `${name} ${escape}`);
    for (const body of [
      named('\\ud800'),
      named('\\udc00x'),
      productBody(name, ',"customFields":{"k\\ud83d":1}'),
      productBody(name, ',"unknownField":"\\udfff"'),
    ]) {
      expectRefused(await send('POST', '/v0/products/create', { body }), 400, 'POST', '/v0/products/create', /lone UTF-16 surrogate/);
    }
    expect(await productsNamed(name)).toBe(0);
    const paired = await send('POST', '/v0/products/create', { body: named('\\ud83d\\ude00') });
    expect(paired.body.data.product.name).toBe(`${name} 😀`);
  });

  test('a write whose body is not JSON is 415; an empty body needs no type', async () => {
    const name = `Typed ${randomUUID()}`;
    const body = productBody(name);
    for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx', null]) {
      expectRefused(await send('POST', '/v0/products/create', { body, contentType }), 415, 'POST', '/v0/products/create', /content-type: application\/json/);
    }
    expect(await productsNamed(name)).toBe(0);
    const product = (await send('POST', '/v0/products/create', { body, contentType: 'Application/JSON; charset="utf-8"' })).body.data.product;
    expect(product.name).toBe(name);
    const archived = await send('PATCH', `/v0/products/${product.id}/archive`, { contentType: 'text/plain' });
    expect(archived.status).toBe(200);
  });

  describe('with MAX_BODY_BYTES set', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, MAX_BODY_BYTES: '2048', RATE_LIMIT_POINTS: '1000000' });
    });
    afterAll(() => server?.stop());

    test('the limit is the configured one, on REST writes and /graphql alike', async () => {
      const sized = (size: number) => {
        const body = productBody(`Sized ${randomUUID()}`, ',"description":""');
        return `${body.slice(0, -2)}${'x'.repeat(size - body.length)}"}`;
      };
      expect((await send('POST', '/v0/products/create', { url: server.url, body: sized(2048) })).status).toBe(200);
      expectRefused(await send('POST', '/v0/products/create', { url: server.url, body: sized(2049) }), 413, 'POST', '/v0/products/create', /larger than 2048 bytes/);
      const query = JSON.stringify({ query: `{ __typename }${' '.repeat(2048)}` });
      expectRefused(await send('POST', '/graphql', { url: server.url, body: query }), 413, 'POST', '/graphql', /larger than 2048 bytes/);
    });
  });
});

describe('GraphQL requests', () => {
  const graphql = (body: string | Buffer, contentType?: string | null) => send('POST', '/graphql', { body, contentType });
  const run = async (query: string, variables?: Record<string, unknown>) => (await graphql(JSON.stringify({ query, variables }))).body;

  test('the body rules apply: size, nesting, UTF-8, lone surrogates, JSON only', async () => {
    expectRefused(await graphql(JSON.stringify({ query: `{ __typename }${' '.repeat(MIB)}` })), 413, 'POST', '/graphql');
    expectRefused(await graphql(`{"query":"{ __typename }","variables":{"a":${nested(40)}}}`), 400, 'POST', '/graphql', /more than 32 levels/);
    expectRefused(await graphql(Buffer.concat([Buffer.from('{"query":"{ __typename }","operationName":"'), Buffer.from([0xff]), Buffer.from('"}')])), 400, 'POST', '/graphql', /UTF-8/);
    expectRefused(await graphql('{"query":"{ __typename }","variables":{"a":"\\ud800"}}'), 400, 'POST', '/graphql', /surrogate/);
    expectRefused(await graphql('{"query":"{ __typename }"}', 'text/plain'), 415, 'POST', '/graphql');
    expectRefused(await graphql('[{"query":"{ __typename }"}]'), 400, 'POST', '/graphql', /JSON object/);
    expect(await run('{ __typename }')).toEqual({ data: { __typename: 'Query' } });
  });

  test('the 2,800-character slug is refused naming slug, and no product is written', async () => {
    const name = `GraphQL slug ${randomUUID()}`;
    const result = await run('mutation($name: String!, $projectId: UUID!, $slug: String) { createProduct(name: $name, projectId: $projectId, type: Game, slug: $slug) { product { id } } }', {
      name,
      projectId: ws.projectId,
      slug: 'a'.repeat(2_800),
    });
    expect(result.errors).toEqual([expect.objectContaining({ message: 'slug: at most 100 characters', extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) })]);
    expect(await productsNamed(name)).toBe(0);
  });

  test('literals get the same checks as variables: NUL, length, JSON depth', async () => {
    const name = `Literal ${randomUUID()}`;
    const create = (args: string) => run(`mutation { createProduct(projectId: "${ws.projectId}", type: Game, ${args}) { product { id } } }`);
    expect((await create(`name: "${name}\\u0000"`)).errors[0].message).toBe('name: contains a NUL character');
    expect((await create(`name: "${name}${'n'.repeat(255)}"`)).errors[0].message).toBe('name: at most 255 characters');
    expect((await create(`name: "${name}", customFields: ${'{a: '.repeat(40)}1${'}'.repeat(40)}`)).errors[0].message).toMatch(/^customFields(\.a)+: JSON nested more than 32 levels deep$/);
    expect((await create(`name: "${name}", customFields: {${'k'.repeat(201)}: 1}`)).errors[0].message).toBe('customFields (a key): at most 200 characters');
    expect(await productsNamed(name)).toBe(0);
  });

  test('a query deeper than 16 levels, with more than 1,000 fields or 2,000 tokens is refused; introspection is not', async () => {
    const deep = `{ __schema { types { fields { type ${'{ ofType '.repeat(12)}{ name }${' }'.repeat(12)} } } } }`;
    expect((await run(deep)).errors[0].message).toBe('The operation nests selections 17 levels deep; at most 16 are allowed');
    // 2,000 tokens hold about 660 aliased fields: more takes fragments, here 11 spreads of 100.
    const hundred = `fragment Hundred on Query { ${Array.from({ length: 100 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    expect((await run(`{ ${'...Hundred '.repeat(11)}} ${hundred}`)).errors[0].message).toBe('The operation selects 1100 fields (fragments expanded); at most 1000 are allowed');
    expect((await run(`{ ${'...Hundred '.repeat(10)}} ${hundred}`)).errors).toBeUndefined();
    // Each fragment doubles the one before: 2^40 fields if expanded, measured without expanding.
    const fragments = ['fragment F0 on Query { __typename }', ...Array.from({ length: 40 }, (_, i) => `fragment F${i + 1} on Query { ...F${i} a: __typename ...F${i} }`)];
    expect((await run(`{ ...F40 } ${fragments.join(' ')}`)).errors[0].message).toMatch(/^The operation selects \d+ fields \(fragments expanded\); at most 1000 are allowed$/);
    expect((await run(`{ ${'__typename '.repeat(2_001)}}`)).errors[0].message).toMatch(/more that 2000 tokens/);
    const introspection = await run(getIntrospectionQuery({ descriptions: true }));
    expect(introspection.errors).toBeUndefined();
    expect(introspection.data.__schema.queryType.name).toBe('Query');
  });
});

describe('query strings', () => {
  test('a list may be written ids=a&ids=b, ids[]=a or ids[0]=a; a single value given twice or bracketed is a 400 naming it', async () => {
    const created = [];
    for (const name of ['Query list one', 'Query list two']) {
      const answer = await send('POST', '/v0/products/create', { body: productBody(name) });
      expect(answer.status).toBe(200);
      created.push(answer.body.data.product.id as string);
    }
    const read = (query: string) => send('GET', `/v0/products/list?${query}`);
    for (const names of [['ids', 'ids'], ['ids[]', 'ids[]'], ['ids[0]', 'ids[1]']]) {
      const answer = await read(created.map((id, index) => `${encodeURIComponent(names[index]!)}=${id}`).join('&'));
      expect({ names, status: answer.status }).toEqual({ names, status: 200 });
      expect(answer.body.data.products.map((p: { id: string }) => p.id).sort()).toEqual([...created].sort());
    }
    for (const query of ['take=1&take=2', 'take%5B%5D=1', 'termOrId=a&termOrId=b']) {
      expectRefused(await read(query), 400, 'GET', '/v0/products/list', new RegExp(`^${query.split('=')[0]!.replace('%5B%5D', '')}: `));
    }
    // An empty value is no value: the default page size.
    expect((await read('take=')).body.data.products.length).toBeGreaterThanOrEqual(2);
  });
});

describe('string lengths', () => {
  /** A value of a schema that gets past type checks (not business rules): the smallest of its type. */
  function minimal(schema: Schema): unknown {
    const { node } = unwrapNullable(document, schema);
    if (node.enum) return node.enum[0];
    switch (node.type) {
      case 'string':
        return node.format === 'uuid' ? randomUUID() : 'x';
      case 'integer':
      case 'number':
        return 1;
      case 'boolean':
        return true;
      case 'array':
        return [];
      case 'object':
        return Object.fromEntries(((node.required ?? []) as string[]).map((key) => [key, minimal(node.properties[key])]));
      default:
        return {};
    }
  }

  interface Limited {
    method: string;
    path: string;
    /** The argument, dotted into an input object, with [0] for a list item. */
    where: string;
    maxLength: number;
    request(value: string): { path: string; body?: string };
  }

  /** Every string the document gives a maxLength, in query strings, bodies and input objects of bodies. */
  function limitedStrings(): Limited[] {
    const found: Limited[] = [];
    for (const { path: template, method, operation } of operationsOf(document)) {
      const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
      for (const parameter of (operation.parameters ?? []) as Schema[]) {
        const item = parameter.schema.type === 'array' ? parameter.schema.items : parameter.schema;
        if (parameter.in !== 'query' || item.maxLength === undefined) continue;
        const list = parameter.schema.type === 'array';
        found.push({ method, path: template, where: `${parameter.name}${list ? '[0]' : ''}`, maxLength: item.maxLength, request: (value) => ({ path: `${path}?${parameter.name}=${encodeURIComponent(value)}` }) });
      }
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      if (!bodySchema) continue;
      const base = minimal(bodySchema) as Record<string, unknown>;
      const withValue = (name: string, value: unknown) => ({ path, body: JSON.stringify({ ...base, [name]: value }) });
      for (const [name, property] of Object.entries(bodySchema.properties as Record<string, Schema>)) {
        const { node: inner } = unwrapNullable(document, property);
        if (inner.type === 'string' && inner.maxLength !== undefined) {
          found.push({ method, path: template, where: name, maxLength: inner.maxLength, request: (value) => withValue(name, value) });
        } else if (inner.type === 'array' && inner.items.maxLength !== undefined) {
          found.push({ method, path: template, where: `${name}[0]`, maxLength: inner.items.maxLength, request: (value) => withValue(name, [value]) });
        } else if (inner.type === 'object') {
          for (const [field, fieldSchema] of Object.entries((inner.properties ?? {}) as Record<string, Schema>)) {
            if (fieldSchema.maxLength === undefined) continue;
            found.push({ method, path: template, where: `${name}.${field}`, maxLength: fieldSchema.maxLength, request: (value) => withValue(name, { ...(minimal(inner) as object), [field]: value }) });
          }
        }
      }
    }
    return found;
  }

  test('docs/decisions/general.md states exactly the limits the server enforces', async () => {
    const text = await readFile(path.join(ROOT, 'docs/decisions/general.md'), 'utf8');
    const documented: Record<string, number> = {};
    for (const [, max, names] of text.matchAll(/^\s*\| ([\d,]+) \| (`.*`) \|$/gm)) {
      for (const [, name] of names!.matchAll(/`(\w+)`/g)) documented[name!] = Number(max!.replace(/,/g, ''));
    }
    expect(documented).toEqual(STRING_LIMITS);
    const n = (value: number) => value.toLocaleString('en-US');
    expect(text).toContain(`at most **${n(JSON_LIMITS.depth)}** levels deep`);
    expect(text).toContain(`every key has\n  at most **${n(JSON_LIMITS.key)}** characters and every string at most **${n(JSON_LIMITS.string)}**`);
    expect(text).toContain(`at most **${n(QUERY_LIMITS.tokens)}** tokens (parsing stops there), **${n(QUERY_LIMITS.depth)}**\n  levels of nested selections and **${n(QUERY_LIMITS.fields)}** field selections`);
  });

  test('every string argument in the document has a maxLength', () => {
    const unlimited = operationsOf(document).flatMap(({ method, path, operation }) => {
      const fields: Array<[string, Schema]> = [
        ...((operation.parameters ?? []) as Schema[]).map((p): [string, Schema] => [p.name, p.schema]),
        ...Object.entries((operation.requestBody?.content['application/json']?.schema.properties ?? {}) as Record<string, Schema>),
      ];
      return fields
        .map(([name, schema]): [string, Schema] => [name, unwrapNullable(document, schema).node])
        .filter(([, schema]) => (schema.type === 'string' && !schema.format && !schema.enum && schema.maxLength === undefined) || (schema.type === 'array' && schema.items.type === 'string' && !schema.items.format && schema.items.maxLength === undefined))
        .map(([name]) => `${method} ${path} ${name}`);
    });
    expect(unlimited).toEqual([]);
    expect(limitedStrings().length).toBeGreaterThan(60);
  });

  test('one character over the documented maxLength is a 400 naming the field; at the limit it is not refused for its length', async () => {
    for (const limited of limitedStrings()) {
      const over = limited.request('é'.repeat(limited.maxLength + 1));
      const refused = await send(limited.method, over.path, { body: over.body });
      expect([limited.method, limited.path, limited.where, refused.status, refused.body?.error?.message]).toEqual([
        limited.method,
        limited.path,
        limited.where,
        400,
        `${limited.where}: at most ${limited.maxLength} characters`,
      ]);
      expect(responseProblems(document, operationAt(document, limited.method, over.path.split('?')[0]!).operation, refused.status, refused.body)).toEqual([]);
      // Characters, not UTF-16 units: a string of astral characters at the limit passes this check.
      const at = limited.request('😀'.repeat(limited.maxLength));
      const answer = await send(limited.method, at.path, { body: at.body });
      expect([limited.method, limited.path, limited.where, answer.body?.error?.message ?? 'accepted']).not.toEqual([
        limited.method,
        limited.path,
        limited.where,
        expect.stringMatching(/at most \d+ characters/),
      ]);
      expect(answer.status).toBeLessThan(500);
    }
  }, 120_000);

  test('the issue\'s 2,800-character lowercase slug is a 400 naming slug and never reaches the database', async () => {
    const name = `Long slug ${randomUUID()}`;
    const answer = await send('POST', '/v0/products/create', { body: productBody(name, `,"slug":"${'a'.repeat(2_800)}"`) });
    expectRefused(answer, 400, 'POST', '/v0/products/create', 'slug: at most 100 characters');
    expect(await productsNamed(name)).toBe(0);
    const fits = await send('POST', '/v0/products/create', { body: productBody(name, `,"slug":"${'a'.repeat(100)}"`) });
    expect(fits.status).toBe(200);
  });

  test('JSON values: keys of at most 200 and strings of at most 2,048 characters, at any depth', async () => {
    const name = `Json strings ${randomUUID()}`;
    const refuse = async (customFields: unknown, message: string) =>
      expectRefused(await send('POST', '/v0/products/create', { body: productBody(name, `,"customFields":${JSON.stringify(customFields)}`) }), 400, 'POST', '/v0/products/create', message);
    await refuse({ ['k'.repeat(201)]: 1 }, 'customFields (a key): at most 200 characters');
    await refuse({ a: { b: ['ok', 'v'.repeat(2_049)] } }, 'customFields.a.b[1]: at most 2048 characters');
    await refuse({ a: 'nul\u0000' }, 'body.customFields.a: contains a NUL character');
    expect(await productsNamed(name)).toBe(0);
    const fits = await send('POST', '/v0/products/create', { body: productBody(name, `,"customFields":${JSON.stringify({ ['k'.repeat(200)]: 'v'.repeat(2_048) })}`) });
    expect(fits.status).toBe(200);
  });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes on a fresh connection and reads every response until the server closes it. */
function exchange(bytes: string | Buffer): Promise<{ answers: RawAnswer[]; closed: boolean }> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((done, fail) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      done({ answers: parseAnswers(Buffer.concat(chunks)), closed: false });
    }, 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', fail);
    socket.on('close', () => {
      clearTimeout(timer);
      done({ answers: parseAnswers(Buffer.concat(chunks)), closed: true });
    });
    socket.write(bytes);
  });
}

/** HTTP/1.1 responses, one after another, with content-length or chunked bodies. */
function parseAnswers(data: Buffer): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let text = data.toString('latin1');
  while (text.length > 0) {
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response: ${text}`);
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    let rest = text.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    text = rest;
  }
  return answers;
}

describe('answers of the HTTP parser', () => {
  const request = (target: string, headers: string[] = []) => [`GET ${target} HTTP/1.1`, 'Host: localhost', ...headers, '', ''].join('\r\n');

  function expectEnvelope(answer: RawAnswer | undefined, status: number, message: RegExp) {
    expect(answer?.status).toBe(status);
    expect(answer!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer!.headers.connection).toBe('close');
    const body = JSON.parse(answer!.body);
    expect(body).toEqual({ status: 'error', error: { message: expect.stringMatching(message) } });
    return body;
  }

  test('headers too large are 431 in the envelope, as documented for every operation, then the connection closes', async () => {
    const { answers, closed } = await exchange(request('/v0/products/list', [`x-padding: ${'a'.repeat(20_000)}`]));
    const body = expectEnvelope(answers[0], 431, /headers are too large/);
    expect(responseProblems(document, operationAt(document, 'GET', '/v0/products/list').operation, 431, body)).toEqual([]);
    expect(closed).toBe(true);
  });

  test('a URL too large is 431', async () => {
    const { answers, closed } = await exchange(request(`/v0/products/list?termOrId=${'a'.repeat(20_000)}`));
    expectEnvelope(answers[0], 431, /too large/);
    expect(closed).toBe(true);
  });

  test('bytes that are not HTTP, and a NUL in a header, are 400', async () => {
    for (const bytes of [Buffer.from([0xff, 0xfe, 0xfd, 0x0d, 0x0a, 0x0d, 0x0a]), request('/v0/products/list', ['x-note: a\u0000b']), request('/v0/products/list', ['bad header'])]) {
      const { answers, closed } = await exchange(bytes);
      expect(answers).toHaveLength(1);
      expectEnvelope(answers[0], 400, /not valid HTTP/);
      expect(closed).toBe(true);
    }
  });

  test('a bad request behind a good one on a kept-alive connection: the good one is answered, then the 400', async () => {
    const { answers, closed } = await exchange(`${request('/healthz')}NOT HTTP\r\n\r\n`);
    expect(answers.map((a) => a.status)).toEqual([200, 400]);
    expectEnvelope(answers[1], 400, /not valid HTTP/);
    expect(closed).toBe(true);
  });

  test('an Expect other than 100-continue is 417 and CONNECT is 405, both in the envelope', async () => {
    const expectation = await exchange(
      ['POST /v0/products/create HTTP/1.1', 'Host: localhost', 'Expect: tea', 'x-request-id: expect-me', 'content-type: application/json', 'content-length: 2', '', '{}'].join('\r\n'),
    );
    expect(expectation.answers[0]?.status).toBe(417);
    expect(expectation.answers[0]?.headers['x-request-id']).toBe('expect-me');
    expect(JSON.parse(expectation.answers[0]!.body)).toEqual({ status: 'error', error: { message: expect.stringMatching(/100-continue/) } });
    const connect = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectEnvelope(connect.answers[0], 405, /CONNECT is not allowed/);
    expect(connect.closed).toBe(true);
  });
});
