import { randomUUID } from 'node:crypto';
import { baseUrl, keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { CARD_DECLINED, CARD_OK, card, orderBody, ordersOfCheckout, payCheckout } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { newCatalogue } from './support/sales.js';
import { db, newUser } from './support/users-suite.js';

describe('users: inventory', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Users inventory');
  });
  const inventory = (userId: string, query: Record<string, unknown> = {}, w = ws) =>
    restClient(w, { write: false }).GET('/v0/users/{userId}/inventory', { params: { path: { userId }, query } });

  /** An element selling these offers, and an order of it paid (or not) by the buyer with this email through the hosted checkout. */
  async function element(offersIds: string[]) {
    return (await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds } }))).checkoutElement.id;
  }
  async function bought(elementId: string, email: string, { quantity = 1, number = CARD_OK } = {}) {
    const answer = await payCheckout(elementId, orderBody({ email, quantity, card: card(number) }));
    expect([200, 402]).toContain(answer.status);
    const orderId: string = answer.status === 200 ? answer.body.data.order.id : (await ordersOfCheckout(ws, elementId)).orders.find((o) => o.user?.email === email)!.id;
    return (await ok(restClient(ws, { write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order;
  }

  test('a new user owns nothing: empty list, count 0, pages 0', async () => {
    const user = await newUser(ws);
    const { data, response } = await inventory(user.id);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { inventory: [], count: 0, pages: 0 } });
  });

  test("lists the items of the user's PAID orders (not PENDING or CANCELLED ones), newest first, paged", async () => {
    const buyer = await newUser(ws);
    const other = await newUser(ws);
    const { product, offer } = await newCatalogue(ws, 500);
    const { variant } = await ok(restClient(ws).POST('/v0/products/{productId}/variants/add', { params: { path: { productId: product.id } }, body: { name: 'Deluxe' } }));
    const { offer: deluxe } = await ok(restClient(ws).POST('/v0/offers/create', { body: { productId: product.id, variantId: variant.id, price: 900, currency: 'USD' } }));
    const [single, both] = await Promise.all([element([offer.id]), element([offer.id, deluxe.id])]);

    // Orders as buyers make them, oldest first: two PAID, and some that own nothing.
    const older = await bought(single, buyer.email!);
    const newer = await bought(both, buyer.email!, { quantity: 2 });
    const pending = await bought(single, buyer.email!, { number: '4000002760003184' });
    const failed = await bought(single, buyer.email!, { number: CARD_DECLINED });
    const cancelled = await bought(single, buyer.email!);
    await ok(restClient(ws).PATCH('/v0/orders/{orderIdOrNumber}/cancel', { params: { path: { orderIdOrNumber: cancelled.id } } }));
    await bought(single, other.email!);
    expect([older.status, newer.status, pending.status, failed.status]).toEqual(['PAID', 'PAID', 'PENDING', 'FAILED']);

    const { data, response } = await inventory(buyer.id);
    expect(response.status).toBe(200);
    const { inventory: items, count, pages } = data!.data;
    expect(count).toBe(3);
    expect(pages).toBe(1);
    // Newest first; the lines of one order (made together) by id, descending.
    const newerItems = [...newer.items].sort((a, b) => (a.id < b.id ? 1 : -1));
    expect(items.map((i) => i.id)).toEqual([...newerItems.map((i) => i.id), older.items[0]!.id]);
    const deluxeLine = newer.items.find((i) => i.offerId === deluxe.id)!;
    expect(items.find((i) => i.id === deluxeLine.id)).toEqual({
      object: 'inventoryItem',
      id: deluxeLine.id,
      orderId: newer.id,
      orderNumber: newer.number,
      productId: product.id,
      offerId: deluxe.id,
      variantId: variant.id,
      quantity: 2,
      orderStatus: 'PAID',
      paidAt: expect.any(Number),
      productName: product.name,
      productType: product.type,
      offerName: deluxe.name ?? null,
      refundedQuantity: 0,
      licenseKeys: [],
      download: null,
      subscriptionId: null,
      subscriptionStatus: null,
      createdAt: deluxeLine.createdAt,
    });
    expect(items.find((i) => i.offerId === offer.id && i.orderId === newer.id)).toMatchObject({ variantId: null, quantity: 2, orderNumber: newer.number });
    expect(items[2]).toMatchObject({ orderId: older.id, orderNumber: older.number, quantity: 1 });

    const second = await inventory(buyer.id, { page: 2, limit: 2 });
    expect(second.data!.data).toMatchObject({ count: 3, pages: 2 });
    expect(second.data!.data.inventory.map((i) => i.id)).toEqual([older.items[0]!.id]);
    expect((await inventory(buyer.id, { page: 0 })).response.status).toBe(400);
  }, 120_000);

  test('an unknown, archived or malformed user id: 404, 404, 400', async () => {
    expect((await inventory(randomUUID())).response.status).toBe(404);
    const user = await newUser(ws);
    await restClient(ws).PATCH('/v0/users/{userId}/archive', { params: { path: { userId: user.id } } });
    const archived = await inventory(user.id);
    expect(archived.response.status).toBe(404);
    expect(archived.error).toEqual({ status: 'error', error: { message: 'User not found' } });
    expect((await inventory('nope')).response.status).toBe(400);
  });

  test('without a key 401', async () => {
    const user = await newUser(ws);
    expect((await raw('GET', `/v0/users/${user.id}/inventory`)).status).toBe(401);
  });
});

