import { randomUUID } from 'node:crypto';
import type { components, operations } from './generated/openapi.js';
import { call, keyHeaders, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok, useSuiteDatabase } from './support/responses.js';

type Product = components['schemas']['Product'];
type ProductType = components['schemas']['ProductType'];
type CreateBody = operations['createProduct']['requestBody']['content']['application/json'];
type UpdateBody = NonNullable<operations['updateProduct']['requestBody']>['content']['application/json'];
type VariantBody = operations['addVariant']['requestBody']['content']['application/json'];
type VariantUpdateBody = NonNullable<operations['updateVariant']['requestBody']>['content']['application/json'];
type ListQuery = NonNullable<operations['products']['parameters']['query']>;

const READ: KeyChoice = { write: false };
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NOT_GAME: ProductType[] = ['DigitalDownload', 'GiftCard', 'SoftwareKey', 'VirtualCurrency', 'VirtualItem', 'Subscription', 'OneTimePayment'];

/**
 * One workspace per describe block, so its counts are exact, plus one to play "another
 * workspace" for all of them. Created at once, with their settings, as each admin CLI call takes
 * seconds.
 */
const SETTINGS = {
  create: [],
  slugs: ['testMode=true'],
  reads: ['testMode=true'],
  updates: [],
  archive: [],
  duplicates: [],
  limit: ['productLimit=3', 'testMode=true'],
  variants: [],
  filters: [],
  literals: [],
  paging: [],
  elsewhere: [],
} satisfies Record<string, string[]>;
const spaces = {} as Record<keyof typeof SETTINGS, Workspace>;

/** Direct database access: variants and a second project have no read or create endpoint. */
const db = useSuiteDatabase();
beforeAll(async () => {
  await Promise.all(
    Object.entries(SETTINGS).map(async ([block, settings]) => {
      const ws = await newWorkspace(`Products ${block}`);
      if (settings.length) await setWorkspace(ws.workspaceId, ...settings);
      spaces[block as keyof typeof SETTINGS] = ws;
    }),
  );
  // A dozen CLI processes at once can take over a minute on a busy machine.
}, 300_000);


const createProduct = (ws: Workspace, body: Partial<CreateBody>, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/create', { body: { name: 'Product', projectId: ws.projectId, type: 'DigitalDownload', ...body } });
const getProduct = (ws: Workspace, productId: string, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/products/{productId}', { params: { path: { productId } } });
const updateProduct = (ws: Workspace, productId: string, body: UpdateBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/products/{productId}/update', { params: { path: { productId } }, body });
const archiveProduct = (ws: Workspace, productId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/products/{productId}/archive', { params: { path: { productId } }, body: {} });
const duplicateProduct = (ws: Workspace, productId: string, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/{productId}/duplicate', { params: { path: { productId } }, body: {} });
const addVariant = (ws: Workspace, productId: string, body: VariantBody, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/{productId}/variants/add', { params: { path: { productId } }, body });
const updateVariant = (ws: Workspace, productId: string, variantId: string, body: VariantUpdateBody) =>
  restClient(ws).PATCH('/v0/products/{productId}/variants/{variantId}/update', { params: { path: { productId, variantId } }, body });
const updatePlan = (ws: Workspace, productId: string, planId: string, body: VariantUpdateBody) =>
  restClient(ws).PATCH('/v0/products/{productId}/plans/{planId}/update', { params: { path: { productId, planId } }, body });
const listProducts = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) => restClient(ws, key).GET('/v0/products/list', { params: { query } });

async function newProduct(ws: Workspace, body: Partial<CreateBody> = {}, key: KeyChoice = {}) {
  return (await ok(createProduct(ws, body, key))).product;
}

async function listIds(ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) {
  return (await ok(listProducts(ws, query, key))).products.map((p) => p.id);
}

async function newOffer(ws: Workspace, productId: string, price: number) {
  return (await ok(restClient(ws).POST('/v0/offers/create', { body: { productId, price, currency: 'USD' } }))).offer;
}

const getOffer = (ws: Workspace, offerId: string) => restClient(ws, READ).GET('/v0/offers/{offerId}', { params: { path: { offerId } } });

const storedProducts = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Product" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

const storedVariants = async (productId: string) =>
  (await db.query('SELECT id, name, description, "internalId", "order" FROM "Variant" WHERE "productId" = $1 ORDER BY name, id', [productId])).rows;

/** The product as create returns it when only name, projectId and type are sent. */
const withDefaults = (ws: Workspace, fields: Partial<Product>) => ({
  object: 'product',
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  type: 'DigitalDownload',
  internalId: null,
  description: '',
  developer: null,
  publisher: null,
  pegiRating: 'NONE',
  releaseDate: null,
  systems: [],
  genres: [],
  status: 'DRAFT',
  customFields: null,
  slug: expect.stringMatching(SLUG),
  projectId: ws.projectId,
  tags: [],
  media: [],
  createdAt: expect.any(Number),
  updatedAt: expect.any(Number),
  ...fields,
});

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
