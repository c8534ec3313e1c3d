import { randomUUID } from 'node:crypto';
import { baseUrl, call, keyHeaders, newWorkspace, raw, type ApiResponse, type Workspace } from './support/api.js';
import type { operations } from './generated/openapi.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { scratchDatabase, sql } from './support/database.js';
import { httpOnlyEnv, runCli, startServerProcess } from './support/processes.js';
import { describeRoutes, hasArgs, listOf, offsetLists, pageLists, typeName, type RouteInfo } from './support/routes.js';
import { endpoints } from '../src/domains.js';
import { servedPath } from '../src/rest/route.js';

// Cross-cutting rules of the /v0 surface, checked on every route of the route table.
const all = await describeRoutes(baseUrl());
const writes = all.filter((r) => r.method !== 'GET');
const MAX_TIMESTAMP = 9007199254740991;

function expectError(res: ApiResponse, status: number) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { status: 'error', error: { message: expect.any(String) } } });
  expect(res.headers.get('x-request-id')).toBeTruthy();
}

function expectSuccess(res: ApiResponse) {
  expect({ status: res.status, envelope: res.body?.status }).toEqual({ status: 200, envelope: 'success' });
  expect(res.body.data).toBeDefined();
  expect(res.headers.get('x-request-id')).toBeTruthy();
  return res.body.data;
}

const read = (ws: Workspace, path: string, query = '') => raw('GET', path, { headers: keyHeaders(ws, { write: false }), query });

let ws: Workspace;
beforeAll(async () => {
  ws = await newWorkspace('Rules');
});

