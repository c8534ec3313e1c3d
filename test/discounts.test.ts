import { randomUUID } from 'node:crypto';
import { baseUrl, call, keyHeaders, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import type { operations } from './generated/openapi.js';
import { restClient } from './support/client.js';
import { ERROR, useSuiteDatabase } from './support/responses.js';

type CreateBody = operations['createDiscount']['requestBody']['content']['application/json'];
type UpdateBody = NonNullable<operations['updateDiscount']['requestBody']>['content']['application/json'];
type ListQuery = NonNullable<operations['discounts']['parameters']['query']>;

const MAX_TIMESTAMP = 9007199254740991;

/** Direct database access: offers are seeded here (the offers endpoint is built separately) and stored state is read back. */
const db = useSuiteDatabase();

const createDiscount = (ws: Workspace, body: Partial<CreateBody>, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/discounts/create', { body: { type: 'code', amount: 10, amountType: 'percentage', ...body } });
const getDiscount = (ws: Workspace, discountId: string, key: KeyChoice = { write: false }) =>
  restClient(ws, key).GET('/v0/discounts/{discountId}', { params: { path: { discountId } } });
const updateDiscount = (ws: Workspace, discountId: string, body: UpdateBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/discounts/{discountId}/update', { params: { path: { discountId } }, body });
const archiveDiscount = (ws: Workspace, discountId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/discounts/{discountId}/archive', { params: { path: { discountId } }, body: {} });
const listDiscounts = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = { write: false }) =>
  restClient(ws, key).GET('/v0/discounts/list', { params: { query } });

async function newDiscount(ws: Workspace, body: Partial<CreateBody> = {}, key: KeyChoice = {}) {
  const { data, response } = await createDiscount(ws, body, key);
  expect(response.status).toBe(200);
  return data!.data.discount;
}

async function listIds(ws: Workspace, query: ListQuery = {}, key: KeyChoice = { write: false }) {
  const { data, response } = await listDiscounts(ws, query, key);
  expect(response.status).toBe(200);
  return data!.data.discounts.map((d: { id: string }) => d.id);
}

const storedCount = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Discount" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

async function newProduct(ws: Workspace, name: string) {
  const { data, response } = await restClient(ws).POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'DigitalDownload' } });
  expect(response.status).toBe(200);
  return data!.data.product as { id: string; name: string };
}

async function newOffer(ws: Workspace, productId: string, fields: { name?: string; internalId?: string; livemode?: boolean; archived?: boolean } = {}) {
  const { rows } = await db.query(
    `INSERT INTO "Offer" (id, "workspaceId", livemode, "productId", name, "internalId", price, currency, "updatedAt", "archivedAt")
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 1000, 'USD', now(), $6) RETURNING id`,
    [ws.workspaceId, fields.livemode ?? true, productId, fields.name ?? null, fields.internalId ?? null, fields.archived ? new Date() : null],
  );
  return rows[0].id as string;
}

