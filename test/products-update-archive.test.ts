import { randomUUID } from 'node:crypto';
import { call, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { READ, SLUG, spaces, createProduct, getProduct, updateProduct, archiveProduct, duplicateProduct, addVariant, listProducts, newProduct, listIds, newOffer, getOffer, storedProducts, storedVariants } from './support/products-suite.js';

describe('products: update', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(() => {
    ({ updates: ws, elsewhere: other } = spaces);
  });

  test('changes the sent fields, keeps the rest, and GET reads them back', async () => {
    const product = await newProduct(ws, { name: 'Before', description: 'Old text', tags: ['old'], internalId: 'keep-me' });
    const changes = {
      name: '  After  ',
      description: 'New text',
      tags: ['new', 'sale'],
      media: [{ url: 'https://example.com/new.png', type: 'image' }],
      customFields: { colour: 'red' },
    };
    const { product: updated } = await ok(updateProduct(ws, product.id, changes));
    expect(updated).toEqual({ ...product, ...changes, name: 'After', updatedAt: expect.any(Number) });
    expect(updated.updatedAt).toBeGreaterThanOrEqual(product.updatedAt);
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...updated, variants: [] });
    // An empty body changes nothing.
    expect((await ok(updateProduct(ws, product.id, {}))).product).toEqual({ ...updated, updatedAt: expect.any(Number) });
  });

  test('the slug is fixed at creation; type and other unknown fields are ignored', async () => {
    const product = await newProduct(ws, { name: 'Fixed slug' });
    const res = await call('PATCH', `/v0/products/${product.id}/update`, ws, { name: 'Renamed', slug: 'other-slug', type: 'Game', projectId: other.projectId, id: randomUUID() });
    expect(res.status).toBe(200);
    expect(res.body.data.product).toEqual({ ...product, name: 'Renamed', updatedAt: expect.any(Number) });
  });

  test('status moves freely between DRAFT, ACTIVE and INACTIVE', async () => {
    const product = await newProduct(ws, { name: 'Stateful' });
    for (const status of ['ACTIVE', 'INACTIVE', 'ACTIVE', 'DRAFT'] as const) {
      expect((await ok(updateProduct(ws, product.id, { status }))).product.status).toBe(status);
      expect((await ok(getProduct(ws, product.id))).product.status).toBe(status);
    }
  });

  test('invalid values are 400 and change nothing', async () => {
    const product = await newProduct(ws, { name: 'Guarded update', description: 'Kept' });
    const invalid: Record<string, unknown>[] = [
      { name: '' },
      { name: '   ' },
      { name: null },
      { name: 'n'.repeat(256) },
      { name: 5 },
      { status: 'ARCHIVED' },
      { status: null },
      { description: null },
      { description: 5 },
      { tags: null },
      { media: null },
      { media: [{ url: 'javascript:alert(1)', type: 'image' }] },
      { customFields: ['a'] },
      { pegiRating: null },
    ];
    for (const body of invalid) {
      const res = await call('PATCH', `/v0/products/${product.id}/update`, ws, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual(ERROR);
    }
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...product, variants: [] });
  });

  test('Game-only fields follow the stored type; null clears the nullable ones', async () => {
    const ebook = await newProduct(ws, { name: 'Plain ebook' });
    for (const body of [{ developer: 'Studio' }, { pegiRating: 'PEGI_7' }, { systems: ['pc'] }, { genres: ['rpg'] }, { publisher: 'X' }, { releaseDate: '2020-01-01' }]) {
      const res = await failure(updateProduct(ws, ebook.id, body));
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    const game = await newProduct(ws, { name: 'Updatable game', type: 'Game' });
    const gameFields = { developer: 'Studio', publisher: 'Label', pegiRating: 'PEGI_16', releaseDate: '2026-01-01', systems: ['switch'], genres: ['puzzle'] };
    const { product: rated } = await ok(updateProduct(ws, game.id, gameFields));
    expect(rated).toMatchObject(gameFields);
    expect((await failure(updateProduct(ws, game.id, { pegiRating: 'PEGI_21' }))).status).toBe(400);
    const { product: cleared } = await ok(
      updateProduct(ws, game.id, { developer: null, publisher: null, releaseDate: null, systems: null, genres: null, internalId: null, customFields: null }),
    );
    expect(cleared).toEqual({
      ...rated,
      developer: null,
      publisher: null,
      releaseDate: null,
      systems: [],
      genres: [],
      internalId: null,
      customFields: null,
      updatedAt: expect.any(Number),
    });
  });

  test('a malformed id is 400; unknown, archived and foreign products are 404', async () => {
    const product = await newProduct(ws, { name: 'Soon archived' });
    const foreign = await newProduct(other, { name: 'Foreign' });
    expect(await failure(updateProduct(ws, 'nope', { name: 'X' }))).toEqual({ status: 400, body: ERROR });
    expect(await failure(updateProduct(ws, randomUUID(), { name: 'X' }))).toEqual({ status: 404, body: ERROR });
    expect(await failure(updateProduct(ws, foreign.id, { name: 'Hijacked' }))).toEqual({ status: 404, body: ERROR });
    await ok(archiveProduct(ws, product.id));
    expect(await failure(updateProduct(ws, product.id, { name: 'X' }))).toEqual({ status: 404, body: ERROR });
    expect((await ok(getProduct(other, foreign.id))).product.name).toBe('Foreign');
  });

  test('the public key alone is 401 and changes nothing', async () => {
    const product = await newProduct(ws, { name: 'Read only' });
    expect(await failure(updateProduct(ws, product.id, { name: 'Changed' }, READ))).toEqual({ status: 401, body: ERROR });
    expect((await ok(getProduct(ws, product.id))).product.name).toBe('Read only');
  });
});

