import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { GetSubscriptionDocument, ListSubscriptionsDocument } from './generated/graphql/graphql.js';
import { baseUrl, keyHeaders, newWorkspace, raw, type KeyChoice, type Workspace } from './support/api.js';
import { eventually, orderBody, payCheckout } from './support/checkout.js';
import { graphqlClient, restClient } from './support/client.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { operationAt, readDocument } from './support/openapi.js';
import { ERROR, failure, ok } from './support/responses.js';
import { newCatalogue, readHeaders, salesDb } from './support/sales.js';
import { advance, DAY } from './support/subscriptions.js';
import { buy, createdAtOf, details, list, monthlyElement, orderOf, walk, type ListQuery, type Row } from './support/subscriptions-list.js';

// Reading subscriptions through the real HTTP surface: GET /v0/subscriptions/list (cursor
// pagination) and GET /v0/subscriptions/{subscriptionIdOrNumber}, and their GraphQL queries.
// Every subscription here is bought through the hosted checkout (a subscription offer paid with
// the sandbox's succeeding card), and every REST answer is checked against the OpenAPI document.

const SLOW = 600_000;
const TEST: KeyChoice = { mode: 'test' };
const LIVE: KeyChoice = { mode: 'live' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A cursor with one character changed to another base64url character. */
const altered = (cursor: string, at: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const current = cursor[at]!;
  const replacement = alphabet[(alphabet.indexOf(current) + 1) % alphabet.length]!;
  return `${cursor.slice(0, at)}${replacement}${cursor.slice(at + 1)}`;
};

/** A subscription as read again: its clock is "now" at each read. */
const anyClock = <T extends { clock: number }>(subscription: T) => ({ ...subscription, clock: expect.any(Number) });

describe('GET /v0/subscriptions/list', () => {
  let ws: Workspace;
  let other: Workspace;
  /** Oldest first. */
  const bought: string[] = [];

  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Subscriptions list', ['testMode=true']), newWorkspace('Subscriptions list other', ['testMode=true'])]);
    const element = await monthlyElement(ws);
    // One at a time, a second apart: distinct creation seconds for the createdFrom/createdTo test.
    for (let i = 0; i < 5; i += 1) {
      if (i > 0) await sleep(1_050);
      bought.push(await buy(element));
    }
    // The other workspace has subscriptions of its own, which never show here.
    await buy(await monthlyElement(other));
  }, SLOW);

  test('newest first, a page at a time: count on the first page, cursor while hasMore, each subscription once', async () => {
    const newestFirst = [...bought].reverse();
    const first = await ok(list(ws, { take: 2 }));
    expect(first).toEqual({ subscriptions: [expect.objectContaining({ id: newestFirst[0] }), expect.objectContaining({ id: newestFirst[1] })], count: 5, cursor: expect.any(String), hasMore: true });
    const second = await ok(list(ws, { take: 2, cursor: first.cursor! }));
    expect(second).toEqual({ subscriptions: [expect.objectContaining({ id: newestFirst[2] }), expect.objectContaining({ id: newestFirst[3] })], count: null, cursor: expect.any(String), hasMore: true });
    const last = await ok(list(ws, { take: 2, cursor: second.cursor! }));
    expect(last).toEqual({ subscriptions: [expect.objectContaining({ id: newestFirst[4] })], count: null, cursor: null, hasMore: false });
    // The cursor is opaque: no number, no id, no time in it as text.
    expect(first.cursor).toMatch(/^[A-Za-z0-9_-]{52}$/);
    expect(first.cursor).not.toContain(newestFirst[1]);
    // A cursor can be used again (a retried GET): the same page.
    const again = await ok(list(ws, { take: 2, cursor: first.cursor! }));
    expect(again).toEqual({ ...second, subscriptions: second.subscriptions.map(anyClock) });

    // Default take 10: everything, no next page.
    const all = await ok(list(ws));
    expect(all.subscriptions.map((s) => s.id)).toEqual(newestFirst);
    expect(all).toMatchObject({ count: 5, cursor: null, hasMore: false });
    // Each row is the subscription as an order shows it, with its current status.
    const order = await orderOf(ws, bought[0]!);
    expect(all.subscriptions.at(-1)).toEqual(anyClock(order.subscription!));
    expect(order.subscription).toMatchObject({ object: 'subscription', id: bought[0], status: 'active', amount: 900, recurringInterval: 'month', currency: 'USD' });
  });

  test('take is clamped to 1..100 (never rejected for its size); a take that is not an integer is 400', async () => {
    for (const take of [0, -5, -(2 ** 40)]) {
      const page = await ok(list(ws, { take }));
      expect(page.subscriptions.map((s) => s.id)).toEqual([bought[4]]);
      expect(page.hasMore).toBe(true);
    }
    for (const take of [6, 100, 101, 2 ** 40]) expect((await ok(list(ws, { take }))).subscriptions).toHaveLength(5);
    for (const take of ['1.5', 'ten', '1e3', '']) {
      const answer = await raw('GET', '/v0/subscriptions/list', { headers: readHeaders(ws, TEST), query: `take=${take}` });
      expect({ take, status: answer.status, envelope: answer.body.status }).toEqual({ take, status: take === '' ? 200 : 400, envelope: take === '' ? 'success' : 'error' });
    }
    // Given twice: one value is expected (400, as on every list).
    expect((await raw('GET', '/v0/subscriptions/list', { headers: readHeaders(ws, TEST), query: 'take=1&take=2' })).status).toBe(400);
  });

  test('a tampered, truncated or made-up cursor is 400; an empty one is the first page', async () => {
    const { cursor } = await ok(list(ws, { take: 1 }));
    for (const at of [0, 1, 10, 20, 30, 40, 51]) expect(await failure(list(ws, { take: 1, cursor: altered(cursor!, at) }))).toEqual({ status: 400, body: ERROR });
    const forged = Buffer.from(cursor!, 'base64url');
    forged.writeUIntBE(Date.now(), 1, 6);
    for (const bad of [cursor!.slice(0, 51), `${cursor}A`, forged.toString('base64url'), 'A'.repeat(52), 'not a cursor', `${'+'.repeat(52)}`, bought[0]!, randomUUID(), 'x'.repeat(255)]) {
      const answer = await failure(list(ws, { take: 1, cursor: bad }));
      expect(answer).toEqual({ status: 400, body: ERROR });
      expect(answer.body.error.message).toMatch(/^cursor: /);
    }
    expect(await failure(list(ws, { cursor: 'x'.repeat(256) }))).toEqual({ status: 400, body: ERROR });
    const empty = await raw('GET', '/v0/subscriptions/list', { headers: readHeaders(ws, TEST), query: 'cursor=&take=1' });
    expect(empty.status).toBe(200);
    expect(empty.body.data.subscriptions.map((s: Row) => s.id)).toEqual([bought[4]]);
  });

  test("another workspace's cursor, and a test cursor with live keys, are 400", async () => {
    const ours = (await ok(list(ws, { take: 1 }))).cursor!;
    const theirs = await ok(list(other, { take: 0 }));
    expect(theirs.subscriptions).toHaveLength(1);
    expect(await failure(list(other, { take: 1, cursor: ours }))).toEqual({ status: 400, body: ERROR });
    expect(await failure(list(ws, { take: 1, cursor: ours }, LIVE))).toEqual({ status: 400, body: ERROR });
    // And still fine where it came from.
    expect((await ok(list(ws, { take: 1, cursor: ours }))).subscriptions).toHaveLength(1);
  });

  test('createdFrom/createdTo: Unix seconds (a second covers its whole second) or milliseconds, inclusive, combined with the cursor', async () => {
    const exact = await createdAtOf(ws, bought);
    const second = (number: string) => Math.floor(exact.get(number)!.getTime() / 1000);
    const ids = async (query: ListQuery) => (await walk(ws, { take: 1, ...query })).rows.map((row) => row.id);
    // Distinct seconds (the checkouts were a second apart).
    expect(new Set(bought.map(second)).size).toBe(5);
    const [a, b, c, d, e] = bought as [string, string, string, string, string];
    expect(await ids({ createdFrom: second(b), createdTo: second(d) })).toEqual([d, c, b]);
    expect(await ids({ createdFrom: second(d) })).toEqual([e, d]);
    expect(await ids({ createdTo: second(a) })).toEqual([a]);
    expect(await ids({ createdFrom: second(c), createdTo: second(c) })).toEqual([c]);
    expect(await ids({ createdFrom: exact.get(c)!.getTime(), createdTo: exact.get(c)!.getTime() })).toEqual([c]);
    expect(await ids({ createdFrom: exact.get(c)!.getTime() + 1, createdTo: exact.get(d)!.getTime() - 1 })).toEqual([]);
    expect(await ids({ createdFrom: 0, createdTo: Number.MAX_SAFE_INTEGER })).toEqual([e, d, c, b, a]);
    expect(await ids({ createdFrom: Number.MAX_SAFE_INTEGER })).toEqual([]);
    expect(await ids({ createdFrom: second(d), createdTo: second(b) })).toEqual([]);
    // The count is the filtered total.
    expect((await ok(list(ws, { take: 1, createdFrom: second(b), createdTo: second(d) }))).count).toBe(3);
    for (const value of ['-1', '9007199254740992', '1.5', 'soon']) {
      const answer = await raw('GET', '/v0/subscriptions/list', { headers: readHeaders(ws, TEST), query: `createdFrom=${value}` });
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: ERROR });
      expect((await raw('GET', '/v0/subscriptions/list', { headers: readHeaders(ws, TEST), query: `createdTo=${value}` })).status).toBe(400);
    }
  });

  test('the public key reads; no key or a wrong one is 401', async () => {
    expect((await ok(list(ws, { take: 1 }))).subscriptions).toHaveLength(1);
    expect((await raw('GET', '/v0/subscriptions/list', {})).status).toBe(401);
    expect((await raw('GET', '/v0/subscriptions/list', { headers: { 'x-svc-public-key': 'pk_test_nope' } })).status).toBe(401);
  });
});

