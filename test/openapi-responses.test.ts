import { responseMismatch } from './support/openapi.js';

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
});
