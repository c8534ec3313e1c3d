import { randomUUID } from 'node:crypto';
import { call, keyHeaders, raw, type KeyChoice, type Workspace } from './support/api.js';
import { ERROR, failure, ok } from './support/responses.js';
import { Product, CreateBody, READ, SLUG, NOT_GAME, spaces, createProduct, getProduct, updateProduct, archiveProduct, newProduct, listIds, storedProducts, storedVariants, withDefaults } from './support/products-suite.js';

describe('products: create', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(() => {
    ({ create: ws, elsewhere: other } = spaces);
  });

  test('a minimal product has every field of the resource with its defaults, and GET returns it', async () => {
    const { data, response } = await createProduct(ws, { name: 'Ebook One' });
    expect(response.status).toBe(200);
    expect(data!.status).toBe('success');
    const { product } = data!.data;
    expect(product).toEqual(withDefaults(ws, { name: 'Ebook One', slug: 'ebook-one' }));
    // Unix seconds, not milliseconds.
    expect(Math.abs(product.createdAt - Date.now() / 1000)).toBeLessThan(120);
    const read = await getProduct(ws, product.id);
    // GET adds the product's variants (plans).
    expect(read.data).toEqual({ status: 'success', data: { product: { ...product, variants: [] } } });
  });

  test('a Game takes every field, stored as sent and read back by GET', async () => {
    const body = {
      name: 'Star Quest',
      type: 'Game' as const,
      description: 'A space opera',
      internalId: 'sku-1',
      developer: 'Nebula Studio',
      publisher: 'Orbit Games',
      pegiRating: 'PEGI_12',
      releaseDate: '2025-03-14',
      systems: ['pc', 'ps5'],
      genres: ['rpg', 'space'],
      tags: ['featured', 'sale'],
      media: [
        { url: 'https://cdn.example.com/cover.png', type: 'image' },
        { url: 'http://cdn.example.com/trailer.mp4', type: 'video' },
      ],
      status: 'ACTIVE' as const,
      customFields: { platformId: 42, flags: { beta: true }, regions: ['EU', 'US'] },
    };
    const product = await newProduct(ws, body);
    expect(product).toEqual(withDefaults(ws, { ...body, slug: 'star-quest' }));
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...product, variants: [] });
  });

  test('name is trimmed and the product type is the one sent', async () => {
    const products = await Promise.all(NOT_GAME.map((type) => newProduct(ws, { name: `  Typed ${type}  `, type })));
    expect(products.map((p) => [p.name, p.type])).toEqual(NOT_GAME.map((type) => [`Typed ${type}`, type]));
  });

  const gameFields: [string, Partial<CreateBody>][] = [
    ['developer', { developer: 'Studio' }],
    ['publisher', { publisher: 'Label' }],
    ['pegiRating', { pegiRating: 'PEGI_3' }],
    ['pegiRating NONE', { pegiRating: 'NONE' }],
    ['releaseDate', { releaseDate: '2024-01-01' }],
    ['systems', { systems: ['pc'] }],
    ['genres', { genres: ['rpg'] }],
  ];

  test.each(gameFields)('the Game-only field %s is 400 on a DigitalDownload and stores nothing', async (_label, fields) => {
    const before = await storedProducts(ws);
    expect(await failure(createProduct(ws, { name: 'Not a game', ...fields }))).toEqual({ status: 400, body: ERROR });
    expect(await storedProducts(ws)).toBe(before);
  });

  test('Game-only fields are 400 on every type but Game', async () => {
    const before = await storedProducts(ws);
    for (const type of NOT_GAME) {
      const res = await failure(createProduct(ws, { type, developer: 'Studio', genres: ['rpg'] }));
      expect({ type, status: res.status }).toEqual({ type, status: 400 });
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  test('pegiRating takes NONE and the five PEGI ages, and nothing else', async () => {
    const ratings = ['NONE', 'PEGI_3', 'PEGI_7', 'PEGI_12', 'PEGI_16', 'PEGI_18'];
    const rated = await Promise.all(ratings.map((pegiRating) => newProduct(ws, { name: `Rated ${pegiRating}`, type: 'Game', pegiRating })));
    expect(rated.map((p) => p.pegiRating)).toEqual(ratings);
    expect((await newProduct(ws, { name: 'Unrated', type: 'Game' })).pegiRating).toBe('NONE');
    const before = await storedProducts(ws);
    for (const pegiRating of ['PEGI_21', 'pegi_3', 'PEGI 3', '18', '']) {
      const res = await failure(createProduct(ws, { type: 'Game', pegiRating }));
      expect({ pegiRating, status: res.status }).toEqual({ pegiRating, status: 400 });
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  test('media is an array of {url, type: image|video}', async () => {
    expect((await newProduct(ws, { media: [] })).media).toEqual([]);
    const media = [{ url: 'https://example.com/a.jpg', type: 'image' }];
    expect((await newProduct(ws, { media })).media).toEqual(media);
    const before = await storedProducts(ws);
    const invalid: unknown[] = [
      'https://example.com/a.jpg',
      { url: 'https://example.com/a.jpg', type: 'image' },
      [null],
      ['https://example.com/a.jpg'],
      [{ type: 'image' }],
      [{ url: 'ftp://example.com/a.jpg', type: 'image' }],
      [{ url: 'not a url', type: 'image' }],
      [{ url: 'https://example.com/a b.jpg', type: 'image' }],
      [{ url: 42, type: 'image' }],
      [{ url: 'https://example.com/a.mp3', type: 'audio' }],
      [media[0], { url: 'https://example.com/b.jpg', type: 'IMAGE' }],
    ];
    for (const value of invalid) {
      const res = await failure(createProduct(ws, { media: value }));
      expect({ value, status: res.status }).toEqual({ value, status: 400 });
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  test('customFields is a JSON object, stored as sent', async () => {
    const customFields = { a: 1, b: 'two', c: [1, 2, { d: null }], e: { f: false } };
    expect((await newProduct(ws, { customFields })).customFields).toEqual(customFields);
    expect((await newProduct(ws, { customFields: {} })).customFields).toEqual({});
    expect((await newProduct(ws, { customFields: null })).customFields).toBeNull();
    const before = await storedProducts(ws);
    for (const value of [[1, 2], 'text', 5, true]) {
      const res = await failure(createProduct(ws, { customFields: value }));
      expect({ value, status: res.status }).toEqual({ value, status: 400 });
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  test('nullable fields take null; null on a required field is 400', async () => {
    const product = await newProduct(ws, { internalId: null, customFields: null, type: 'Game', developer: null, publisher: null, releaseDate: null, systems: null, genres: null });
    expect(product).toMatchObject({ internalId: null, customFields: null, developer: null, publisher: null, releaseDate: null, systems: [], genres: [] });
    const before = await storedProducts(ws);
    for (const field of ['name', 'type', 'projectId', 'description', 'pegiRating', 'status', 'tags', 'media']) {
      const res = await call('POST', '/v0/products/create', ws, { name: 'Nulls', projectId: ws.projectId, type: 'Game', [field]: null });
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      expect(res.body).toEqual(ERROR);
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  // Bodies a typed client would refuse to build.
  const wrongTypes: [string, Record<string, unknown>][] = [
    ['missing name', { name: undefined }],
    ['missing type', { type: undefined }],
    ['missing projectId', { projectId: undefined }],
    ['empty name', { name: '' }],
    ['blank name', { name: '   ' }],
    ['name over 255 characters', { name: 'n'.repeat(256) }],
    ['name as a number', { name: 123 }],
    ['name as a boolean', { name: true }],
    ['unknown type', { type: 'Book' }],
    ['type in lower case', { type: 'game' }],
    ['description as a number', { description: 5 }],
    ['internalId as a number', { internalId: 7 }],
    ['tags with a number', { tags: ['sale', 1] }],
    ['genres with a boolean on a Game', { type: 'Game', genres: [true] }],
    ['releaseDate as a number on a Game', { type: 'Game', releaseDate: 20240101 }],
    ['unknown status', { status: 'ARCHIVED' }],
    ['status in lower case', { status: 'active' }],
    ['slug as a number', { slug: 5 }],
    ['projectId not a uuid', { projectId: 'project-1' }],
  ];

  test.each(wrongTypes)('%s is 400 and stores nothing', async (_label, fields) => {
    const before = await storedProducts(ws);
    const res = await call('POST', '/v0/products/create', ws, { name: 'Wrong', projectId: ws.projectId, type: 'DigitalDownload', ...fields });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ERROR);
    expect(await storedProducts(ws)).toBe(before);
  });

  test('a body that is not JSON is 400', async () => {
    const res = await raw('POST', '/v0/products/create', { headers: keyHeaders(ws), body: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ERROR);
  });

  test('projectId must name a project of this workspace', async () => {
    const [before, otherBefore] = [await storedProducts(ws), await storedProducts(other)];
    expect(await failure(createProduct(ws, { projectId: other.projectId }))).toEqual({ status: 400, body: ERROR });
    expect(await failure(createProduct(ws, { projectId: randomUUID() }))).toEqual({ status: 400, body: ERROR });
    expect(await storedProducts(ws)).toBe(before);
    expect(await storedProducts(other)).toBe(otherBefore);
  });

  test('unknown body fields are ignored, including server-owned ones', async () => {
    const id = randomUUID();
    const res = await call('POST', '/v0/products/create', ws, {
      name: 'Extra fields',
      projectId: ws.projectId,
      type: 'DigitalDownload',
      id,
      object: 'order',
      workspaceId: other.workspaceId,
      livemode: false,
      lowestPrice: 1,
      archivedAt: 1700000000,
      createdAt: 1,
      variants: [{ name: 'Sneaky' }],
      colour: 'blue',
    });
    expect(res.status).toBe(200);
    const { product } = res.body.data;
    expect(product).toEqual(withDefaults(ws, { name: 'Extra fields', slug: 'extra-fields' }));
    expect(product.id).not.toBe(id);
    expect(Math.abs(product.createdAt - Date.now() / 1000)).toBeLessThan(120);
    // Still a live product of this workspace, not archived, without variants.
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...product, variants: [] });
    expect(await storedVariants(product.id)).toEqual([]);
  });

  test('a write with only the public key, or with no key, is 401 and writes nothing', async () => {
    const before = await storedProducts(ws);
    expect(await failure(createProduct(ws, { name: 'Nope' }, READ))).toEqual({ status: 401, body: ERROR });
    const anonymous = await raw('POST', '/v0/products/create', { body: JSON.stringify({ name: 'Nope', projectId: ws.projectId, type: 'DigitalDownload' }) });
    expect(anonymous).toMatchObject({ status: 401, body: ERROR });
    const wrongSecret = await raw('POST', '/v0/products/create', {
      headers: { ...keyHeaders(ws), 'x-svc-secret-key': other.secretKey },
      body: JSON.stringify({ name: 'Nope', projectId: ws.projectId, type: 'DigitalDownload' }),
    });
    expect(wrongSecret).toMatchObject({ status: 401, body: ERROR });
    expect(await storedProducts(ws)).toBe(before);
  });
});

describe('products: slugs', () => {
  let ws: Workspace;
  beforeAll(() => {
    ws = spaces.slugs;
  });

  test('an explicit slug is used as given', async () => {
    expect((await newProduct(ws, { name: 'Anything', slug: 'my-special-slug-2' })).slug).toBe('my-special-slug-2');
    expect((await newProduct(ws, { name: 'Digits', slug: '42' })).slug).toBe('42');
  });

  test('a slug that is not lowercase words with single hyphens is 400', async () => {
    const before = await storedProducts(ws);
    for (const slug of ['', 'Upper', 'with space', 'double--hyphen', '-leading', 'trailing-', 'under_score', 'crème', 'dot.ted', 'slash/ed']) {
      const res = await failure(createProduct(ws, { slug }));
      expect({ slug, status: res.status }).toEqual({ slug, status: 400 });
    }
    expect(await storedProducts(ws)).toBe(before);
  });

  test('a taken explicit slug is 400, also when an archived product holds it', async () => {
    await newProduct(ws, { name: 'First', slug: 'taken' });
    const before = await storedProducts(ws);
    expect(await failure(createProduct(ws, { name: 'Second', slug: 'taken' }))).toEqual({ status: 400, body: ERROR });
    const archived = await newProduct(ws, { name: 'Gone', slug: 'held-by-archived' });
    await ok(archiveProduct(ws, archived.id));
    expect(await failure(createProduct(ws, { name: 'Again', slug: 'held-by-archived' }))).toEqual({ status: 400, body: ERROR });
    expect(await storedProducts(ws)).toBe(before + 1);
  });

  test('a generated slug comes from the name and gets a short suffix when taken', async () => {
    const first = await newProduct(ws, { name: 'Twin Peaks' });
    const second = await newProduct(ws, { name: 'Twin  Peaks!' });
    const third = await newProduct(ws, { name: 'twin peaks' });
    expect(first.slug).toBe('twin-peaks');
    expect(second.slug).toMatch(/^twin-peaks-[0-9a-f]{6}$/);
    expect(third.slug).toMatch(/^twin-peaks-[0-9a-f]{6}$/);
    expect(third.slug).not.toBe(second.slug);
    // A generated slug also steps around explicit ones.
    await newProduct(ws, { name: 'Explicit owner', slug: 'owned-slug' });
    expect((await newProduct(ws, { name: 'Owned slug' })).slug).toMatch(/^owned-slug-[0-9a-f]{6}$/);
  });

  test('generated slugs drop accents and punctuation and stay within 60 characters', async () => {
    expect((await newProduct(ws, { name: 'Crème Brûlée: The Game!' })).slug).toBe('creme-brulee-the-game');
    expect((await newProduct(ws, { name: '!!!' })).slug).toBe('product');
    const long = await newProduct(ws, { name: `${'word '.repeat(30)}end` });
    expect(long.slug).toMatch(SLUG);
    expect(long.slug.length).toBeLessThanOrEqual(60);
  });

  test('slugs are unique per mode: a test-mode product may reuse a live slug', async () => {
    await newProduct(ws, { name: 'Mode twin', slug: 'mode-twin' });
    expect((await newProduct(ws, { name: 'Mode twin', slug: 'mode-twin' }, { mode: 'test' })).slug).toBe('mode-twin');
    expect((await newProduct(ws, { name: 'Mode twin' }, { mode: 'test' })).slug).toMatch(/^mode-twin-[0-9a-f]{6}$/);
  });
});

describe('products: get one', () => {
  let ws: Workspace;
  let other: Workspace;
  let product: Product;
  beforeAll(async () => {
    ({ reads: ws, elsewhere: other } = spaces);
    product = await newProduct(ws, { name: 'Readable', description: 'Read me' });
  });

  test('returns the product in the envelope, with the public key alone', async () => {
    const { data, response } = await getProduct(ws, product.id, READ);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { product: { ...product, variants: [] } } });
  });

  test('a malformed id is 400 and an unknown one 404', async () => {
    expect(await failure(getProduct(ws, 'not-a-uuid'))).toEqual({ status: 400, body: ERROR });
    expect(await failure(getProduct(ws, `${product.id}0`))).toEqual({ status: 400, body: ERROR });
    expect(await failure(getProduct(ws, randomUUID()))).toEqual({ status: 404, body: ERROR });
  });

  test('no key is 401', async () => {
    const res = await raw('GET', `/v0/products/${product.id}`);
    expect(res).toMatchObject({ status: 401, body: ERROR });
  });

  test("another workspace's product is 404", async () => {
    expect(await failure(getProduct(other, product.id))).toEqual({ status: 404, body: ERROR });
  });

  test('an archived product is 404', async () => {
    const archived = await newProduct(ws, { name: 'Archived read' });
    await ok(archiveProduct(ws, archived.id));
    expect(await failure(getProduct(ws, archived.id))).toEqual({ status: 404, body: ERROR });
  });

  test('test-mode keys see only test-mode products, and live keys only live ones', async () => {
    const TEST_READ: KeyChoice = { mode: 'test', write: false };
    const sandbox = await newProduct(ws, { name: 'Sandbox' }, { mode: 'test' });
    expect((await ok(getProduct(ws, sandbox.id, TEST_READ))).product).toEqual({ ...sandbox, variants: [] });
    expect(await failure(getProduct(ws, sandbox.id))).toEqual({ status: 404, body: ERROR });
    expect(await failure(getProduct(ws, product.id, TEST_READ))).toEqual({ status: 404, body: ERROR });
    expect(await listIds(ws, {}, TEST_READ)).toEqual([sandbox.id]);
    expect(await listIds(ws)).not.toContain(sandbox.id);
    expect(await listIds(ws, { termOrId: sandbox.id })).toEqual([]);
    // Writes are scoped the same way.
    expect((await failure(updateProduct(ws, sandbox.id, { name: 'Live write' }))).status).toBe(404);
    expect((await failure(updateProduct(ws, product.id, { name: 'Test write' }, { mode: 'test' }))).status).toBe(404);
    expect((await failure(archiveProduct(ws, product.id, { mode: 'test' }))).status).toBe(404);
    expect((await ok(getProduct(ws, product.id))).product).toEqual({ ...product, variants: [] });
  });
});