describe('GET /v0/subscriptions/{subscriptionIdOrNumber}', () => {
  let ws: Workspace;
  let other: Workspace;
  let number: string;
  let email: string;
  let oneTimeNumber: string;

  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Subscription details', ['testMode=true']), newWorkspace('Subscription details other', ['testMode=true'])]);
    email = `details-${randomUUID()}@example.com`;
    number = await buy(await monthlyElement(ws, TEST, 1250), email);
    const { offer } = await newCatalogue(ws, 500, TEST);
    const { checkoutElement } = await ok(restClient(ws, TEST).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
    const paid = await payCheckout(checkoutElement.id, orderBody());
    oneTimeNumber = (paid.body.data as { order: { number: string } }).order.number;
  }, SLOW);

  test('by its number: the subscription with the items of the order that started it, the buyer and its payments', async () => {
    const { subscription } = await ok(details(ws, number));
    const order = await orderOf(ws, number);
    const { items, user, payments, planItems, ...fields } = subscription;
    // What renewals price from: the order's items until a plan change.
    expect(planItems).toEqual(order.items.map((item) => ({ offerId: item.offerId, productId: item.productId, unitPrice: item.unitPrice, quantity: item.quantity })));
    // The same fields as the order's subscription; its clock is "now" at each read.
    expect(fields).toEqual({ ...order.subscription, clock: expect.any(Number) });
    expect(Math.abs(fields.clock - order.subscription!.clock)).toBeLessThanOrEqual(60);
    expect(fields).toMatchObject({ object: 'subscription', id: number, status: 'active', amount: 1250, userId: order.userId });
    expect(items).toEqual(order.items);
    expect(items).toEqual([expect.objectContaining({ object: 'order_item', orderId: order.id, quantity: 1, unitPrice: 1250 })]);
    expect(user).toEqual(order.user);
    expect(user).toMatchObject({ object: 'user', email });
    expect(payments).toEqual(order.payments);
    expect(payments).toEqual([expect.objectContaining({ object: 'payment', number, status: 'PAID', amount: 1250, subscriptionId: number })]);
  });

  test("its payments are the subscription's, oldest first: a later payment numbered {number}-2 is listed after the first", async () => {
    // A real renewal: the subscription's test clock advanced a day past its first period (which its
    // workflow sets after the checkout's answer).
    const { subscription: before } = await eventually(() => ok(details(ws, number)), ({ subscription }) => subscription.currentPeriodEnd !== null);
    await ok(advance(ws, number, before.currentPeriodEnd! + DAY));
    const { subscription } = await ok(details(ws, number));
    expect(subscription.payments.map((p) => [p.number, p.status])).toEqual([[number, 'PAID'], [`${number}-2`, 'PAID']]);
    // A payment's number is not a subscription's.
    expect(await failure(details(ws, `${number}-2`))).toEqual({ status: 404, body: ERROR });
  });

  test('sent with a leading # it resolves to nothing (404), unlike the order routes; numbers match verbatim', async () => {
    const hashed = await raw('GET', `/v0/subscriptions/%23${number}`, { headers: readHeaders(ws, TEST) });
    expect({ status: hashed.status, body: hashed.body }).toEqual({ status: 404, body: ERROR });
    // The order routes tolerate it: the same number is found there.
    expect((await raw('GET', `/v0/orders/%23${number}`, { headers: readHeaders(ws, TEST) })).status).toBe(200);
    expect(await failure(details(ws, number.toLowerCase()))).toEqual({ status: 404, body: ERROR });
  });

  test('unknown numbers, a one-time order, another workspace and the other mode are 404', async () => {
    for (const unknown of ['0000000000000000', '123456', '1-2', `${'9'.repeat(32)}`, oneTimeNumber]) {
      expect(await failure(details(ws, unknown))).toEqual({ status: 404, body: ERROR });
    }
    expect(await failure(details(other, number))).toEqual({ status: 404, body: ERROR });
    expect(await failure(details(ws, number, LIVE))).toEqual({ status: 404, body: ERROR });
  });

  test("outside the contract's pattern (an order or subscription UUID, a processor's id, too long) it is 400", async () => {
    const order = await orderOf(ws, number);
    const row = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number } });
    for (const malformed of [order.id, row.id, 'sub_1PqRsTuVwXyZ123456', 'pi_3AbCdEfGhIj', 'ABC', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', '#', '##123456', `${number}-`, `${number}-x`, ' 123456', '1.5']) {
      const answer = await failure(details(ws, malformed));
      expect(answer).toEqual({ status: 400, body: ERROR });
    }
    expect(await failure(details(ws, '1'.repeat(65)))).toEqual({ status: 400, body: ERROR });
  });
});

