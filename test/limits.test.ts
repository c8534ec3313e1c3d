import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { getIntrospectionQuery } from 'graphql';
import { baseUrl, keyHeaders } from './support/api.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { MIB, ws, send, expectRefused, productsNamed, nested, productBody } from './support/limits-suite.js';

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