describe('the envelope on every response', () => {
  test('unknown paths are 404, inside and outside /v0', async () => {
    for (const path of ['/v0/nothing-here', '/v0', '/v0/products/list/extra', '/nothing', '/v1/products/list']) {
      expectError(await raw('GET', path), 404);
      expectError(await call('POST', path, ws, {}), 404);
    }
  });

  test.each(all.map((r) => [`${r.method} ${r.path}`, r] as const))('a wrong method on %s is 405 with Allow', async (_, route) => {
    const url = route.url();
    // The methods of the routes this path matches; a static path wins over a pattern.
    const matching = all.filter((r) => new RegExp(`^${servedPath(r).replace(/:\w+/g, '[^/]+')}$`).test(url));
    const statics = matching.filter((r) => !r.path.includes(':'));
    const allowed = new Set((statics.length ? statics : matching).map((r) => r.method));
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => !allowed.has(m as RouteInfo['method']))) {
      const res = await call(method, url, ws, method === 'GET' ? undefined : {});
      expectError(res, 405);
      expect(res.headers.get('allow')?.split(', ').sort()).toEqual([...allowed].sort());
    }
  });

  test.each(endpoints.map((e) => [e.path, e] as const))('a wrong method on the endpoint %s is 405 with Allow', async (_, endpoint) => {
    const url = endpoint.path.replace(/:\w+/g, () => randomUUID());
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => !endpoint.methods.includes(m as 'GET'))) {
      const res = await call(method, url, ws, method === 'GET' ? undefined : {});
      expectError(res, 405);
      expect(res.headers.get('allow')).toBe(endpoint.methods.join(', '));
    }
  });

  test.each(writes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: a body that is not a JSON object is 400', async (_, route) => {
    for (const body of ['{"name": ', 'name=x', '[]', '[{"name": "x"}]', 'null', '42', '"text"', 'true']) {
      expectError(await raw(route.method, route.url(), { headers: keyHeaders(ws), body }), 400);
    }
  });

  test('CORS: browsers may send only the key headers, Idempotency-Key and content-type, and cannot read x-request-id', async () => {
    const res = await raw('OPTIONS', '/v0/products/list', { headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-headers')?.split(/,\s*/).sort()).toEqual(['content-type', 'idempotency-key', 'x-svc-public-key', 'x-svc-secret-key']);
    expect(res.headers.get('access-control-expose-headers')).toBeNull();
    const get = await raw('GET', '/v0/products/list', { headers: { ...keyHeaders(ws, { write: false }), origin: 'https://shop.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    expect(get.headers.get('access-control-expose-headers')).toBeNull();
  });

  test('an internal error is a 500 envelope without internals, with the request id, logged with it', async () => {
    // A server of its own whose products table disappears under it: a real unexpected failure.
    const database = await scratchDatabase();
    const server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    try {
      const own = await runCli<Workspace>(['workspace', 'create', '--name', 'Broken'], { DATABASE_URL: database.url });
      await sql(database.url, 'ALTER TABLE "Product" RENAME TO "ProductGone"');
      const requestId = `broken-${randomUUID()}`;
      const response = await fetch(`${server.url}/v0/products/list`, { headers: { ...keyHeaders(own, { write: false }), 'x-request-id': requestId } });
      expect(response.status).toBe(500);
      expect(response.headers.get('x-request-id')).toBe(requestId);
      expect(await response.json()).toEqual({ status: 'error', error: { message: 'Internal server error' } });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const logged = server.output().split('\n').filter((line) => line.includes(requestId));
      expect(logged.some((line) => /"level":50/.test(line) && line.includes('Product'))).toBe(true);
    } finally {
      await server.stop();
      await database.drop();
    }
  }, 180_000);
});

describe('x-request-id', () => {
  test('a given request id is echoed on successes and on every kind of error', async () => {
    const cases: Array<[string, string, Record<string, string>, string | undefined, number]> = [
      ['GET', '/v0/products/list', keyHeaders(ws, { write: false }), undefined, 200],
      ['GET', '/v0/products/list', {}, undefined, 401],
      ['POST', '/v0/products/create', keyHeaders(ws, { write: false }), '{}', 401],
      ['POST', '/v0/products/create', keyHeaders(ws), '{bad json', 400],
      ['GET', `/v0/products/${randomUUID()}`, keyHeaders(ws, { write: false }), undefined, 404],
      ['GET', '/v0/unknown', {}, undefined, 404],
      ['DELETE', '/v0/products/list', {}, undefined, 405],
      ['GET', '/healthz', {}, undefined, 200],
    ];
    for (const [method, path, headers, body, status] of cases) {
      const requestId = `client-${randomUUID()}`;
      const res = await raw(method, path, { headers: { ...headers, 'x-request-id': requestId }, body });
      expect({ path, method, status: res.status, requestId: res.headers.get('x-request-id') }).toEqual({ path, method, status, requestId });
    }
  });

  test('without one, each response gets a fresh generated id', async () => {
    const ids = new Set<string>();
    for (const res of [await read(ws, '/v0/products/list'), await raw('GET', '/v0/products/list'), await raw('GET', '/v0/nope'), await read(ws, '/v0/products/list')]) {
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(id!);
    }
    expect(ids.size).toBe(4);
  });

  test('an unusable request id (too long, or with spaces) is replaced by a generated one', async () => {
    for (const given of ['x'.repeat(201), 'has space', 'tab\there']) {
      const res = await raw('GET', '/v0/products/list', { headers: { ...keyHeaders(ws, { write: false }), 'x-request-id': given } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('request bodies and parameters', () => {
  const countNamed = async (name: string) => (await read(ws, '/v0/products/list', `termOrId=${encodeURIComponent(name)}&returnCount=true`)).body.data.count;

  test('unknown body fields are ignored', async () => {
    const res = await call('POST', '/v0/products/create', ws, {
      name: 'Unknown fields',
      projectId: ws.projectId,
      type: 'DigitalDownload',
      colour: 'blue',
      nested: { deep: [1, 2, { x: null }] },
      object: 'not-a-product',
    });
    const { product } = expectSuccess(res);
    expect(product).toMatchObject({ object: 'product', name: 'Unknown fields' });
    expect(product).not.toHaveProperty('colour');
    const again = expectSuccess(await read(ws, `/v0/products/${product.id}`));
    expect(again.product).not.toHaveProperty('colour');
  });

  test('a lone value where the body expects an array is 400, never wrapped into a list', async () => {
    const res = await call('POST', '/v0/products/create', ws, { name: 'Lone tag', projectId: ws.projectId, type: 'DigitalDownload', tags: 'sale' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', error: { message: 'tags: expected an array' } });
    expect(await countNamed('Lone tag')).toBe(0);
  });

  test('a write takes its arguments from the body only: the query string cannot override or supply them', async () => {
    const res = await raw('POST', '/v0/products/create', {
      headers: keyHeaders(ws),
      query: 'name=FromQuery&type=Game&slug=from-query',
      body: JSON.stringify({ name: 'From body', projectId: ws.projectId, type: 'DigitalDownload' }),
    });
    expect(expectSuccess(res).product).toMatchObject({ name: 'From body', type: 'DigitalDownload', slug: 'from-body' });
    const missing = await raw('POST', '/v0/products/create', {
      headers: keyHeaders(ws),
      query: `name=OnlyInQuery&projectId=${ws.projectId}&type=Game`,
      body: '{}',
    });
    expectError(missing, 400);
    expect(await countNamed('OnlyInQuery')).toBe(0);
  });

  test('a body field repeating a path parameter is ignored: the path names the record', async () => {
    const created = expectSuccess(await call('POST', '/v0/products/create', ws, { name: 'Path wins', projectId: ws.projectId, type: 'Game' })).product;
    const other = expectSuccess(await call('POST', '/v0/products/create', ws, { name: 'Other', projectId: ws.projectId, type: 'Game' })).product;
    for (const productId of ['not-a-uuid', 42, other.id]) {
      const res = await call('PATCH', `/v0/products/${created.id}/update`, ws, { productId, description: `via ${productId}` });
      expect(expectSuccess(res).product).toMatchObject({ id: created.id, description: `via ${productId}` });
    }
    expect(expectSuccess(await read(ws, `/v0/products/${other.id}`)).product.description).toBe('');
  });

  test('a NUL character in the path, the query or the body is a 400 and writes nothing', async () => {
    expectError(await read(ws, '/v0/products/list', 'termOrId=a%00b'), 400);
    expectError(await read(ws, '/v0/products/list', 'genres=ok&genres=%00'), 400);
    expectError(await read(ws, '/v0/products/%00'), 400);
    expectError(await call('POST', '/v0/products/create', ws, { name: 'Nul\u0000name', projectId: ws.projectId, type: 'Game' }), 400);
    expectError(await call('POST', '/v0/products/create', ws, { name: 'Nul in JSON', projectId: ws.projectId, type: 'Game', customFields: { 'k\u0000': 1 } }), 400);
    expectError(await call('POST', '/v0/products/create', ws, { name: 'Nul in list', projectId: ws.projectId, type: 'Game', genres: ['a', '\u0000'] }), 400);
    expect(await countNamed('Nul')).toBe(0);
  });
});

describe('pagination', () => {
  let paged: Workspace;
  const TOTAL = 105;
  // More rows than the largest page on every list the rules below check, so that a list that
  // ignored take, skip or limit could not pass on a short page.
  const MORE_THAN_A_PAGE = 101;
  /** Rows per list of `paged`, by path: what returnCount must say. */
  const seeded: Record<string, number> = {};
  /** `count` requests `make(i)` for i in 0..count-1, fifteen at a time. */
  const seed = async (count: number, make: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < count; i += 15) await Promise.all(Array.from({ length: Math.min(15, count - i) }, (_, j) => make(i + j)));
  };
  beforeAll(async () => {
    // With the seller's details, each paid order of the seeding below is also an invoice.
    paged = await newWorkspace('Pagination', ['invoiceLegalName=Pagination Ltd', 'invoiceAddress=1 Page Street']);
    const api = restClient(paged);
    let productId = '';
    await seed(TOTAL, async (i) => (productId = (await ok(api.POST('/v0/products/create', { body: { name: `Paged ${i}`, projectId: paged.projectId, type: 'Game' } }))).product.id));
    await seed(MORE_THAN_A_PAGE, () => ok(api.POST('/v0/offers/create', { body: { productId, price: 0, currency: 'USD' } })));
    const { offers } = await ok(api.GET('/v0/offers/list', { params: { query: { take: 1 } } }));
    await seed(MORE_THAN_A_PAGE, () => ok(api.POST('/v0/elements/checkout/create', { body: { offersIds: [offers[0]!.id] } })));
    const { checkoutElements } = await ok(api.GET('/v0/elements/checkout/list', { params: { query: { take: 1 } } }));
    // A free offer's checkouts: each is an order, its payment and its buyer (a user).
    await seed(MORE_THAN_A_PAGE, () => placeOrder(checkoutElements[0]!.id, orderBody({ card: undefined })));
    await seed(MORE_THAN_A_PAGE, (i) => ok(api.POST('/v0/discounts/create', { body: { type: 'code', discountCode: `PAGED${i}`, amount: 10, amountType: 'percentage', currency: 'USD' } as never })));
    Object.assign(seeded, {
      '/products/list': TOTAL,
      '/offers/list': MORE_THAN_A_PAGE,
      '/elements/checkout/list': MORE_THAN_A_PAGE,
      '/discounts/list': MORE_THAN_A_PAGE,
      '/orders/list': MORE_THAN_A_PAGE,
      '/payments/list': MORE_THAN_A_PAGE,
      '/invoices/list': MORE_THAN_A_PAGE,
      '/users/list': MORE_THAN_A_PAGE,
    });
  }, 240_000);

  type ProductsQuery = NonNullable<operations['products']['parameters']['query']>;
  const products = async (query: ProductsQuery = {}) => {
    const { data, response } = await restClient(paged, { write: false }).GET('/v0/products/list', { params: { query } });
    expect(response.status).toBe(200);
    return data!.data;
  };

  test('take is clamped to 1..100 with 200, skip steps through, returnCount fills count', async () => {
    expect((await products()).products).toHaveLength(20);
    expect((await products()).count).toBeNull();
    for (const take of [1000, 101, 2147483647, 99999999999, Number.MAX_SAFE_INTEGER]) expect((await products({ take })).products).toHaveLength(100);
    for (const take of [0, -5, -2147483648]) expect((await products({ take })).products).toHaveLength(1);
    const last = await products({ skip: 100, take: 100, returnCount: true });
    expect(last.products).toHaveLength(5);
    expect(last.count).toBe(TOTAL);
    expect((await products({ skip: 2147483647 })).products).toEqual([]);
    const pages = [...(await products({ take: 100 })).products, ...(await products({ skip: 100, take: 100 })).products].map((p) => p.id);
    expect(new Set(pages).size).toBe(TOTAL);
  });

  test('a negative skip is 400 on every offset list', async () => {
    expect(offsetLists(all).length).toBeGreaterThan(0);
    for (const route of offsetLists(all).filter((r) => r.pathParams.length === 0)) {
      expectError(await read(ws, route.url(), 'skip=-1'), 400);
      expectError(await read(ws, route.url(), 'skip=abc'), 400);
    }
  });

  test('every offset list clamps take, honours skip >= 0 and fills count on returnCount', async () => {
    const lists = offsetLists(all).filter((r) => r.pathParams.length === 0);
    // A new list is seeded above before it is checked here.
    expect(lists.map((r) => r.path).sort()).toEqual(Object.keys(seeded).filter((p) => p !== '/users/list').sort());
    for (const route of lists) {
      const total = seeded[route.path]!;
      for (const [query, length] of [['take=0', 1], ['take=-3', 1], ['take=1000', 100], ['skip=0&take=100', 100], ['skip=100&take=100', total - 100], ['skip=2147483647', 0]] as const) {
        const data = expectSuccess(await read(paged, route.url(), query));
        expect({ path: route.path, query, length: listOf(data).length }).toEqual({ path: route.path, query, length });
      }
      const counted = expectSuccess(await read(paged, route.url(), 'returnCount=true'));
      expect({ path: route.path, count: counted.count }).toEqual({ path: route.path, count: total });
    }
  });

  test('every page list clamps limit, pages through, and rejects a page below 1', async () => {
    const lists = pageLists(all).filter((r) => r.pathParams.length === 0);
    expect(lists.map((r) => r.path)).toEqual(['/users/list']);
    for (const route of lists) {
      expectError(await read(paged, route.url(), 'page=0'), 400);
      expectError(await read(paged, route.url(), 'page=-1'), 400);
      const total = seeded[route.path]!;
      for (const [query, length] of [['limit=0', 1], ['limit=-1', 1], ['limit=1000', 100], ['page=2&limit=100', total - 100], ['page=3&limit=100', 0]] as const) {
        const data = expectSuccess(await read(paged, route.url(), query));
        expect({ path: route.path, query, length: listOf(data).length }).toEqual({ path: route.path, query, length });
      }
    }
  });

  test('int64 timestamp filters accept 0..9007199254740991 and reject anything else with 400', async () => {
    const filters = all
      .filter((r) => r.method === 'GET' && r.pathParams.length === 0)
      .flatMap((route) => route.args.filter((arg) => typeName(arg.type) === 'Timestamp').map((arg) => [route, arg.name] as const));
    expect(filters.map(([route, name]) => `${route.path} ${name}`)).toEqual(expect.arrayContaining(['/discounts/list validFrom', '/discounts/list validUntil']));
    for (const [route, name] of filters) {
      for (const value of ['0', String(MAX_TIMESTAMP), '1700000000', '1700000000000']) expectSuccess(await read(ws, route.url(), `${name}=${value}`));
      for (const value of ['-1', String(MAX_TIMESTAMP + 1), '99999999999999999999', '1.5', '1e3', 'abc']) {
        expectError(await read(ws, route.url(), `${name}=${value}`), 400);
      }
    }
  });

  test('repeated ids parameters (150 values) filter every list that has them', async () => {
    const withIds = all.filter((r) => r.method === 'GET' && r.pathParams.length === 0 && hasArgs(r, 'ids'));
    expect(withIds.map((r) => r.path)).toContain('/products/list');
    for (const route of withIds) {
      const existing = listOf(expectSuccess(await read(paged, route.url(), 'take=3'))) as Array<{ id: string }>;
      const wanted = existing.slice(0, 2).map((r) => r.id);
      expect({ path: route.path, wanted: wanted.length }).toEqual({ path: route.path, wanted: 2 });
      const ids = [...Array.from({ length: 150 - wanted.length }, () => randomUUID()), ...wanted];
      for (const name of ['ids', 'ids[]']) {
        const query = ids.map((id) => `${encodeURIComponent(name)}=${id}`).join('&');
        const found = listOf(expectSuccess(await read(paged, route.url(), query))) as Array<{ id: string }>;
        expect(found.map((r) => r.id).sort()).toEqual([...wanted].sort());
      }
    }
  });
});