describe('test and live mode', () => {
  test('each mode lists and finds only its own subscriptions; a cursor works only in its mode', async () => {
    const ws = await newWorkspace('Subscriptions modes', ['testMode=true']);
    const [testElement, liveElement] = await Promise.all([monthlyElement(ws, TEST), monthlyElement(ws, LIVE)]);
    const tests = [await buy(testElement), await buy(testElement)];
    const lives = [await buy(liveElement), await buy(liveElement)];
    expect((await walk(ws, { take: 1 }, TEST)).rows.map((r) => r.id)).toEqual([...tests].reverse());
    expect((await walk(ws, { take: 1 }, LIVE)).rows.map((r) => r.id)).toEqual([...lives].reverse());
    expect((await ok(details(ws, lives[0]!, LIVE))).subscription.id).toBe(lives[0]);
    expect(await failure(details(ws, lives[0]!, TEST))).toEqual({ status: 404, body: ERROR });
    expect(await failure(details(ws, tests[0]!, LIVE))).toEqual({ status: 404, body: ERROR });
    const liveCursor = (await ok(list(ws, { take: 1 }, LIVE))).cursor!;
    expect(await failure(list(ws, { cursor: liveCursor }, TEST))).toEqual({ status: 400, body: ERROR });
  }, SLOW);
});