describe('users: tenancy', () => {
  let ws: Workspace;
  let stranger: Workspace;
  beforeAll(async () => {
    [ws, stranger] = await Promise.all([newWorkspace('Users tenant'), newWorkspace('Users stranger')]);
  });

  test("another workspace's user is invisible: 404 on archive and inventory, absent from the list, its email free", async () => {
    const user = await newUser(ws, { email: 'shared@example.com' });
    const archive = await restClient(stranger).PATCH('/v0/users/{userId}/archive', { params: { path: { userId: user.id } } });
    expect(archive.response.status).toBe(404);
    const inventory = await restClient(stranger).GET('/v0/users/{userId}/inventory', { params: { path: { userId: user.id } } });
    expect(inventory.response.status).toBe(404);
    const list = await restClient(stranger).GET('/v0/users/list', { params: { query: { withArchived: true } } });
    expect(list.data!.data.users.map((u: { id: string }) => u.id)).not.toContain(user.id);
    const { rows } = await db.query('SELECT "archivedAt" FROM "User" WHERE id = $1', [user.id]);
    expect(rows[0].archivedAt).toBeNull();
    // Uniqueness is per workspace: the other workspace may use the same address.
    await newUser(stranger, { email: 'SHARED@example.com' });
  });

  test('test-mode users are separate from live users', async () => {
    await setWorkspace(ws.workspaceId, 'testMode=true');
    const testKey = { mode: 'test' as const };
    const live = await newUser(ws, { email: 'both@example.com' });
    const test = await newUser(ws, { email: 'Both@Example.com' }, testKey);
    expect(test.id).not.toBe(live.id);

    const liveList = await restClient(ws).GET('/v0/users/list', { params: { query: { email: 'both@example.com' } } });
    expect(liveList.data!.data.users.map((u: { id: string }) => u.id)).toEqual([live.id]);
    const testList = await restClient(ws, testKey).GET('/v0/users/list', { params: { query: {} } });
    expect(testList.data!.data.users.map((u: { id: string }) => u.id)).toEqual([test.id]);
    expect(testList.data!.data.count).toBe(1);

    const crossInventory = await restClient(ws).GET('/v0/users/{userId}/inventory', { params: { path: { userId: test.id } } });
    expect(crossInventory.response.status).toBe(404);
    const crossArchive = await restClient(ws, testKey).PATCH('/v0/users/{userId}/archive', { params: { path: { userId: live.id } } });
    expect(crossArchive.response.status).toBe(404);
    const { rows } = await db.query('SELECT livemode FROM "User" WHERE id = $1', [test.id]);
    expect(rows[0].livemode).toBe(false);
  });
});

describe('users: GraphQL', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Users graphql');
  });
  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${baseUrl()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders(ws, { write: false }) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: any; errors?: unknown[] };
  };

  test('the User type has no password field', async () => {
    const { data } = await graphql('{ __type(name: "User") { fields { name } } }');
    const names = data.__type.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['object', 'id', 'username', 'email', 'details', 'internalId', 'billingDetails', 'createdAt']));
    expect(names.filter((n: string) => /password/i.test(n))).toEqual([]);
  });

  test('User is a federation entity resolved by id within the workspace', async () => {
    const user = await newUser(ws, { username: 'entity' });
    const query = 'query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on User { id username email } } }';
    const { data, errors } = await graphql(query, { reps: [{ __typename: 'User', id: user.id }] });
    expect(errors).toBeUndefined();
    expect(data._entities).toEqual([{ id: user.id, username: 'entity', email: user.email }]);
  });
});