describe('discounts: create and read', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Discounts create');
  });

  test('a percentage code discount comes back field for field, and GET returns it with usage', async () => {
    const { data, response } = await createDiscount(ws, {
      type: 'code',
      name: 'Spring sale',
      amount: 12.5,
      amountType: 'percentage',
      discountCode: 'SPRING-25_x',
      validFrom: 1700000000,
      validUntil: 1900000000,
      purchaseLimit: 50,
      status: 'inactive',
      currency: 'EUR',
      timezone: 'Europe/Berlin',
    });
    expect(response.status).toBe(200);
    expect(data!.status).toBe('success');
    const { discount } = data!.data;
    expect(discount).toEqual({
      object: 'discount',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'code',
      name: 'Spring sale',
      amount: '12.5',
      amountType: 'percentage',
      discountCode: 'SPRING-25_x',
      validFrom: 1700000000,
      validUntil: 1900000000,
      purchaseLimit: 50,
      duration: 'once',
      durationInMonths: null,
      timesUsed: 0,
      status: 'inactive',
      includesAllOffers: true,
      includedOffers: [],
      excludedOffers: [],
      currency: 'EUR',
      timezone: 'Europe/Berlin',
      createdAt: expect.any(Number),
    });
    expect(Math.abs(discount.createdAt - Date.now() / 1000)).toBeLessThan(60);

    const details = await getDiscount(ws, discount.id);
    expect(details.response.status).toBe(200);
    expect(details.data).toEqual({
      status: 'success',
      data: { discount: { ...discount, usage: { timesUsed: 0, purchaseLimit: 50, remainingUses: 50 }, offers: [], products: [] } },
    });

    const stored = await db.query('SELECT amount::text, "validFrom"::text, livemode, "archivedAt" FROM "Discount" WHERE id = $1', [discount.id]);
    expect(stored.rows).toEqual([{ amount: '12.5000', validFrom: '1700000000', livemode: true, archivedAt: null }]);
  });

  test('a fixed sale discount gets the defaults: USD, UTC, active, no code, no dates, unlimited', async () => {
    const discount = await newDiscount(ws, { type: 'sale', amount: 500, amountType: 'fixed' });
    expect(discount).toMatchObject({
      type: 'sale',
      name: null,
      amount: '500',
      amountType: 'fixed',
      discountCode: null,
      validFrom: null,
      validUntil: null,
      purchaseLimit: null,
      status: 'active',
      currency: 'USD',
      timezone: 'UTC',
    });
    const { data } = await getDiscount(ws, discount.id);
    expect(data!.data.discount.usage).toEqual({ timesUsed: 0, purchaseLimit: null, remainingUses: null });
  });

  test('amounts are normalised strings: fractions keep their digits, whole numbers lose the zeros', async () => {
    expect((await newDiscount(ws, { amount: 100 })).amount).toBe('100');
    expect((await newDiscount(ws, { amount: 0.0001 })).amount).toBe('0.0001');
    expect((await newDiscount(ws, { amount: 33.3333 })).amount).toBe('33.3333');
    expect((await newDiscount(ws, { type: 'sale', amount: 2147483647, amountType: 'fixed' })).amount).toBe('2147483647');
  });

  test('a code discount without discountCode gets a generated 8-character uppercase code', async () => {
    const codes = await Promise.all([newDiscount(ws), newDiscount(ws, { discountCode: null })]);
    for (const discount of codes) expect(discount.discountCode).toMatch(/^[A-Z0-9]{8}$/);
    expect(codes[0].discountCode).not.toBe(codes[1].discountCode);
  });

  test('validFrom and validUntil accept the whole 0..2^53-1 range and may be equal', async () => {
    const discount = await newDiscount(ws, { validFrom: 0, validUntil: 0 });
    expect(discount).toMatchObject({ validFrom: 0, validUntil: 0 });
    const max = await newDiscount(ws, { validFrom: MAX_TIMESTAMP, validUntil: MAX_TIMESTAMP });
    expect(max).toMatchObject({ validFrom: MAX_TIMESTAMP, validUntil: MAX_TIMESTAMP });
  });
});

