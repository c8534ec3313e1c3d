import { randomUUID } from 'node:crypto';
import { call, keyHeaders, raw, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { Product, READ, spaces, db, getProduct, archiveProduct, addVariant, updateVariant, updatePlan, listProducts, newProduct, listIds, newOffer, storedVariants } from './support/products-suite.js';

describe('products: variants and plans', () => {
  let ws: Workspace;
  let other: Workspace;
  let product: Product;
  beforeAll(async () => {
    ({ variants: ws, elsewhere: other } = spaces);
    product = await newProduct(ws, { name: 'With variants' });
  });

  test('add returns the variant with its defaults', async () => {
    const { data, response } = await addVariant(ws, product.id, { name: '  Basic  ' });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      status: 'success',
      data: {
        variant: {
          object: 'variant',
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          internalId: null,
          name: 'Basic',
          description: '',
          order: null,
          productId: product.id,
          createdAt: expect.any(Number),
        },
      },
    });
    expect(Math.abs(data!.data.variant.createdAt - Date.now() / 1000)).toBeLessThan(120);
    expect(await storedVariants(product.id)).toEqual([{ id: data!.data.variant.id, name: 'Basic', description: '', internalId: null, order: null }]);
  });

  test('add stores every variant field', async () => {
    const { variant } = await ok(addVariant(ws, product.id, { name: 'Pro', description: 'For professionals', internalId: 'pro-1', order: 3 }));
    expect(variant).toMatchObject({ object: 'variant', name: 'Pro', description: 'For professionals', internalId: 'pro-1', order: 3, productId: product.id });
  });

  test('invalid variant bodies are 400 and add nothing', async () => {
    const before = (await storedVariants(product.id)).length;
    const invalid: Record<string, unknown>[] = [{}, { name: '' }, { name: '  ' }, { name: null }, { name: 5 }, { name: 'X', order: 1.5 }, { name: 'X', order: '1' }, { name: 'X', description: null }];
    for (const body of invalid) {
      const res = await call('POST', `/v0/products/${product.id}/variants/add`, ws, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual(ERROR);
    }
    expect(await storedVariants(product.id)).toHaveLength(before);
  });

  test('add on a malformed, unknown, foreign or archived product is 400 or 404', async () => {
    const foreign = await newProduct(other, { name: 'Foreign' });
    expect(await failure(addVariant(ws, 'nope', { name: 'X' }))).toEqual({ status: 400, body: ERROR });
    expect(await failure(addVariant(ws, randomUUID(), { name: 'X' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(addVariant(ws, foreign.id, { name: 'X' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(addVariant(ws, product.id, { name: 'X' }, READ))).toEqual({ status: 401, body: ERROR });
    expect(await storedVariants(foreign.id)).toEqual([]);
  });

  test('variant update changes the sent fields and keeps the rest', async () => {
    const { variant } = await ok(addVariant(ws, product.id, { name: 'Editable', description: 'Old', internalId: 'ed-1', order: 1 }));
    const { data, response } = await updateVariant(ws, product.id, variant.id, { name: 'Edited', order: 7 });
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { variant: { ...variant, name: 'Edited', order: 7 } } });
    const { variant: cleared } = await ok(updateVariant(ws, product.id, variant.id, { order: null, internalId: null, description: '' }));
    expect(cleared).toEqual({ ...variant, name: 'Edited', order: null, internalId: null, description: '' });
    const stored = (await storedVariants(product.id)).find((v) => v.id === variant.id);
    expect(stored).toEqual({ id: variant.id, name: 'Edited', description: '', internalId: null, order: null });
  });

  test('variant update refuses an empty or null name and a null description', async () => {
    const { variant } = await ok(addVariant(ws, product.id, { name: 'Named' }));
    for (const body of [{ name: '' }, { name: '   ' }, { name: null }, { description: null }]) {
      const res = await failure(updateVariant(ws, product.id, variant.id, body));
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect((await storedVariants(product.id)).find((v) => v.id === variant.id)).toMatchObject({ name: 'Named', description: '' });
  });

  test('plan update returns the variant under plan', async () => {
    const { variant } = await ok(addVariant(ws, product.id, { name: 'Monthly', order: 1 }));
    const { data, response } = await updatePlan(ws, product.id, variant.id, { name: 'Monthly plan', description: 'Billed monthly' });
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { plan: { ...variant, object: 'variant', name: 'Monthly plan', description: 'Billed monthly' } } });
    expect((await storedVariants(product.id)).find((v) => v.id === variant.id)).toMatchObject({ name: 'Monthly plan', description: 'Billed monthly' });
  });

  test('a variant of another product, an unknown or a malformed one is 404 or 400 and unchanged', async () => {
    const sibling = await newProduct(ws, { name: 'Sibling' });
    const { variant: siblingVariant } = await ok(addVariant(ws, sibling.id, { name: 'Sibling variant' }));
    const foreign = await newProduct(other, { name: 'Foreign parent' });
    const { variant: foreignVariant } = await ok(addVariant(other, foreign.id, { name: 'Foreign variant' }));
    expect(await failure(updateVariant(ws, product.id, siblingVariant.id, { name: 'Stolen' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updatePlan(ws, product.id, siblingVariant.id, { name: 'Stolen' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updateVariant(ws, product.id, randomUUID(), { name: 'Nobody' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updatePlan(ws, product.id, randomUUID(), { name: 'Nobody' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updateVariant(ws, foreign.id, foreignVariant.id, { name: 'Stolen' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updatePlan(ws, foreign.id, foreignVariant.id, { name: 'Stolen' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updateVariant(ws, product.id, 'nope', { name: 'X' }))).toEqual({ status: 400, body: ERROR });
    expect(await failure(updatePlan(ws, 'nope', siblingVariant.id, { name: 'X' }))).toEqual({ status: 400, body: ERROR });
    expect(await storedVariants(sibling.id)).toEqual([{ id: siblingVariant.id, name: 'Sibling variant', description: '', internalId: null, order: null }]);
    expect((await storedVariants(foreign.id))[0]).toMatchObject({ name: 'Foreign variant' });
  });

  test('variants of an archived product cannot be updated', async () => {
    const doomed = await newProduct(ws, { name: 'Archived parent' });
    const { variant } = await ok(addVariant(ws, doomed.id, { name: 'Orphan' }));
    await ok(archiveProduct(ws, doomed.id));
    expect(await failure(updateVariant(ws, doomed.id, variant.id, { name: 'X' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updatePlan(ws, doomed.id, variant.id, { name: 'X' }))).toEqual({ status: 404, body: ERROR });
  });
});

describe('products: list filters and order', () => {
  let ws: Workspace;
  let other: Workspace;
  // c1..c6 in creation order (the default order is c6..c1); c7 is archived.
  let c1: string, c2: string, c3: string, c4: string, c5: string, c6: string, c7: string;
  let secondProject: string;
  let offerOf: Record<'o1a' | 'o1b' | 'o2' | 'o3' | 'o7', string>;

  beforeAll(async () => {
    ({ filters: ws, elsewhere: other } = spaces);
    secondProject = (await db.query(`INSERT INTO "Project" (id, "workspaceId", name) VALUES (gen_random_uuid(), $1, 'Second') RETURNING id`, [ws.workspaceId])).rows[0].id;
    // Sequential: the default order is the creation order.
    c1 = (await newProduct(ws, { name: 'Delta Quest', type: 'Game', status: 'ACTIVE', genres: ['rpg', 'adventure'], systems: ['pc'], tags: ['sale', 'new'], description: 'An epic journey' })).id;
    c2 = (await newProduct(ws, { name: 'Bravo Racer', type: 'Game', genres: ['racing'], systems: ['xbox', 'pc'], tags: ['new'], description: 'Fast cars and an EPIC soundtrack' })).id;
    c3 = (await newProduct(ws, { name: 'Foxtrot Shirt', status: 'ACTIVE', tags: ['sale'], description: 'Organic cotton' })).id;
    c4 = (await newProduct(ws, { name: 'Alpha Shoes', status: 'INACTIVE' })).id;
    c5 = (await newProduct(ws, { name: 'Echo Guide', type: 'SoftwareKey', status: 'ACTIVE', description: 'Quest walkthrough' })).id;
    c6 = (await newProduct(ws, { name: 'Charlie Card', type: 'GiftCard', projectId: secondProject })).id;
    c7 = (await newProduct(ws, { name: 'Golf Archived', type: 'Game', genres: ['rpg'], tags: ['sale'] })).id;
    // Lowest live offer prices: c2 300, c1 500, c5 700, c3 900 (its 100 offer is archived); c4, c6 none.
    const [o1a, o1b, o2, o3, o3cheap, , o7] = await Promise.all([
      newOffer(ws, c1, 500),
      newOffer(ws, c1, 1500),
      newOffer(ws, c2, 300),
      newOffer(ws, c3, 900),
      newOffer(ws, c3, 100),
      newOffer(ws, c5, 700),
      newOffer(ws, c7, 50),
    ]);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId: o3cheap.id } }, body: {} }));
    await ok(archiveProduct(ws, c7));
    offerOf = { o1a: o1a.id, o1b: o1b.id, o2: o2.id, o3: o3.id, o7: o7.id };
  });

  test('default order is newest first; orderDirection ASC reverses it; orderBy createdAt is the default', async () => {
    expect(await listIds(ws)).toEqual([c6, c5, c4, c3, c2, c1]);
    expect(await listIds(ws, { orderDirection: 'ASC' })).toEqual([c1, c2, c3, c4, c5, c6]);
    expect(await listIds(ws, { orderBy: 'createdAt' })).toEqual([c6, c5, c4, c3, c2, c1]);
    expect(await listIds(ws, { orderBy: 'createdAt', orderDirection: 'ASC' })).toEqual([c1, c2, c3, c4, c5, c6]);
  });

  test('orderBy name, both ways', async () => {
    expect(await listIds(ws, { orderBy: 'name', orderDirection: 'ASC' })).toEqual([c4, c2, c6, c1, c5, c3]);
    expect(await listIds(ws, { orderBy: 'name', orderDirection: 'DESC' })).toEqual([c3, c5, c1, c6, c2, c4]);
  });

  test('orderBy price uses the lowest live offer price; products without offers come last either way', async () => {
    expect(await listIds(ws, { orderBy: 'price', orderDirection: 'ASC' })).toEqual([c2, c1, c5, c3, c4, c6]);
    expect(await listIds(ws, { orderBy: 'price', orderDirection: 'DESC' })).toEqual([c3, c5, c1, c2, c6, c4]);
  });

  test('ids, including 150 values in one query', async () => {
    expect(await listIds(ws, { ids: [c1, c3] })).toEqual([c3, c1]);
    expect(await listIds(ws, { ids: [c7] })).toEqual([]);
    expect(await listIds(ws, { ids: [c7], archived: true })).toEqual([c7]);
    expect(await listIds(ws, { ids: [randomUUID()] })).toEqual([]);
    expect(await listIds(other, { ids: [c1] })).toEqual([]);
    const repeated = Array.from({ length: 150 }, (_, i) => (i % 2 ? c1 : c5));
    expect(await listIds(ws, { ids: repeated })).toEqual([c5, c1]);
    const lastOfMany = [...Array.from({ length: 149 }, () => randomUUID()), c2];
    expect(await listIds(ws, { ids: lastOfMany })).toEqual([c2]);
    expect((await ok(listProducts(ws, { ids: lastOfMany, returnCount: true }))).count).toBe(1);
  });

  test('statuses and types match any listed value', async () => {
    expect(await listIds(ws, { statuses: ['ACTIVE'] })).toEqual([c5, c3, c1]);
    expect(await listIds(ws, { statuses: ['DRAFT', 'INACTIVE'] })).toEqual([c6, c4, c2]);
    expect(await listIds(ws, { types: ['Game'] })).toEqual([c2, c1]);
    expect(await listIds(ws, { types: ['SoftwareKey', 'GiftCard'] })).toEqual([c6, c5]);
    expect(await listIds(ws, { types: ['VirtualItem'] })).toEqual([]);
  });

  test('termOrId searches name and description case-insensitively, or matches the exact id', async () => {
    expect(await listIds(ws, { termOrId: 'quest' })).toEqual([c5, c1]);
    expect(await listIds(ws, { termOrId: 'EPIC' })).toEqual([c2, c1]);
    expect(await listIds(ws, { termOrId: 'cotton' })).toEqual([c3]);
    expect(await listIds(ws, { termOrId: '  shirt  ' })).toEqual([c3]);
    expect(await listIds(ws, { termOrId: c3 })).toEqual([c3]);
    expect(await listIds(ws, { termOrId: c3.toUpperCase() })).toEqual([c3]);
    expect(await listIds(ws, { termOrId: c3.slice(0, 13) })).toEqual([]);
    expect(await listIds(ws, { termOrId: c7 })).toEqual([]);
    expect(await listIds(ws, { termOrId: 'nothing like it' })).toEqual([]);
  });

  test('tagName is one exact tag', async () => {
    expect(await listIds(ws, { tagName: 'sale' })).toEqual([c3, c1]);
    expect(await listIds(ws, { tagName: 'new' })).toEqual([c2, c1]);
    expect(await listIds(ws, { tagName: 'sal' })).toEqual([]);
  });

  test('genres and systems match products having any of the values', async () => {
    expect(await listIds(ws, { genres: ['rpg'] })).toEqual([c1]);
    expect(await listIds(ws, { genres: ['racing', 'adventure'] })).toEqual([c2, c1]);
    expect(await listIds(ws, { genres: ['none'] })).toEqual([]);
    expect(await listIds(ws, { systems: ['pc'] })).toEqual([c2, c1]);
    expect(await listIds(ws, { systems: ['xbox', 'switch'] })).toEqual([c2]);
  });

  test('projectId', async () => {
    expect(await listIds(ws, { projectId: secondProject })).toEqual([c6]);
    expect(await listIds(ws, { projectId: ws.projectId })).toEqual([c5, c4, c3, c2, c1]);
    expect(await listIds(ws, { projectId: other.projectId })).toEqual([]);
    expect(await listIds(ws, { projectId: randomUUID() })).toEqual([]);
  });

  test('offers finds the products having any of the given offers', async () => {
    expect(await listIds(ws, { offers: [offerOf.o2] })).toEqual([c2]);
    expect(await listIds(ws, { offers: [offerOf.o1a, offerOf.o1b, offerOf.o3] })).toEqual([c3, c1]);
    expect(await listIds(ws, { offers: [offerOf.o7] })).toEqual([]);
    expect(await listIds(ws, { offers: [offerOf.o7], archived: true })).toEqual([c7]);
    expect(await listIds(ws, { offers: [randomUUID()] })).toEqual([]);
    expect(await listIds(other, { offers: [offerOf.o2] })).toEqual([]);
  });

  test('archived, withArchived and archived winning over withArchived', async () => {
    expect(await listIds(ws, { archived: true })).toEqual([c7]);
    expect(await listIds(ws, { withArchived: true })).toEqual([c7, c6, c5, c4, c3, c2, c1]);
    expect(await listIds(ws, { archived: true, withArchived: true })).toEqual([c7]);
    expect(await listIds(ws, { archived: true, genres: ['rpg'] })).toEqual([c7]);
    expect(await listIds(ws, { withArchived: true, genres: ['rpg'] })).toEqual([c7, c1]);
  });

  test('filters combine with AND', async () => {
    expect(await listIds(ws, { types: ['Game'], statuses: ['ACTIVE'] })).toEqual([c1]);
    expect(await listIds(ws, { tagName: 'sale', types: ['DigitalDownload'] })).toEqual([c3]);
    expect(await listIds(ws, { termOrId: 'quest', types: ['SoftwareKey'] })).toEqual([c5]);
    expect(await listIds(ws, { genres: ['rpg'], statuses: ['DRAFT'] })).toEqual([]);
    expect(await listIds(ws, { projectId: ws.projectId, statuses: ['DRAFT'] })).toEqual([c2]);
    expect(await listIds(ws, { offers: [offerOf.o2, offerOf.o3], statuses: ['ACTIVE'] })).toEqual([c3]);
    expect(await listIds(ws, { ids: [c1, c2, c3], systems: ['pc'], tagName: 'new', termOrId: 'racer' })).toEqual([c2]);
    expect(await listIds(ws, { statuses: ['ACTIVE'], orderBy: 'price', orderDirection: 'ASC' })).toEqual([c1, c5, c3]);
  });

  test('pagination: skip, take clamps and count', async () => {
    expect(await listIds(ws, { skip: 1, take: 2 })).toEqual([c5, c4]);
    expect(await listIds(ws, { skip: 5, take: 2 })).toEqual([c1]);
    expect(await listIds(ws, { skip: 6 })).toEqual([]);
    expect(await listIds(ws, { take: 0 })).toEqual([c6]);
    expect(await listIds(ws, { take: -5 })).toEqual([c6]);
    expect(await listIds(ws, { skip: 2, take: 2, orderBy: 'name', orderDirection: 'ASC' })).toEqual([c6, c1]);
    expect(await ok(listProducts(ws, { take: 1, returnCount: true }))).toEqual({ products: [expect.objectContaining({ id: c6 })], count: 6 });
    expect((await ok(listProducts(ws, { take: 1 }))).count).toBeNull();
    expect((await ok(listProducts(ws, { take: 1, returnCount: false }))).count).toBeNull();
    expect((await ok(listProducts(ws, { statuses: ['ACTIVE'], take: 1, returnCount: true }))).count).toBe(3);
    expect((await ok(listProducts(ws, { skip: 10, returnCount: true }))).count).toBe(6);
    expect(await failure(listProducts(ws, { skip: -1 }))).toEqual({ status: 400, body: ERROR });
  });

  test('list items are full product resources (without the variants GET adds)', async () => {
    const { products } = await ok(listProducts(ws, { ids: [c1] }));
    const { variants, ...listed } = (await ok(getProduct(ws, c1))).product;
    expect(variants).toEqual([]);
    expect(products).toEqual([listed]);
  });

  test('malformed parameters are 400', async () => {
    for (const query of [
      'orderBy=popularity',
      'orderDirection=UP',
      'statuses=ARCHIVED',
      'types=Book',
      'ids=not-a-uuid',
      `ids=${c1}&ids=nope`,
      'projectId=nope',
      'offers=nope',
      'take=abc',
      'skip=1.5',
      'skip=-1',
    ]) {
      const res = await raw('GET', '/v0/products/list', { headers: keyHeaders(ws, READ), query });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.body).toEqual(ERROR);
    }
  });

  test('the list needs a key', async () => {
    expect(await raw('GET', '/v0/products/list')).toMatchObject({ status: 401, body: ERROR });
  });
});

describe('products: termOrId matches wildcard characters literally', () => {
  let ws: Workspace;
  let percent: string, digits: string, underscore: string, letter: string, backslash: string, described: string;
  beforeAll(async () => {
    ws = spaces.literals;
    [percent, digits, underscore, letter, backslash, described] = (
      await Promise.all([
        newProduct(ws, { name: '100% cotton' }),
        newProduct(ws, { name: '1000 cotton' }),
        newProduct(ws, { name: 'snake_case tips' }),
        newProduct(ws, { name: 'snakeXcase tips' }),
        newProduct(ws, { name: 'C:\\temp files' }),
        newProduct(ws, { name: 'Plain', description: 'Now 50% off' }),
      ])
    ).map((p) => p.id) as [string, string, string, string, string, string];
  });

  const search = async (termOrId: string) => (await listIds(ws, { termOrId })).sort();

  test('% matches a percent sign only', async () => {
    expect(await search('100%')).toEqual([percent]);
    expect(await search('%')).toEqual([percent, described].sort());
    expect(await search('50%')).toEqual([described]);
    expect(await search('1000')).toEqual([digits]);
  });

  test('_ matches an underscore only', async () => {
    expect(await search('e_c')).toEqual([underscore]);
    expect(await search('_')).toEqual([underscore]);
    expect(await search('ex')).toEqual([letter]);
  });

  test('a backslash matches itself', async () => {
    expect(await search('\\')).toEqual([backslash]);
    expect(await search(':\\t')).toEqual([backslash]);
  });
});

describe('products: page size', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = spaces.paging;
    // Seeded in one statement: 105 creates through the API would only slow the suite down.
    await db.query(
      `INSERT INTO "Product" (id, "workspaceId", livemode, "projectId", type, slug, name, "updatedAt")
       SELECT gen_random_uuid(), $1, true, $2, 'DigitalDownload', 'bulk-' || n, 'Bulk ' || n, now() FROM generate_series(1, 105) AS n`,
      [ws.workspaceId, ws.projectId],
    );
  });

  test('take defaults to 20 and is clamped to 100', async () => {
    expect(await listIds(ws)).toHaveLength(20);
    expect(await listIds(ws, { take: 500 })).toHaveLength(100);
    expect(await listIds(ws, { take: 100 })).toHaveLength(100);
    expect(await listIds(ws, { take: 100, skip: 100 })).toHaveLength(5);
    const all = [...(await listIds(ws, { take: 100 })), ...(await listIds(ws, { take: 100, skip: 100 }))];
    expect(new Set(all).size).toBe(105);
    expect((await ok(listProducts(ws, { take: 500, returnCount: true }))).count).toBe(105);
  });
});
