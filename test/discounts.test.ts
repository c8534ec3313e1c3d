import { randomUUID } from 'node:crypto';
import { call, keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { ERROR } from './support/responses.js';
import { CreateBody, MAX_TIMESTAMP, db, createDiscount, getDiscount, updateDiscount, archiveDiscount, newDiscount, storedCount, newProduct, newOffer } from './support/discounts-suite.js';

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