describe('discounts: validation', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Discounts validation');
  });

  const invalidBodies: [string, Partial<CreateBody>][] = [
    ['percentage above 100', { amount: 101 }],
    ['percentage just above 100', { amount: 100.0001 }],
    ['percentage of 0', { amount: 0 }],
    ['negative percentage', { amount: -5 }],
    ['percentage with more than 4 decimals', { amount: 12.34567 }],
    ['fixed amount with a fraction', { amount: 12.5, amountType: 'fixed' }],
    ['fixed amount of 0', { amount: 0, amountType: 'fixed' }],
    ['fixed amount beyond 32 bits', { amount: 2147483648, amountType: 'fixed' }],
    ['unknown currency', { currency: 'XXX' }],
    ['lower-case currency', { currency: 'usd' }],
    ['unknown time zone', { timezone: 'Mars/Phobos' }],
    ['offset instead of a zone', { timezone: '+01:00' }],
    ['empty time zone', { timezone: '' }],
    ['validUntil before validFrom', { validFrom: 1700000000, validUntil: 1699999999 }],
    ['negative validFrom', { validFrom: -1 }],
    ['validFrom above 2^53-1', { validFrom: 9007199254740992 }],
    ['validUntil above 2^53-1', { validUntil: 9007199254740992 }],
    ['fractional validFrom', { validFrom: 1700000000.5 }],
    ['discountCode on a sale', { type: 'sale', discountCode: 'SALE10' }],
    ['discountCode with a space', { discountCode: 'TEN OFF' }],
    ['discountCode with other punctuation', { discountCode: 'TEN!' }],
    ['empty discountCode', { discountCode: '' }],
    ['discountCode of 65 characters', { discountCode: 'A'.repeat(65) }],
    ['purchaseLimit of 0', { purchaseLimit: 0 }],
    ['empty name', { name: '  ' }],
    ['name over 255 characters', { name: 'n'.repeat(256) }],
    ['status null', { status: null }],
    ['currency null', { currency: null }],
  ];

  test.each(invalidBodies)('%s is 400 and stores nothing', async (_label, body) => {
    const before = await storedCount(ws);
    const { error, response } = await createDiscount(ws, body);
    expect(response.status).toBe(400);
    expect(error).toEqual(ERROR);
    expect(await storedCount(ws)).toBe(before);
  });

  // Bodies a typed client would refuse to build.
  const wrongTypes: [string, Record<string, unknown>][] = [
    ['amount as a string', { type: 'code', amount: '10', amountType: 'percentage' }],
    ['missing amount', { type: 'code', amountType: 'percentage' }],
    ['missing type', { amount: 10, amountType: 'percentage' }],
    ['unknown type', { type: 'coupon', amount: 10, amountType: 'percentage' }],
    ['unknown amountType', { type: 'code', amount: 10, amountType: 'percent' }],
    ['unknown status', { type: 'code', amount: 10, amountType: 'percentage', status: 'paused' }],
    ['validFrom as a date string', { type: 'code', amount: 10, amountType: 'percentage', validFrom: '2024-01-01' }],
    ['purchaseLimit as a string', { type: 'code', amount: 10, amountType: 'percentage', purchaseLimit: '5' }],
    ['name as a number', { type: 'code', amount: 10, amountType: 'percentage', name: 5 }],
    ['includedOffers as a string', { type: 'code', amount: 10, amountType: 'percentage', includedOffers: randomUUID() }],
    ['includedOffers with a non-uuid', { type: 'code', amount: 10, amountType: 'percentage', includedOffers: ['offer-1'] }],
    ['excludedOffers with a number', { type: 'code', amount: 10, amountType: 'percentage', excludedOffers: [5] }],
  ];

  test.each(wrongTypes)('%s is 400 and stores nothing', async (_label, body) => {
    const before = await storedCount(ws);
    const res = await call('POST', '/v0/discounts/create', ws, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ERROR);
    expect(await storedCount(ws)).toBe(before);
  });

  test('a body that is not JSON is 400', async () => {
    const res = await raw('POST', '/v0/discounts/create', { headers: keyHeaders(ws), body: '{"type":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ERROR);
  });

  test('discountCode is unique ignoring case among unarchived discounts of the workspace mode', async () => {
    const first = await newDiscount(ws, { discountCode: 'WELCOME_10' });
    const duplicate = await createDiscount(ws, { discountCode: 'welcome_10' });
    expect(duplicate.response.status).toBe(400);
    expect(duplicate.error!.error.message).toMatch(/already used/);
    // An underscore is a literal character, not a wildcard.
    await newDiscount(ws, { discountCode: 'WELCOMEX10' });

    const other = await newWorkspace('Discounts codes elsewhere', ['testMode=true']);
    await newDiscount(other, { discountCode: 'WELCOME_10' });
    await setWorkspace(ws.workspaceId, 'testMode=true');
    expect((await newDiscount(ws, { discountCode: 'WELCOME_10' }, { mode: 'test' })).discountCode).toBe('WELCOME_10');

    const second = await newDiscount(ws, { discountCode: 'SECOND' });
    const clash = await updateDiscount(ws, second.id, { discountCode: 'Welcome_10' });
    expect(clash.response.status).toBe(400);

    expect((await archiveDiscount(ws, first.id)).response.status).toBe(200);
    expect((await newDiscount(ws, { discountCode: 'Welcome_10' })).discountCode).toBe('Welcome_10');
  });
});

