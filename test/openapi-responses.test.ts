import { responseMismatch, responseProblems, type OpenApi } from './support/openapi.js';

// The run-time check that every response the suite sees matches the published document.
describe('responses are checked against the OpenAPI document', () => {
  test('an answer of the documented shape passes', () => {
    expect(responseMismatch('GET', '/v0/products/list', 200, { status: 'success', data: { products: [], count: null } })).toBeUndefined();
    expect(responseMismatch('GET', '/v0/products/123', 404, { status: 'error', error: { message: 'Product not found' } })).toBeUndefined();
  });

  test('a missing or mistyped field, an undocumented status and a bare text body fail', () => {
    expect(responseMismatch('GET', '/v0/products/list', 200, { status: 'success', data: { products: [{ id: 5 }], count: null } })).toMatch(/does not allow/);
    expect(responseMismatch('GET', '/v0/products/list', 200, { status: 'ok' })).toMatch(/does not allow/);
    expect(responseMismatch('GET', '/v0/products/list', 418, { status: 'error', error: { message: 'teapot' } })).toMatch(/status 418 is not documented/);
    expect(responseMismatch('GET', '/v0/products/list', 400, 'Bad Request')).toMatch(/does not allow/);
  });

  test('a static path wins over a pattern, and paths the document does not list are left out', () => {
    expect(responseMismatch('POST', '/v0/products/create', 200, { status: 'success', data: { product: null } })).toMatch(/does not allow/);
    expect(responseMismatch('GET', '/v0/products/create', 405, { status: 'error', error: { message: 'Method not allowed' } })).toBeUndefined();
    expect(responseMismatch('GET', '/healthz', 200, { status: 'ok' })).toBeUndefined();
  });

  test('a 429 without its Retry-After fails', () => {
    const limited = { status: 'error', error: { message: 'Too many requests; retry later' } };
    expect(responseMismatch('GET', '/v0/products/list', 429, limited, new Headers({ 'x-request-id': 'r' }))).toMatch(/header retry-after is missing/);
    expect(responseMismatch('GET', '/v0/products/list', 429, limited, new Headers({ 'x-request-id': 'r', 'retry-after': '3' }))).toBeUndefined();
  });

  test('Ajv reads 3.1 nullability: null passes a nullable reference and a nullable scalar, other values still meet the component', () => {
    // The shape of the 520 failures: a component-or-null field (anyOf) beside a nullable scalar.
    const schema = {
      type: 'object',
      properties: { interval: { anyOf: [{ $ref: '#/components/schemas/Interval' }, { type: 'null' }] }, at: { type: ['integer', 'null'], format: 'int64' } },
      required: ['interval', 'at'],
    };
    const document: OpenApi = {
      paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema } } } } } } },
      components: { schemas: { Interval: { type: 'string', enum: ['month', 'year'] } } },
    };
    const operation = document.paths['/x']!.get!;
    expect(responseProblems(document, operation, 200, { interval: null, at: null })).toEqual([]);
    expect(responseProblems(document, operation, 200, { interval: 'month', at: 1_700_000_000 })).toEqual([]);
    expect(responseProblems(document, operation, 200, { interval: 'week', at: 1.5 })).toEqual(expect.arrayContaining(['body/interval: must be equal to one of the allowed values', 'body/at: must be integer,null']));
    expect(responseProblems(document, operation, 200, { interval: null, at: null, extra: true })).toEqual(['body: must NOT have additional properties (extra)']);
  });
});