describe('products: archive', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(() => {
    ({ archive: ws, elsewhere: other } = spaces);
  });

  test('answers success, hides the product, and lists it only on request', async () => {
    const kept = await newProduct(ws, { name: 'Kept' });
    const gone = await newProduct(ws, { name: 'Gone' });
    const { data, response } = await archiveProduct(ws, gone.id);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { success: true } });
    expect(await failure(getProduct(ws, gone.id))).toEqual({ status: 404, body: ERROR });
    expect(await listIds(ws)).toEqual([kept.id]);
    expect(await listIds(ws, { archived: false })).toEqual([kept.id]);
    expect(await listIds(ws, { archived: true })).toEqual([gone.id]);
    expect(await listIds(ws, { withArchived: true })).toEqual([gone.id, kept.id]);
    expect(await listIds(ws, { archived: true, withArchived: true })).toEqual([gone.id]);
    const { products } = await ok(listProducts(ws, { archived: true }));
    expect(products).toEqual([{ ...gone, updatedAt: expect.any(Number) }]);
  });

  test('archives the product offers with it, and only those', async () => {
    const doomed = await newProduct(ws, { name: 'Doomed' });
    const bystander = await newProduct(ws, { name: 'Bystander' });
    const [a, b, c] = await Promise.all([newOffer(ws, doomed.id, 100), newOffer(ws, doomed.id, 200), newOffer(ws, bystander.id, 300)]);
    await ok(archiveProduct(ws, doomed.id));
    for (const offer of [a, b]) expect(await failure(getOffer(ws, offer.id))).toEqual({ status: 404, body: ERROR });
    expect((await ok(getOffer(ws, c.id))).offer.id).toBe(c.id);
    const archivedOffers = await ok(restClient(ws, READ).GET('/v0/offers/list', { params: { query: { archived: true, product: doomed.id } } }));
    expect(archivedOffers.offers.map((o) => o.id).sort()).toEqual([a.id, b.id].sort());
    // The archived product cannot take new offers.
    expect((await failure(restClient(ws).POST('/v0/offers/create', { body: { productId: doomed.id, price: 1, currency: 'USD' } }))).status).toBe(400);
  });

  test('archiving twice is 404, and so are the other writes on an archived product', async () => {
    const product = await newProduct(ws, { name: 'Twice' });
    await ok(archiveProduct(ws, product.id));
    expect(await failure(archiveProduct(ws, product.id))).toEqual({ status: 404, body: ERROR });
    expect(await failure(duplicateProduct(ws, product.id))).toEqual({ status: 404, body: ERROR });
    expect(await failure(addVariant(ws, product.id, { name: 'Late' }))).toEqual({ status: 404, body: ERROR });
    expect(await listIds(ws, { archived: true, ids: [product.id] })).toEqual([product.id]);
  });

  test('a malformed id is 400; unknown and foreign products are 404 and stay live', async () => {
    const foreign = await newProduct(other, { name: 'Foreign' });
    expect(await failure(archiveProduct(ws, 'nope'))).toEqual({ status: 400, body: ERROR });
    expect(await failure(archiveProduct(ws, randomUUID()))).toEqual({ status: 404, body: ERROR });
    expect(await failure(archiveProduct(ws, foreign.id))).toEqual({ status: 404, body: ERROR });
    expect((await ok(getProduct(other, foreign.id))).product).toEqual({ ...foreign, variants: [] });
  });

  test('the public key alone is 401 and archives nothing', async () => {
    const product = await newProduct(ws, { name: 'Protected' });
    expect(await failure(archiveProduct(ws, product.id, READ))).toEqual({ status: 401, body: ERROR });
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...product, variants: [] });
  });
});