describe('discounts: offers', () => {
  let ws: Workspace;
  let other: Workspace;
  let productA: { id: string; name: string };
  let productB: { id: string; name: string };
  let offerA1: string;
  let offerA2: string;
  let offerB: string;
  let archivedOffer: string;
  let testModeOffer: string;
  let foreignOffer: string;
  const unknownOffer = randomUUID();
  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Discounts offers'), newWorkspace('Discounts offers other')]);
    [productA, productB] = [await newProduct(ws, 'Ebook A'), await newProduct(ws, 'Ebook B')];
    offerA1 = await newOffer(ws, productA.id, { name: 'A one', internalId: 'a-1' });
    offerA2 = await newOffer(ws, productA.id, { name: 'A two' });
    offerB = await newOffer(ws, productB.id);
    archivedOffer = await newOffer(ws, productB.id, { archived: true });
    testModeOffer = await newOffer(ws, productB.id, { livemode: false });
    foreignOffer = await newOffer(other, (await newProduct(other, 'Foreign')).id);
  });

  test('included offers are listed with their products in the details; includesAllOffers turns false', async () => {
    const discount = await newDiscount(ws, { includedOffers: [offerB, offerA1, offerA2, offerB], excludedOffers: [archivedOffer] });
    expect(discount).toMatchObject({ includesAllOffers: false, includedOffers: [offerB, offerA1, offerA2], excludedOffers: [archivedOffer] });
    const { data } = await getDiscount(ws, discount.id);
    expect(data!.data.discount.offers).toEqual([
      { object: 'offer', id: offerB, internalId: null, name: null, productId: productB.id },
      { object: 'offer', id: offerA1, internalId: 'a-1', name: 'A one', productId: productA.id },
      { object: 'offer', id: offerA2, internalId: null, name: 'A two', productId: productA.id },
    ]);
    expect(data!.data.discount.products).toEqual([
      { object: 'product', id: productB.id, name: 'Ebook B' },
      { object: 'product', id: productA.id, name: 'Ebook A' },
    ]);
  });

  test('a discount excluding offers still includes all the others', async () => {
    const discount = await newDiscount(ws, { excludedOffers: [offerA1] });
    expect(discount).toMatchObject({ includesAllOffers: true, includedOffers: [], excludedOffers: [offerA1] });
    const { data } = await getDiscount(ws, discount.id);
    expect(data!.data.discount).toMatchObject({ offers: [], products: [] });
  });

  test.each([
    ['an unknown offer id', () => ({ includedOffers: [offerA1, unknownOffer] }), () => unknownOffer],
    ['another workspace\'s offer', () => ({ excludedOffers: [foreignOffer] }), () => foreignOffer],
    ['a test-mode offer on a live discount', () => ({ includedOffers: [testModeOffer] }), () => testModeOffer],
  ])('%s is 400 naming the id', async (_label, body, id) => {
    const before = await storedCount(ws);
    const { error, response } = await createDiscount(ws, body());
    expect(response.status).toBe(400);
    expect(error!.error.message).toContain(id());
    expect(await storedCount(ws)).toBe(before);
  });
  test('an offer cannot be both included and excluded', async () => {
    const { error, response } = await createDiscount(ws, { includedOffers: [offerA1, offerB], excludedOffers: [offerB] });
    expect(response.status).toBe(400);
    expect(error!.error.message).toContain(offerB);
    const discount = await newDiscount(ws, { includedOffers: [offerA1] });
    const update = await updateDiscount(ws, discount.id, { excludedOffers: [offerA1] });
    expect(update.response.status).toBe(400);
  });

  test('update replaces the offer lists; null includes every offer again', async () => {
    const discount = await newDiscount(ws, { includedOffers: [offerA1] });
    const changed = await updateDiscount(ws, discount.id, { includedOffers: [offerA2], excludedOffers: [offerB] });
    expect(changed.data!.data.discount).toMatchObject({ includedOffers: [offerA2], excludedOffers: [offerB], includesAllOffers: false });
    const cleared = await updateDiscount(ws, discount.id, { includedOffers: null, excludedOffers: [] });
    expect(cleared.data!.data.discount).toMatchObject({ includedOffers: [], excludedOffers: [], includesAllOffers: true });
    const unknown = await updateDiscount(ws, discount.id, { includedOffers: [foreignOffer] });
    expect(unknown.response.status).toBe(400);
    expect((await getDiscount(ws, discount.id)).data!.data.discount.includedOffers).toEqual([]);
  });
});

