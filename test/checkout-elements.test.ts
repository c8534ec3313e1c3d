import { randomUUID } from 'node:crypto';
import { call, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok, useSuiteDatabase } from './support/responses.js';

const READ: KeyChoice = { write: false };

/** Direct database access: elements have no archive endpoint, and stored join rows are read back. */
const db = useSuiteDatabase();


const createElement = (ws: Workspace, body: { offersIds: string[]; [field: string]: unknown }, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/elements/checkout/create', { body });
const listElements = (ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/elements/checkout/list', { params: { query } });

async function newElement(ws: Workspace, body: { offersIds: string[]; [field: string]: unknown }, key: KeyChoice = {}) {
  return (await ok(createElement(ws, body, key))).checkoutElement;
}

async function listIds(ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) {
  return (await ok(listElements(ws, query, key))).checkoutElements.map((e: { id: string }) => e.id);
}

async function newProduct(ws: Workspace, key: KeyChoice = {}) {
  const data = await ok(restClient(ws, key).POST('/v0/products/create', { body: { name: 'Element product', projectId: ws.projectId, type: 'DigitalDownload' } }));
  return data.product as { id: string };
}

async function newOffer(ws: Workspace, body: { productId: string; price: number; currency: string; [field: string]: unknown }, key: KeyChoice = {}) {
  return (await ok(restClient(ws, key).POST('/v0/offers/create', { body }))).offer as { id: string; internalId: string | null };
}

const storedElements = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "CheckoutElement" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

describe('checkout elements: create', () => {
  let ws: Workspace;
  let oneA: { id: string; internalId: string | null };
  let oneB: { id: string; internalId: string | null };
  let free: { id: string; internalId: string | null };
  let monthly: { id: string; internalId: string | null };
  let yearly: { id: string; internalId: string | null };
  let euro: { id: string; internalId: string | null };
  beforeAll(async () => {
    ws = await newWorkspace('Checkout elements');
    const { id: productId } = await newProduct(ws);
    oneA = await newOffer(ws, { productId, price: 100, currency: 'USD', internalId: 'one-a' });
    oneB = await newOffer(ws, { productId, price: 200, currency: 'USD' });
    free = await newOffer(ws, { productId, price: 0, currency: 'USD' });
    monthly = await newOffer(ws, { productId, price: 900, currency: 'USD', recurringInterval: 'month', internalId: 'monthly' });
    yearly = await newOffer(ws, { productId, price: 0, currency: 'USD', recurringInterval: 'year' });
    euro = await newOffer(ws, { productId, price: 100, currency: 'EUR' });
  });

  test('one one-time offer: the element in the envelope, read back in the list', async () => {
    const { data, response } = await createElement(ws, { offersIds: [oneA.id], name: 'Buy now' });
    expect(response.status).toBe(200);
    expect(data?.status).toBe('success');
    const element = data!.data.checkoutElement;
    expect(element).toEqual({
      object: 'checkoutElement',
      id: expect.any(String),
      name: 'Buy now',
      status: 'ACTIVE',
      subscriptionOffer: false,
      offers: [{ object: 'offer', id: oneA.id, internalId: 'one-a' }],
      createdAt: expect.any(Number),
    });
    const listed = (await ok(listElements(ws))).checkoutElements.find((e: { id: string }) => e.id === element.id);
    expect(listed).toEqual(element);
  });

  test('several one-time offers form a cart, in the order given; free offers count as one-time', async () => {
    const element = await newElement(ws, { offersIds: [oneB.id, free.id, oneA.id], status: 'INACTIVE' });
    expect(element).toMatchObject({ name: null, status: 'INACTIVE', subscriptionOffer: false });
    expect(element.offers.map((o: { id: string }) => o.id)).toEqual([oneB.id, free.id, oneA.id]);
    const rows = await db.query('SELECT "offerId", position FROM "CheckoutElementOffer" WHERE "checkoutElementId" = $1 ORDER BY position', [element.id]);
    expect(rows.rows).toEqual([
      { offerId: oneB.id, position: 0 },
      { offerId: free.id, position: 1 },
      { offerId: oneA.id, position: 2 },
    ]);
  });

  test('one subscription offer on its own, free or not', async () => {
    expect(await newElement(ws, { offersIds: [monthly.id] })).toMatchObject({ subscriptionOffer: true, offers: [{ object: 'offer', id: monthly.id, internalId: 'monthly' }] });
    expect(await newElement(ws, { offersIds: [yearly.id] })).toMatchObject({ subscriptionOffer: true });
  });

  test('rejected configurations and inputs are 400 and write nothing', async () => {
    const other = await newWorkspace('Elements elsewhere');
    const foreign = await newOffer(other, { productId: (await newProduct(other)).id, price: 100, currency: 'USD' });
    const { id: productId } = await newProduct(ws);
    const archived = await newOffer(ws, { productId, price: 100, currency: 'USD' });
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId: archived.id } }, body: {} }));
    const missing = randomUUID();
    const cases: { body: Record<string, unknown>; mentions?: string }[] = [
      { body: { offersIds: [monthly.id, oneA.id] } },
      { body: { offersIds: [oneA.id, monthly.id] } },
      { body: { offersIds: [monthly.id, yearly.id] } },
      { body: { offersIds: [oneA.id, euro.id] } },
      { body: { offersIds: [oneA.id, oneA.id] }, mentions: oneA.id },
      { body: { offersIds: [] } },
      { body: { offersIds: Array.from({ length: 26 }, () => randomUUID()) } },
      { body: { offersIds: [oneA.id, missing] }, mentions: missing },
      { body: { offersIds: [archived.id] }, mentions: archived.id },
      { body: { offersIds: [foreign.id] }, mentions: foreign.id },
      { body: { offersIds: ['not-a-uuid'] } },
      { body: { offersIds: [oneA.id], name: '' } },
      { body: { offersIds: [oneA.id], status: 'ARCHIVED' } },
      { body: {} },
    ];
    const before = await storedElements(ws);
    for (const { body, mentions } of cases) {
      const res = await call('POST', '/v0/elements/checkout/create', ws, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual(ERROR);
      expect(res.body.error.message).toContain(mentions ?? '');
    }
    expect(await storedElements(ws)).toBe(before);
  });

  test('customFields is refused with any value, even null, and nothing is written', async () => {
    const before = await ok(listElements(ws));
    for (const customFields of [{ field: 'value' }, [], 'text', 0, false, null]) {
      const res = await failure(createElement(ws, { offersIds: [oneA.id], customFields }));
      expect({ customFields, status: res.status }).toEqual({ customFields, status: 400 });
      expect(res.body.error.message).toMatch(/customFields/);
    }
    expect((await ok(listElements(ws))).count).toBe(before.count);
  });

  test('up to 25 offers in one cart', async () => {
    const { id: productId } = await newProduct(ws);
    const offers = await Promise.all(Array.from({ length: 25 }, (_, i) => newOffer(ws, { productId, price: 10 + i, currency: 'USD' })));
    const element = await newElement(ws, { offersIds: offers.map((o) => o.id) });
    expect(element.offers.map((o: { id: string }) => o.id)).toEqual(offers.map((o) => o.id));
  });

  test("an offer's currency and kind are fixed while a checkout element uses it; its price is not", async () => {
    const { id: productId } = await newProduct(ws);
    const used = await newOffer(ws, { productId, price: 100, currency: 'USD' });
    await newElement(ws, { offersIds: [used.id, oneB.id] });
    const update = (body: Record<string, unknown>) => restClient(ws).PATCH('/v0/offers/{offerId}/update', { params: { path: { offerId: used.id } }, body });
    expect((await failure(update({ currency: 'EUR' }))).status).toBe(400);
    expect((await failure(update({ recurringInterval: 'month' }))).status).toBe(400);
    expect((await ok(update({ price: 150, currency: 'USD' }))).offer).toMatchObject({ price: 150, currency: 'USD', recurringInterval: null });
  });
});