describe('products: duplicate', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(() => {
    ({ duplicates: ws, elsewhere: other } = spaces);
  });

  test('copies every field and the variants under a new id and a -copy slug, as DRAFT, without offers', async () => {
    const source = await newProduct(ws, {
      name: 'Original',
      type: 'Game',
      description: 'The first',
      internalId: 'orig-1',
      developer: 'Dev',
      publisher: 'Pub',
      pegiRating: 'PEGI_18',
      releaseDate: '2023-05-05',
      systems: ['pc'],
      genres: ['horror'],
      tags: ['dark'],
      media: [{ url: 'https://example.com/o.png', type: 'image' }],
      status: 'ACTIVE',
      customFields: { edition: 'gold' },
    });
    await ok(addVariant(ws, source.id, { name: 'Standard', description: 'Base game', internalId: 'v-std', order: 1 }));
    await ok(addVariant(ws, source.id, { name: 'Deluxe', order: 2 }));
    const offer = await newOffer(ws, source.id, 4999);

    const withVariants = (await ok(getProduct(ws, source.id))).product;
    expect(withVariants).toEqual({
      ...source,
      variants: [
        { object: 'variant', id: expect.any(String), productId: source.id, name: 'Standard', description: 'Base game', internalId: 'v-std', order: 1, createdAt: expect.any(Number) },
        { object: 'variant', id: expect.any(String), productId: source.id, name: 'Deluxe', description: '', internalId: null, order: 2, createdAt: expect.any(Number) },
      ],
    });

    const { data, response } = await duplicateProduct(ws, source.id);
    expect(response.status).toBe(200);
    const copy = data!.data.product;
    expect(copy).toEqual({ ...source, id: expect.any(String), slug: 'original-copy', status: 'DRAFT', createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    expect(copy.id).not.toBe(source.id);
    // The copied variants are visible on GET.
    const copiedVariant = (variant: (typeof withVariants.variants)[number]) => ({ ...variant, id: expect.any(String), productId: copy.id, createdAt: expect.any(Number) });
    expect((await ok(getProduct(ws, copy.id))).product).toEqual({ ...copy, variants: withVariants.variants.map(copiedVariant) });

    const sourceVariants = await storedVariants(source.id);
    const copiedVariants = await storedVariants(copy.id);
    const withoutId = (rows: Record<string, unknown>[]) => rows.map(({ id: _id, ...rest }) => rest);
    expect(withoutId(copiedVariants)).toEqual(withoutId(sourceVariants));
    expect(copiedVariants).toHaveLength(2);
    expect(copiedVariants.map((v) => v.id)).not.toContain(sourceVariants[0]!.id);
    expect(copiedVariants.map((v) => v.id)).not.toContain(sourceVariants[1]!.id);

    const copyOffers = await ok(restClient(ws, READ).GET('/v0/offers/list', { params: { query: { product: copy.id, withArchived: true } } }));
    expect(copyOffers.offers).toEqual([]);
    expect(await listIds(ws, { offers: [offer.id] })).toEqual([source.id]);
    // The source is untouched.
    expect((await ok(getProduct(ws, source.id))).product).toEqual(withVariants);
  });

  test('a product without variants copies to one without variants', async () => {
    const source = await newProduct(ws, { name: 'Bare' });
    const copy = (await ok(duplicateProduct(ws, source.id))).product;
    expect(await storedVariants(copy.id)).toEqual([]);
  });

  test('a second copy gets a suffixed slug, and a copy of a copy another -copy', async () => {
    const source = await newProduct(ws, { name: 'Copied often' });
    const first = (await ok(duplicateProduct(ws, source.id))).product;
    const second = (await ok(duplicateProduct(ws, source.id))).product;
    const nested = (await ok(duplicateProduct(ws, first.id))).product;
    expect(first.slug).toBe('copied-often-copy');
    expect(second.slug).toMatch(/^copied-often-copy-[0-9a-f]{6}$/);
    expect(nested.slug).toBe('copied-often-copy-copy');
  });

  test('the copy slug keeps the slug format when the source slug is long', async () => {
    // Cut at 55 characters, this slug would end in a hyphen.
    const source = await newProduct(ws, { name: 'Long slug', slug: `${'a'.repeat(54)}-bbbbbbbb` });
    const copy = (await ok(duplicateProduct(ws, source.id))).product;
    expect(copy.slug).toMatch(SLUG);
    expect(copy.slug).toBe(`${'a'.repeat(54)}-copy`);
  });

  test('a malformed id is 400; unknown and foreign products are 404 and copy nothing', async () => {
    const foreign = await newProduct(other, { name: 'Foreign' });
    const [before, otherBefore] = [await storedProducts(ws), await storedProducts(other)];
    expect(await failure(duplicateProduct(ws, 'nope'))).toEqual({ status: 400, body: ERROR });
    expect(await failure(duplicateProduct(ws, randomUUID()))).toEqual({ status: 404, body: ERROR });
    expect(await failure(duplicateProduct(ws, foreign.id))).toEqual({ status: 404, body: ERROR });
    expect(await failure(duplicateProduct(ws, foreign.id, READ))).toEqual({ status: 401, body: ERROR });
    expect(await storedProducts(ws)).toBe(before);
    expect(await storedProducts(other)).toBe(otherBefore);
  });
});

describe('products: product limit', () => {
  // The workspace starts with productLimit=3 and test mode set up.
  let ws: Workspace;
  beforeAll(() => {
    ws = spaces.limit;
  });

  test('concurrent creates cannot overshoot the limit', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => createProduct(ws, { name: `Racer ${i}` })));
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 200, 200, 409, 409, 409]);
    expect(results.filter((r) => r.response.status === 409).map((r) => r.error)).toEqual([ERROR, ERROR, ERROR]);
    expect(await storedProducts(ws)).toBe(3);
  });

  test('create and duplicate beyond the limit are 409 and write nothing; archiving frees a slot', async () => {
    const [first, second] = await listIds(ws, { orderDirection: 'ASC' });
    expect(await failure(createProduct(ws, { name: 'Fourth' }))).toEqual({ status: 409, body: ERROR });
    expect(await failure(duplicateProduct(ws, first!))).toEqual({ status: 409, body: ERROR });
    expect(await storedProducts(ws)).toBe(3);
    await ok(archiveProduct(ws, first!));
    const copy = (await ok(duplicateProduct(ws, second!))).product;
    expect(copy.slug).toMatch(/^racer-\d-copy$/);
    expect(await failure(createProduct(ws, { name: 'Fifth' }))).toEqual({ status: 409, body: ERROR });
    expect(await storedProducts(ws)).toBe(4);
  });

  test('the limit counts the products of the key mode only', async () => {
    expect(await failure(createProduct(ws, { name: 'Live over' }))).toEqual({ status: 409, body: ERROR });
    expect((await newProduct(ws, { name: 'Test under' }, { mode: 'test' })).name).toBe('Test under');
  });
});
