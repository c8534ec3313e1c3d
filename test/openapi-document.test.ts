import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { documentedEndpoints, endpoints, routes } from '../src/domains.js';
import { servedPath } from '../src/rest/route.js';
import { baseUrl, newWorkspace, raw, type Workspace } from './support/api.js';
import { operationsOf, readDocument, resolve, responseProblems, type OpenApi, type Schema } from './support/openapi.js';
import { runProcess, type Finished } from './support/processes.js';

/**
 * SwaggerParser.validate on a document, in a child process: swagger-parser 13 requires an ES
 * module, which Node does natively but Jest's module loader cannot.
 */
async function swaggerParserValidate(document: unknown): Promise<Finished> {
  const dir = await mkdtemp(path.join(tmpdir(), 'commerce-openapi-'));
  try {
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const script = "import SwaggerParser from '@apidevtools/swagger-parser'; await SwaggerParser.validate(process.argv[1]); console.log('valid');";
    return await runProcess(process.execPath, ['--input-type=module', '-e', script, file], { NODE_OPTIONS: '' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the published OpenAPI document', () => {
  let document: OpenApi;
  let ws: Workspace;
  beforeAll(async () => {
    [document, ws] = await Promise.all([readDocument(), newWorkspace('OpenAPI')]);
  });

  const operations = () => operationsOf(document);

  test('GET /v0/openapi.json serves the checked-in document, and it is valid', async () => {
    const res = await raw('GET', '/v0/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual(document);
    const validation = await swaggerParserValidate(res.body);
    expect(validation.stdout + validation.stderr).toBe('valid\n');
    expect(validation.code).toBe(0);
  });

  test('swagger-parser rejects a broken document (the validity check is real)', async () => {
    const broken = structuredClone(document);
    broken.paths['/v0/products/list']!.get!.responses['400'] = { $ref: '#/components/responses/Missing' };
    const result = await swaggerParserValidate(broken);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Missing/);
  });

  test('it documents exactly the route table and the raw-body endpoints, with their methods, paths and summaries', () => {
    const documented = operations().map((o) => `${o.method} ${o.path} ${o.operation.summary}`);
    const table = [
      ...routes.map((r) => `${r.method} ${servedPath(r).replace(/:([^/]+)/g, '{$1}')} ${r.summary}`),
      ...documentedEndpoints.map((e) => `POST ${e.path.replace(/:([^/]+)/g, '{$1}')} ${e.operation.summary}`),
    ];
    expect(documented.sort()).toEqual(table.sort());
    // Every endpoint of the API under /v0 is in the document.
    expect(endpoints.filter((e) => e.path.startsWith('/v0/')).map((e) => e.path)).toEqual(documentedEndpoints.map((e) => e.path));
  });

  test('it is OpenAPI 3.1: nullable references are anyOf with null, nullable scalars list null in their type, no 3.0 nullable', () => {
    expect(document).toMatchObject({ openapi: '3.1.0' });
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/"nullable":/);
    const offer = document.components.schemas.Offer;
    expect(offer.properties.recurringInterval).toMatchObject({ anyOf: [{ $ref: expect.stringMatching(/^#\/components\/schemas\//) }, { type: 'null' }] });
    const nullableScalars = Object.values(document.components.schemas as Record<string, Schema>).flatMap((schema) =>
      Object.values((schema.properties ?? {}) as Record<string, Schema>).filter((property) => Array.isArray(property.type)),
    );
    expect(nullableScalars.length).toBeGreaterThan(10);
    for (const property of nullableScalars) expect(property.type).toContain('null');
  });

  test('Ajv compiles every response schema of every operation in strict mode (2020-12, formats)', () => {
    let compiled = 0;
    for (const { operation } of operations()) {
      for (const status of Object.keys(operation.responses)) {
        // Compiling throws on anything strict mode refuses (unknown keywords or formats, ambiguous types).
        expect(responseProblems(document, operation, Number(status), null)).not.toEqual([]);
        compiled++;
      }
    }
    expect(compiled).toBeGreaterThan(operations().length * 5);
  });

  test('the upload is documented as a raw body (application/octet-stream, format binary) with its query parameters', () => {
    const upload = document.paths['/v0/products/{productId}/files/upload']!.post!;
    expect(upload.requestBody).toMatchObject({ required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } });
    expect(upload.parameters.map((p: Schema) => `${p.in} ${p.name} ${p.required}`)).toEqual(['path productId true', 'query fileName true', 'query variantId false']);
    expect(resolve(document, upload.responses['200']).content['application/json'].schema.properties.data).toMatchObject({ properties: { file: { $ref: '#/components/schemas/DownloadFile' } } });
  });

  test('every operation states its keys (none for buyer routes), its errors in the envelope and x-request-id', () => {
    // The writes a software seller's app calls with the public key alone (docs/decisions.md "Public license key validation"); every other write needs both keys.
    const publicKeyWrites = ['POST /v0/license-keys/activate', 'POST /v0/license-keys/deactivate', 'POST /v0/license-keys/validate'];
    expect(routes.filter((r) => r.method !== 'GET' && r.publicKeyOnly).map((r) => `${r.method} ${servedPath(r)}`).sort()).toEqual(publicKeyWrites);
    for (const { path: p, method, operation } of operations()) {
      const where = `${method} ${p}`;
      const buyer = !p.startsWith('/v0/');
      const publicKeyOnly = method === 'GET' || publicKeyWrites.includes(where);
      expect([where, operation.security]).toEqual([where, buyer ? [] : [publicKeyOnly ? { publicKey: [] } : { publicKey: [], secretKey: [] }]]);
      const statuses = Object.keys(operation.responses);
      const expected = ['200', '400', ...(buyer ? [] : ['401']), '429', '500', ...(p.includes('{') ? ['404'] : []), ...(method === 'POST' && p === '/v0/products/create' ? ['409'] : [])];
      expect([where, statuses.filter((s) => expected.includes(s)).sort()]).toEqual([where, expected.sort()]);
      for (const status of statuses) {
        const response = resolve(document, operation.responses[status]);
        expect([where, status, response.headers['x-request-id']]).toEqual([where, status, { $ref: '#/components/headers/RequestId' }]);
        const schema = response.content['application/json'].schema;
        // A success's envelope says success; every other status is the error envelope.
        const success = status === '200';
        expect([where, status, success ? schema.properties.status : schema]).toEqual([where, status, success ? { type: 'string', enum: ['success'] } : { $ref: '#/components/schemas/ErrorEnvelope' }]);
      }
    }
    expect(document.components.securitySchemes).toEqual({
      publicKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-svc-public-key' }),
      secretKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-svc-secret-key' }),
    });
  });

  test("every route that asks a subscription's workflow documents 503 in the envelope (Temporal not answering, or the processor)", () => {
    const asksWorkflow = ['create', '{subscriptionIdOrNumber}/update', '{subscriptionIdOrNumber}/cancel', '{subscriptionIdOrNumber}/undo-cancel', '{subscriptionIdOrNumber}/charge', '{subscriptionIdOrNumber}/end-trial', '{subscriptionIdOrNumber}/pause', '{subscriptionIdOrNumber}/resume'];
    const paths = [...asksWorkflow.map((p) => `/v0/subscriptions/${p}`), '/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', '/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method'];
    for (const p of paths) {
      const [operation] = Object.values(document.paths[p] as Record<string, { responses: Record<string, unknown> }>);
      expect([p, resolve(document, operation!.responses['503'] as Schema).content['application/json'].schema]).toEqual([p, { $ref: '#/components/schemas/ErrorEnvelope' }]);
    }
  });

  test('reads take query parameters, writes a JSON body, and path parameters appear only in the path', () => {
    const described = operations().map(({ path: p, method, operation }) => ({
      where: `${method} ${p}`,
      method,
      operation,
      inPath: [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
      parameters: (operation.parameters ?? []) as Schema[],
    }));
    for (const { where, inPath, parameters } of described) expect([where, parameters.filter((x) => x.in === 'path').map((x) => x.name)]).toEqual([where, inPath]);
    for (const { where, operation, parameters } of described.filter((o) => o.method === 'GET')) {
      expect([where, operation.requestBody]).toEqual([where, undefined]);
      for (const x of parameters.filter((y) => y.schema.type === 'array')) expect([where, x.name, x.style, x.explode]).toEqual([where, x.name, 'form', true]);
    }
    for (const { where, operation, inPath, parameters } of described.filter((o) => o.method !== 'GET' && o.operation.requestBody.content['application/json'])) {
      // A JSON body (the raw file upload's is application/octet-stream, its parameters in the query).
      expect([where, parameters.filter((x) => x.in === 'query')]).toEqual([where, []]);
      const properties = Object.keys(operation.requestBody.content['application/json'].schema.properties);
      expect([where, properties.filter((name) => inPath.includes(name))]).toEqual([where, []]);
    }
  });

  test('the server serves every documented operation (without keys each one is 401, not 404; buyer routes take no keys)', async () => {
    const answered = [];
    for (const { path: p, method } of operations()) answered.push({ p, method, res: await raw(method, p.replace(/\{[^}]+\}/g, randomUUID()), { headers: {}, body: method === 'GET' ? undefined : '{}' }) });
    for (const { res } of answered) expect(res.headers.get('x-request-id')).toBeTruthy();
    // Buyer routes: an unknown element (404) or a body missing its required fields (400), never a missing route.
    for (const { p, method, res } of answered.filter((a) => !a.p.startsWith('/v0/'))) {
      expect([method, p, res.body.status, res.body.error.message]).toEqual([method, p, 'error', expect.not.stringMatching(/^No route/)]);
    }
    for (const { p, method, res } of answered.filter((a) => a.p.startsWith('/v0/'))) expect([method, p, res.status, res.body.status]).toEqual([method, p, 401, 'error']);
  });

  test('responses of every read and of the creates fit the document, field for field', async () => {
    // One record of each kind, so lists and by-id reads return real objects. Plain requests:
    // the document is what is under test.
    const writeKeys = { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey };
    const ids: Record<string, string> = {};
    const create = async (documentPath: string, body: Record<string, unknown>) => {
      const res = await raw('POST', documentPath, { headers: writeKeys, body: JSON.stringify(body) });
      expect([documentPath, res.status, responseProblems(document, document.paths[documentPath]!.post!, res.status, res.body)]).toEqual([documentPath, 200, []]);
      return Object.values(res.body.data as Record<string, { id: string }>)[0]!.id;
    };
    ids.productId = await create('/v0/products/create', { name: 'Documented', projectId: ws.projectId, type: 'Game', genres: ['Puzzle'], customFields: { a: 1 } });
    ids.offerId = await create('/v0/offers/create', { productId: ids.productId, currency: 'USD', price: 1000 });
    ids.discountId = await create('/v0/discounts/create', { type: 'code', discountCode: 'DOCUMENTED', amount: 10, amountType: 'percentage' });
    ids.userId = await create('/v0/users/create', { email: `documented-${randomUUID()}@example.com` });
    await create('/v0/elements/checkout/create', { offersIds: [ids.offerId] });

    for (const { path: p, operation } of operations().filter((o) => o.method === 'GET')) {
      // Ids of the records above; any other id is unknown, which exercises the error responses.
      const url = p.replace(/\{([^}]+)\}/g, (_match, name: string) => ids[name] ?? randomUUID());
      const res = await raw('GET', url, { headers: { 'x-svc-public-key': ws.publicKey }, query: 'returnCount=true' });
      expect([p, res.status, responseProblems(document, operation, res.status, res.body)]).toEqual([p, res.status, []]);
    }
  });

  test('a response the document does not describe is caught by the conformance check', () => {
    const list = document.paths['/v0/products/list']!.get!;
    expect(responseProblems(document, list, 200, { status: 'success', data: { products: [{ id: 'x' }], count: null, extra: 1 } })).toEqual(
      expect.arrayContaining(['body/data: must NOT have additional properties (extra)', "body/data/products/0: must have required property 'name'"]),
    );
    // Strict validation of the formats: a uuid that is not one, an int32 past its range.
    const offers = document.paths['/v0/offers/list']!.get!;
    expect(responseProblems(document, offers, 200, { status: 'success', data: { offers: [], count: 2 ** 31 } })).toEqual(['body/data/count: must match format "int32"']);
    expect(responseProblems(document, list, 418, {})).toEqual(['status 418 is not documented']);
  });

  test('GET /v0/docs is Scalar rendering the document, its script served from this server (no CDN)', async () => {
    const res = await fetch(`${baseUrl()}/v0/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'.*connect-src 'self'/);
    const html = await res.text();
    expect(html).toContain('data-url="/v0/openapi.json"');
    expect(html).toContain('<script src="/v0/docs/scalar.js"></script>');
    // No CDN: nothing is loaded from another origin.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = await fetch(`${baseUrl()}/v0/docs/scalar.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });
});