describe('discounts: update', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Discounts update');
  });

  test('changes only the fields sent and the change reads back', async () => {
    const discount = await newDiscount(ws, { name: 'Old', amount: 10, discountCode: 'KEEPME', validFrom: 1000, purchaseLimit: 3 });
    const { data, response } = await updateDiscount(ws, discount.id, { id: discount.id, name: 'New', amount: 15.25, timezone: 'America/New_York', validUntil: 2000 });
    expect(response.status).toBe(200);
    const expected = { ...discount, name: 'New', amount: '15.25', timezone: 'America/New_York', validUntil: 2000 };
    expect(data!.data.discount).toEqual(expected);
    const read = await getDiscount(ws, discount.id);
    expect(read.data!.data.discount).toMatchObject(expected);
  });

  test('nullable fields can be cleared', async () => {
    const discount = await newDiscount(ws, { name: 'Named', validFrom: 1000, validUntil: 2000, purchaseLimit: 3 });
    const { data } = await updateDiscount(ws, discount.id, { name: null, validFrom: null, validUntil: null, purchaseLimit: null });
    expect(data!.data.discount).toMatchObject({ name: null, validFrom: null, validUntil: null, purchaseLimit: null });
  });

  test('an id in the body that differs from the path is 400 and changes nothing', async () => {
    const discount = await newDiscount(ws, { name: 'Stays' });
    const { error, response } = await updateDiscount(ws, discount.id, { id: randomUUID(), name: 'Changed' });
    expect(response.status).toBe(400);
    expect(error).toEqual(ERROR);
    expect((await getDiscount(ws, discount.id)).data!.data.discount.name).toBe('Stays');
  });

  test('rules run on the merged discount: amountType, validity window, sale without code', async () => {
    const fixed = await newDiscount(ws, { type: 'sale', amount: 500, amountType: 'fixed', validFrom: 1000 });
    const invalid: UpdateBody[] = [
      { amountType: 'percentage' },
      { amount: 12.5 },
      { validUntil: 999 },
      { discountCode: 'NOPE' },
      { amount: 101, amountType: 'percentage' },
      { type: null },
      { timezone: 'Nowhere/City' },
      { currency: 'ABC' },
      { validFrom: -1 },
    ];
    for (const body of invalid) {
      const { response } = await updateDiscount(ws, fixed.id, body);
      expect([JSON.stringify(body), response.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await getDiscount(ws, fixed.id)).data!.data.discount).toMatchObject({ amount: '500', amountType: 'fixed', validFrom: 1000, validUntil: null });
    const switched = await updateDiscount(ws, fixed.id, { amount: 20, amountType: 'percentage' });
    expect(switched.data!.data.discount).toMatchObject({ amount: '20', amountType: 'percentage' });
  });

  test('switching to sale drops the code; switching to code generates one unless one is sent', async () => {
    const discount = await newDiscount(ws, { discountCode: 'SWITCH' });
    const sale = await updateDiscount(ws, discount.id, { type: 'sale' });
    expect(sale.data!.data.discount).toMatchObject({ type: 'sale', discountCode: null });
    const code = await updateDiscount(ws, discount.id, { type: 'code' });
    expect(code.data!.data.discount.discountCode).toMatch(/^[A-Z0-9]{8}$/);
    const named = await updateDiscount(ws, discount.id, { type: 'sale' }).then(() => updateDiscount(ws, discount.id, { type: 'code', discountCode: 'BACK' }));
    expect(named.data!.data.discount).toMatchObject({ type: 'code', discountCode: 'BACK' });
    const recase = await updateDiscount(ws, discount.id, { discountCode: 'back' });
    expect(recase.data!.data.discount.discountCode).toBe('back');
  });

  test('wrong body types are 400', async () => {
    const discount = await newDiscount(ws);
    for (const body of [{ amount: '5' }, { id: 'not-a-uuid' }, { purchaseLimit: 1.5 }, { validUntil: 'tomorrow' }, { includedOffers: 'x' }]) {
      const res = await call('PATCH', `/v0/discounts/${discount.id}/update`, ws, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
  });
});

describe('discounts: auth, tenancy, archiving', () => {
  let ws: Workspace;
  let stranger: Workspace;
  beforeAll(async () => {
    [ws, stranger] = await Promise.all([newWorkspace('Discounts tenancy'), newWorkspace('Discounts stranger')]);
  });

  test('no keys is 401 on every endpoint', async () => {
    const discount = await newDiscount(ws);
    const endpoints: [string, string][] = [
      ['GET', '/v0/discounts/list'],
      ['GET', `/v0/discounts/${discount.id}`],
      ['POST', '/v0/discounts/create'],
      ['PATCH', `/v0/discounts/${discount.id}/update`],
      ['PATCH', `/v0/discounts/${discount.id}/archive`],
    ];
    for (const [method, path] of endpoints) {
      const res = await raw(method, path, { body: method === 'GET' ? undefined : '{}' });
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.body).toEqual(ERROR);
    }
  });

  test('writes with only the public key are 401 and change nothing; reads work with it', async () => {
    const discount = await newDiscount(ws, { name: 'Guarded' });
    const before = await storedCount(ws);
    const readOnly = { write: false };
    expect((await createDiscount(ws, {}, readOnly)).response.status).toBe(401);
    expect((await updateDiscount(ws, discount.id, { name: 'Hacked' }, readOnly)).response.status).toBe(401);
    expect((await archiveDiscount(ws, discount.id, readOnly)).response.status).toBe(401);
    expect(await storedCount(ws)).toBe(before);
    const read = await getDiscount(ws, discount.id, readOnly);
    expect(read.response.status).toBe(200);
    expect(read.data!.data.discount.name).toBe('Guarded');
  });

  test('another workspace\'s discount is 404 for every operation and unchanged', async () => {
    const discount = await newDiscount(ws, { name: 'Mine' });
    expect((await getDiscount(stranger, discount.id)).response.status).toBe(404);
    expect((await updateDiscount(stranger, discount.id, { name: 'Theirs' })).response.status).toBe(404);
    expect((await archiveDiscount(stranger, discount.id)).response.status).toBe(404);
    expect(await listIds(stranger, { ids: [discount.id] })).toEqual([]);
    expect((await getDiscount(ws, discount.id)).data!.data.discount.name).toBe('Mine');
  });

  test('an unknown id is 404 and a malformed id is 400', async () => {
    const missing = await getDiscount(ws, randomUUID());
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual(ERROR);
    expect((await call('GET', '/v0/discounts/not-a-uuid', ws)).status).toBe(400);
    expect((await call('PATCH', '/v0/discounts/not-a-uuid/archive', ws, {})).status).toBe(400);
  });

  test('test-mode and live discounts never mix', async () => {
    const testWs = await newWorkspace('Discounts test mode');
    const live = await newDiscount(testWs, { name: 'Live one', discountCode: 'SHARED' });
    const denied = await createDiscount(testWs, {}, { mode: 'test' });
    expect(denied.response.status).toBe(401);
    await setWorkspace(testWs.workspaceId, 'testMode=true');
    const test = await newDiscount(testWs, { name: 'Test one', discountCode: 'SHARED' }, { mode: 'test' });
    const testRead = { mode: 'test' as const, write: false };
    expect(await listIds(testWs, {}, testRead)).toEqual([test.id]);
    expect(await listIds(testWs)).toEqual([live.id]);
    expect((await getDiscount(testWs, live.id, testRead)).response.status).toBe(404);
    expect((await getDiscount(testWs, test.id)).response.status).toBe(404);
    expect((await updateDiscount(testWs, live.id, { name: 'x' }, { mode: 'test' })).response.status).toBe(404);
    const stored = await db.query('SELECT livemode FROM "Discount" WHERE id = $1', [test.id]);
    expect(stored.rows).toEqual([{ livemode: false }]);
  });

  test('archive returns success, hides the discount from reads and keeps it listable with archived', async () => {
    const archivedWs = await newWorkspace('Discounts archive');
    const kept = await newDiscount(archivedWs, { name: 'Kept' });
    const gone = await newDiscount(archivedWs, { name: 'Gone' });
    const { data, response } = await archiveDiscount(archivedWs, gone.id);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { success: true } });
    const stored = await db.query('SELECT "archivedAt" FROM "Discount" WHERE id = $1', [gone.id]);
    expect(stored.rows[0].archivedAt).toBeInstanceOf(Date);

    expect((await getDiscount(archivedWs, gone.id)).response.status).toBe(404);
    expect((await updateDiscount(archivedWs, gone.id, { name: 'Back' })).response.status).toBe(404);
    expect((await archiveDiscount(archivedWs, gone.id)).response.status).toBe(404);
    expect(await listIds(archivedWs)).toEqual([kept.id]);
    expect(await listIds(archivedWs, { archived: true })).toEqual([gone.id]);
    expect(await listIds(archivedWs, { withArchived: true })).toEqual([gone.id, kept.id]);
    expect(await listIds(archivedWs, { archived: true, withArchived: true })).toEqual([gone.id]);
  });

  test('the discount is a federation entity resolved within the caller\'s workspace', async () => {
    const discount = await newDiscount(ws, { name: 'Entity', amount: 7.5 });
    const query = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Discount { id name amount } } }';
    const resolve = async (caller: Workspace) => {
      const response = await fetch(`${baseUrl()}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders(caller, { write: false }) },
        body: JSON.stringify({ query, variables: { r: [{ __typename: 'Discount', id: discount.id }] } }),
      });
      return response.json();
    };
    expect((await resolve(ws)).data._entities).toEqual([{ id: discount.id, name: 'Entity', amount: '7.5' }]);
    const foreign = await resolve(stranger);
    expect(foreign.errors?.[0]?.message).toMatch(/not found/i);
  });
});

describe('discounts: list', () => {
  let ws: Workspace;
  const now = Math.floor(Date.now() / 1000);
  const d: Record<string, { id: string }> = {};
  beforeAll(async () => {
    ws = await newWorkspace('Discounts list');
    // Created one after the other so the default order (newest first) is known.
    const fixtures: [string, Partial<CreateBody>][] = [
      ['summer', { name: 'Summer Sale', type: 'sale', amount: 500, amountType: 'fixed', currency: 'EUR', validFrom: 1000, validUntil: now - 3600 }],
      ['winter', { name: 'Winter deal', discountCode: 'SNOW_2024', amount: 25, validFrom: 2000, validUntil: now + 86400 }],
      ['spring', { name: 'Spring cleaning', discountCode: 'BLOOM', amount: 5.5, status: 'inactive', validFrom: 3000 }],
      ['flash', { name: 'Flash 50%', type: 'sale', amount: 1200, amountType: 'fixed', currency: 'EUR', validUntil: now - 60 }],
      ['plain', { discountCode: 'PLAIN', amount: 50, currency: 'GBP' }],
    ];
    for (const [key, body] of fixtures) d[key] = await newDiscount(ws, body);
    const archived = await newDiscount(ws, { name: 'Summer archived', amount: 1 });
    await archiveDiscount(ws, archived.id);
    d.archived = archived;
  });

  const ids = (...keys: string[]) => keys.map((key) => d[key]!.id);

  test('default: unarchived, newest first, count null unless asked', async () => {
    const { data } = await listDiscounts(ws);
    expect(data!.data.count).toBeNull();
    expect(data!.data.discounts.map((x: { id: string }) => x.id)).toEqual(ids('plain', 'flash', 'spring', 'winter', 'summer'));
    expect(data!.data.discounts[0]).toMatchObject({ object: 'discount', amount: '50', currency: 'GBP' });
    const counted = await listDiscounts(ws, { returnCount: true, take: 2 });
    expect(counted.data!.data).toMatchObject({ count: 5 });
    expect(counted.data!.data.discounts).toHaveLength(2);
  });

  test.each([
    ['ids', () => ({ ids: ids('winter', 'flash', 'archived') }), ['flash', 'winter']],
    ['termOrId on the name, ignoring case', () => ({ termOrId: 'SUMMER' }), ['summer']],
    ['termOrId on the code, ignoring case', () => ({ termOrId: 'snow' }), ['winter']],
    ['termOrId on names and codes together', () => ({ termOrId: 'in' }), ['plain', 'spring', 'winter']],
    ['termOrId with _ matches a literal underscore', () => ({ termOrId: '_' }), ['winter']],
    ['termOrId with % matches a literal percent sign', () => ({ termOrId: '%' }), ['flash']],
    ['termOrId on the exact id', () => ({ termOrId: d.flash!.id }), ['flash']],
    ['status active', () => ({ status: 'active' }), ['plain', 'flash', 'winter', 'summer']],
    ['status inactive', () => ({ status: 'inactive' }), ['spring']],
    ['type sale', () => ({ type: 'sale' }), ['flash', 'summer']],
    ['type code', () => ({ type: 'code' }), ['plain', 'spring', 'winter']],
    ['currency', () => ({ currency: 'EUR' }), ['flash', 'summer']],
    ['validFrom: starting at or after', () => ({ validFrom: 2000 }), ['spring', 'winter']],
    ['validUntil: ending at or before', () => ({ validUntil: now - 60 }), ['flash', 'summer']],
    ['expired', () => ({ expired: true }), ['flash', 'summer']],
    ['not expired', () => ({ expired: false }), ['plain', 'spring', 'winter']],
    ['filters combine with AND', () => ({ type: 'code', expired: false, validFrom: 1, currency: 'USD' }), ['spring', 'winter']],
    ['filters that match nothing', () => ({ type: 'sale', status: 'inactive' }), []],
    ['archived with a filter', () => ({ archived: true, termOrId: 'summer' }), ['archived']],
    ['withArchived with a filter', () => ({ withArchived: true, termOrId: 'summer' }), ['archived', 'summer']],
  ] as [string, () => ListQuery, string[]][])('%s', async (_label, query, expected) => {
    expect(await listIds(ws, query())).toEqual(ids(...expected));
  });

  test('orderBy amount, name and createdAt in both directions', async () => {
    expect(await listIds(ws, { orderBy: 'amount', orderDirection: 'ASC' })).toEqual(ids('spring', 'winter', 'plain', 'summer', 'flash'));
    expect(await listIds(ws, { orderBy: 'amount' })).toEqual(ids('flash', 'summer', 'plain', 'winter', 'spring'));
    expect(await listIds(ws, { orderBy: 'name', orderDirection: 'ASC' })).toEqual(ids('flash', 'spring', 'summer', 'winter', 'plain'));
    expect(await listIds(ws, { orderBy: 'createdAt', orderDirection: 'ASC' })).toEqual(ids('summer', 'winter', 'spring', 'flash', 'plain'));
  });

  test.each([
    ['validFrom below 0', 'validFrom=-1'],
    ['validFrom above 2^53-1', 'validFrom=9007199254740992'],
    ['validUntil above 2^53-1', 'validUntil=9007199254740992'],
    ['validUntil not a number', 'validUntil=soon'],
    ['unknown currency', 'currency=ZZZ'],
    ['unknown status', 'status=paused'],
    ['unknown type', 'type=coupon'],
    ['unknown orderBy', 'orderBy=timesUsed'],
    ['malformed ids', 'ids=abc'],
    ['negative skip', 'skip=-1'],
  ])('%s is 400', async (_label, query) => {
    const res = await raw('GET', '/v0/discounts/list', { headers: keyHeaders(ws, { write: false }), query });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(ERROR);
  });

  test('validFrom and validUntil accept the range ends', async () => {
    expect(await listIds(ws, { validFrom: 0, validUntil: MAX_TIMESTAMP })).toEqual(ids('winter', 'summer'));
  });
});

describe('discounts: pagination', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Discounts paging');
    for (let batch = 0; batch < 7; batch += 1) {
      await Promise.all(Array.from({ length: 15 }, () => newDiscount(ws, { type: 'sale' })));
    }
  });

  test('take defaults to 20, is clamped to 1..100, and skip pages through', async () => {
    const all = await listIds(ws, { take: 100, returnCount: true });
    expect(all).toHaveLength(100);
    expect(await listIds(ws)).toEqual(all.slice(0, 20));
    expect(await listIds(ws, { take: 1000 })).toEqual(all);
    expect(await listIds(ws, { take: 0 })).toEqual(all.slice(0, 1));
    expect(await listIds(ws, { take: -5 })).toEqual(all.slice(0, 1));
    expect(await listIds(ws, { skip: 20, take: 10 })).toEqual(all.slice(20, 30));
    const rest = await listIds(ws, { skip: 100, take: 100 });
    expect(rest).toHaveLength(5);
    expect(new Set([...all, ...rest]).size).toBe(105);
    const { data } = await listDiscounts(ws, { returnCount: true, take: 1 });
    expect(data!.data.count).toBe(105);
  });
});

describe('discount events', () => {
  test('create, update and archive each record one event with the discount as the API returns it', async () => {
    const ws = await newWorkspace('Discount events');
    const created = await newDiscount(ws, { name: 'Spring' });
    const updated = await updateDiscount(ws, created.id, { name: 'Summer' });
    expect(updated.response.status).toBe(200);
    expect((await archiveDiscount(ws, created.id)).response.status).toBe(200);
    const rejected = await createDiscount(ws, { amount: 101 });
    expect(rejected.response.status).toBe(400);
    const { rows } = await db.query(`SELECT type, payload FROM "Event" WHERE "workspaceId" = $1`, [ws.workspaceId]);
    const byType = Object.fromEntries(rows.map((r) => [r.type, r.payload.discount]));
    expect(rows).toHaveLength(3);
    expect(byType.discount_created).toEqual(created);
    expect(byType.discount_updated).toEqual(updated.data!.data.discount);
    expect(byType.discount_archived).toMatchObject({ id: created.id, name: 'Summer' });
  });
});