describe('GraphQL', () => {
  test('the same list (cursor, count, hasMore) and details; # and a bad cursor are errors with their codes', async () => {
    const ws = await newWorkspace('Subscriptions GraphQL', ['testMode=true']);
    const element = await monthlyElement(ws);
    const numbers = [await buy(element), await buy(element), await buy(element)];
    const query = graphqlClient(ws, { mode: 'test', write: false });

    const first = await query(ListSubscriptionsDocument, { take: 2 });
    expect(first.errors).toBeUndefined();
    const rest = await ok(list(ws, { take: 2 }));
    expect(first.data!.subscriptions).toEqual({
      count: 3,
      hasMore: true,
      cursor: expect.any(String),
      subscriptions: rest.subscriptions.map((s) => ({ object: 'subscription', id: s.id, status: s.status, amount: s.amount, createdAt: s.createdAt })),
    });
    // Cursors are the same on both faces: one from GraphQL pages REST and the reverse.
    const second = await query(ListSubscriptionsDocument, { take: 2, cursor: rest.cursor });
    expect(second.data!.subscriptions).toMatchObject({ count: null, hasMore: false, cursor: null, subscriptions: [{ id: numbers[0] }] });
    expect((await ok(list(ws, { take: 2, cursor: first.data!.subscriptions.cursor! }))).subscriptions.map((s) => s.id)).toEqual([numbers[0]]);

    const got = await query(GetSubscriptionDocument, { subscriptionIdOrNumber: numbers[1]! });
    expect(got.errors).toBeUndefined();
    const { subscription } = await ok(details(ws, numbers[1]!));
    expect(got.data!.subscription.subscription).toEqual({
      object: 'subscription',
      id: numbers[1],
      status: 'active',
      userId: subscription.userId,
      user: { id: subscription.user!.id, email: subscription.user!.email },
      items: subscription.items.map((i) => ({ id: i.id, orderId: i.orderId, offerId: i.offerId, quantity: i.quantity, unitPrice: i.unitPrice })),
      payments: subscription.payments.map((p) => ({ id: p.id, number: p.number, status: p.status, amount: p.amount })),
    });

    const hashed = await query(GetSubscriptionDocument, { subscriptionIdOrNumber: `#${numbers[1]}` });
    expect(hashed.data ?? null).toBeNull();
    expect(hashed.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const malformed = await query(GetSubscriptionDocument, { subscriptionIdOrNumber: 'sub_123' });
    expect(malformed.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    const tampered = await query(ListSubscriptionsDocument, { cursor: altered(rest.cursor!, 5) });
    expect(tampered.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    const foreign = await graphqlClient(await newWorkspace('Subscriptions GraphQL other', ['testMode=true']), { mode: 'test', write: false })(ListSubscriptionsDocument, { cursor: rest.cursor });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  }, SLOW);
});

describe('fuzzing the query parameters and the path (fast-check)', () => {
  const RUNS = Number(process.env.SUBSCRIPTIONS_FUZZ_RUNS ?? 150);

  test(
    'never a 5xx, always the documented envelope; a 200 holds only the caller\'s subscriptions, at most take of them',
    async () => {
      const document = await readDocument();
      const kit = fuzzKit(document, []);
      const [ws, other] = await Promise.all([newWorkspace('Subscriptions fuzz', ['testMode=true']), newWorkspace('Subscriptions fuzz other', ['testMode=true'])]);
      const element = await monthlyElement(ws);
      const ours = [await buy(element), await buy(element), await buy(element)];
      const theirs = [await buy(await monthlyElement(other))];
      const cursors = [(await ok(list(ws, { take: 1 }))).cursor!, (await ok(list(ws, { take: 2 }))).cursor!, (await ok(list(other, { take: 0 }))).cursor ?? 'none'];
      const listOperation = operationAt(document, 'GET', '/v0/subscriptions/list');
      const detailsOperation = operationAt(document, 'GET', `/v0/subscriptions/${ours[0]}`);

      const callers = fc.constantFrom<[string, Record<string, string>]>(
        ['ws', keyHeaders(ws, { mode: 'test', write: false })],
        ['ws', keyHeaders(ws, { mode: 'test' })],
        ['ws-live', keyHeaders(ws, { mode: 'live', write: false })],
        ['other', keyHeaders(other, { mode: 'test', write: false })],
        ['none', {}],
        ['none', { 'x-svc-public-key': 'pk_test_nope' }],
      );
      const cursorValue = fc.oneof(
        fc.constantFrom(...cursors),
        fc.tuple(fc.constantFrom(...cursors), fc.integer({ min: 0, max: 51 })).map(([cursor, at]) => (cursor.length === 52 ? altered(cursor, at) : cursor)),
        kit.anyString,
      );
      const plausible = fc
        .record(
          {
            take: fc.oneof(fc.integer({ min: -3, max: 120 }), kit.anyInt, kit.anyString),
            cursor: cursorValue,
            createdFrom: fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), kit.anyInt, kit.anyString),
            createdTo: fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), kit.anyInt, kit.anyString),
          },
          { requiredKeys: [] },
        )
        .map((query) => Object.entries(query).map(([name, value]) => `${name}=${kit.encode(String(value))}`).join('&'));
      const listRequest = fc
        .record({ query: fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 2, arbitrary: kit.queryFor(listOperation) }), caller: callers })
        .map(({ query, caller }) => ({ caller: caller[0], request: { method: 'GET', path: '/v0/subscriptions/list', query, keys: caller[1] } satisfies Sent }));
      const pathValue = fc.oneof(
        fc.constantFrom(...ours, ...theirs).map(encodeURIComponent),
        fc.constantFrom(...ours).map((number) => `%23${number}`),
        fc.constantFrom(...ours).map((number) => number.toLowerCase()),
        kit.pathValue,
      );
      const detailsRequest = fc
        .record({ value: pathValue, caller: callers })
        .map(({ value, caller }) => ({ caller: caller[0], request: { method: 'GET', path: `/v0/subscriptions/${value}`, query: '', keys: caller[1] } satisfies Sent }));

      const statuses: Record<string, number> = {};
      await fc.assert(
        fc.asyncProperty(fc.oneof(listRequest, detailsRequest), async ({ caller, request }) => {
          const response = await send(baseUrl(), request);
          const isList = request.path === '/v0/subscriptions/list';
          const body = checkAnswer(document, request, response, isList ? listOperation : detailsOperation);
          statuses[`${isList ? 'list' : 'details'} ${response.status}`] = (statuses[`${isList ? 'list' : 'details'} ${response.status}`] ?? 0) + 1;
          if (![200, 400, 401, 404].includes(response.status)) throw new Error(`unexpected ${response.status}: ${response.text.slice(0, 300)}`);
          if (response.status !== 200) return;
          const visible = caller === 'ws' ? ours : caller === 'other' ? theirs : [];
          if (isList) {
            const page = body.data as { subscriptions: Row[]; hasMore: boolean; cursor: string | null };
            if (!page.subscriptions.every((s) => visible.includes(s.id))) throw new Error(`foreign rows: ${response.text.slice(0, 300)}`);
            // A 200 had one integer take at most (anything else is 400); absent or empty, the default 10.
            const given = new URLSearchParams(request.query).getAll('take').filter((value) => value !== '');
            const take = given.length ? Math.min(100, Math.max(1, Number(given[0]))) : 10;
            if (page.subscriptions.length > take) throw new Error(`more than take: ${request.query}`);
            if (page.hasMore !== (page.cursor !== null)) throw new Error(`hasMore and cursor disagree: ${response.text.slice(0, 300)}`);
          } else {
            const { subscription } = body.data as { subscription: Row };
            if (!visible.includes(subscription.id) || decodeURIComponent(request.path.split('/').at(-1)!) !== subscription.id) throw new Error(`wrong subscription: ${request.path}`);
          }
        }),
        {
          numRuns: RUNS,
          examples: [
            [{ caller: 'ws', request: { method: 'GET', path: '/v0/subscriptions/list', query: 'take=2', keys: keyHeaders(ws, TEST) } }],
            [{ caller: 'ws', request: { method: 'GET', path: `/v0/subscriptions/${ours[0]}`, query: '', keys: keyHeaders(ws, TEST) } }],
            [{ caller: 'ws', request: { method: 'GET', path: `/v0/subscriptions/%23${ours[0]}`, query: '', keys: keyHeaders(ws, TEST) } }],
            [{ caller: 'ws', request: { method: 'GET', path: '/v0/subscriptions/list', query: `cursor=${altered(cursors[0]!, 3)}`, keys: keyHeaders(ws, TEST) } }],
          ],
        },
      );
      // The runs reached the outcomes that matter.
      for (const outcome of ['list 200', 'list 400', 'details 200', 'details 400', 'details 404']) expect(statuses[outcome] ?? 0).toBeGreaterThan(0);
    },
    SLOW,
  );
});