describe('checkout elements: authentication and tenancy', () => {
  let ws: Workspace;
  let offerId: string;
  beforeAll(async () => {
    ws = await newWorkspace('Elements auth');
    offerId = (await newOffer(ws, { productId: (await newProduct(ws)).id, price: 100, currency: 'USD' })).id;
  });

  test('no keys is 401; a create with only the public key is 401 and writes nothing', async () => {
    expect((await raw('GET', '/v0/elements/checkout/list')).status).toBe(401);
    const anonymous = await raw('POST', '/v0/elements/checkout/create', { body: JSON.stringify({ offersIds: [offerId] }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(ERROR);
    expect(await failure(createElement(ws, { offersIds: [offerId] }, READ))).toEqual({ status: 401, body: ERROR });
    expect(await storedElements(ws)).toBe(0);
  });

  test('test-mode elements and offers are separate from live ones', async () => {
    await setWorkspace(ws.workspaceId, 'testMode=true');
    const TEST = { mode: 'test' } as const;
    const testOffer = await newOffer(ws, { productId: (await newProduct(ws, TEST)).id, price: 100, currency: 'USD' }, TEST);
    expect((await failure(createElement(ws, { offersIds: [testOffer.id] }))).status).toBe(400);
    expect((await failure(createElement(ws, { offersIds: [offerId] }, TEST))).status).toBe(400);
    const testElement = await newElement(ws, { offersIds: [testOffer.id] }, TEST);
    const liveElement = await newElement(ws, { offersIds: [offerId] });
    expect(await listIds(ws)).toEqual([liveElement.id]);
    expect(await listIds(ws, {}, { mode: 'test', write: false })).toEqual([testElement.id]);
  });
});

describe('checkout elements: list', () => {
  let ws: Workspace;
  let ids: string[];
  beforeAll(async () => {
    ws = await newWorkspace('Elements list');
    const offerId = (await newOffer(ws, { productId: (await newProduct(ws)).id, price: 100, currency: 'USD' })).id;
    ids = [];
    for (let i = 0; i < 12; i += 1) ids.push((await newElement(ws, { offersIds: [offerId], name: `Element ${i}` })).id);
  });

  const newestFirst = () => [...ids].reverse();

  test('take defaults to 10, newest first, and count is always there', async () => {
    const page = await ok(listElements(ws));
    expect(page.checkoutElements.map((e: { id: string }) => e.id)).toEqual(newestFirst().slice(0, 10));
    expect(page.count).toBe(12);
    expect((await ok(listElements(ws, { returnCount: false }))).count).toBe(12);
  });

  test('skip and take page through the fixed order; orderDirection does not change it', async () => {
    expect(await listIds(ws, { skip: 10 })).toEqual(newestFirst().slice(10));
    expect(await listIds(ws, { skip: 3, take: 2 })).toEqual(newestFirst().slice(3, 5));
    expect(await listIds(ws, { take: 0 })).toEqual(newestFirst().slice(0, 1));
    expect(await listIds(ws, { take: 500 })).toEqual(newestFirst());
    expect(await listIds(ws, { orderDirection: 'ASC', take: 3 })).toEqual(newestFirst().slice(0, 3));
    expect(await failure(listElements(ws, { skip: -1 }))).toEqual({ status: 400, body: ERROR });
    expect((await failure(listElements(ws, { take: 'many' }))).status).toBe(400);
  });

  test('archived elements are hidden unless asked for', async () => {
    // Elements of its own: the other tests count the workspace's twelve.
    const own = await newWorkspace('Elements archived');
    const offerId = (await newOffer(own, { productId: (await newProduct(own)).id, price: 100, currency: 'USD' })).id;
    const [hidden, kept, newest] = [(await newElement(own, { offersIds: [offerId] })).id, (await newElement(own, { offersIds: [offerId] })).id, (await newElement(own, { offersIds: [offerId] })).id];
    // No route archives an element (the contract has none): the mark is set beneath the API.
    await db.query('UPDATE "CheckoutElement" SET "archivedAt" = now() WHERE id = $1', [hidden]);
    const live = await ok(listElements(own, { take: 100 }));
    expect(live.checkoutElements.map((e: { id: string }) => e.id)).toEqual([newest, kept]);
    expect(live.count).toBe(2);
    expect(await ok(listElements(own, { archived: true }))).toMatchObject({ count: 1, checkoutElements: [{ id: hidden }] });
    expect((await ok(listElements(own, { withArchived: true, take: 100 }))).count).toBe(3);
    expect(await listIds(own, { archived: true, withArchived: true })).toEqual([hidden]);
  });

  test('take is clamped to 100', async () => {
    const bulk = await newWorkspace('Elements bulk');
    const offerId = (await newOffer(bulk, { productId: (await newProduct(bulk)).id, price: 100, currency: 'USD' })).id;
    for (let batch = 0; batch < 11; batch += 1) {
      await Promise.all(Array.from({ length: 10 }, () => newElement(bulk, { offersIds: [offerId] })));
    }
    const page = await ok(listElements(bulk, { take: 500 }));
    expect(page.checkoutElements).toHaveLength(100);
    expect(page.count).toBe(110);
  });
});
