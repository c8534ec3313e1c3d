import { randomUUID } from 'node:crypto';
import { baseUrl, call, keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { ERROR } from './support/responses.js';
import { CreateBody, UpdateBody, ListQuery, MAX_TIMESTAMP, db, createDiscount, getDiscount, updateDiscount, archiveDiscount, listDiscounts, newDiscount, listIds, storedCount } from './support/discounts-suite.js';

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
