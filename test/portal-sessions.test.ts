// POST /v0/portal/sessions (beyond the contract, as Stripe's billing-portal sessions) through the
// real HTTP surface, and its URLs followed on the suite's server, which serves the portal: a
// 5-minute, single-use sign-in URL (stored as its hash), bound to one buyer and the workspace,
// landing on the page GET /v0/portal/url names for the same type and parameters; its rules in
// that route's order, and its errors in the envelope.
import { createHash, randomUUID } from 'node:crypto';

import { baseUrl, newWorkspace, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { PortalClient } from './support/portal.js';
import { ERROR, failure, ok } from './support/responses.js';
import { newBuyer, salesDb, seedOrder } from './support/sales.js';

type Body = { userId?: string; type?: string; orderNumber?: string; offerId?: string; cartOfferId?: string };
const mint = (w: Workspace, body: Body, key: KeyChoice = {}) => restClient(w, key).POST('/v0/portal/sessions', { body });
const sessionUrl = async (w: Workspace, body: Body) => (await ok(mint(w, body))).url;
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

let ws: Workspace;
let buyer: { id: string };
let order: { number: string; id: string };
let subscriptionOrder: { number: string; id: string };

beforeAll(async () => {
  ws = await newWorkspace('Portal sessions', ['testMode=true']);
  buyer = await newBuyer(ws);
  order = (await seedOrder(ws, { userId: buyer.id })).order;
  subscriptionOrder = (await seedOrder(ws, { userId: buyer.id, subscription: { recurringInterval: 'month' } })).order;
});

const at = (path = '', w = ws) => `/portal/${w.workspaceId}${path}`;
const signInPage = (next: string | null, notice: string, w = ws) => `${at('/sign-in', w)}?${new URLSearchParams({ ...(next ? { next } : {}), notice })}`;

describe('POST /v0/portal/sessions', () => {
  test("a 5-minute sign-in URL, stored only as its hash, that signs the buyer in once and lands on the buyer's orders (the default type)", async () => {
    const before = Math.floor(Date.now() / 1000);
    const answer = await ok(mint(ws, { userId: buyer.id }));
    const after = Math.ceil(Date.now() / 1000);
    expect(answer.url).toMatch(new RegExp(`^${baseUrl()}/portal/${ws.workspaceId}/session/psu_[A-Za-z0-9_-]{43}$`));
    expect(answer.expiresAt).toBeGreaterThanOrEqual(before + 300);
    expect(answer.expiresAt).toBeLessThanOrEqual(after + 300);
    const token = tokenOf(answer.url);
    const row = await salesDb().portalSignInLink.findUniqueOrThrow({ where: { tokenHash: hash(token) } });
    expect(row).toMatchObject({ workspaceId: ws.workspaceId, livemode: true, userId: buyer.id, next: at('/orders'), usedAt: null });
    expect(row.expiresAt.getTime()).toBe(answer.expiresAt! * 1000);
    expect(await salesDb().portalSignInLink.count({ where: { tokenHash: token } })).toBe(0);

    const client = new PortalClient(baseUrl());
    const opened = await client.get(answer.url);
    expect([opened.status, opened.location]).toEqual([303, at('/orders')]);
    expect(client.cookies.get('portal_session')).toMatch(/^pps_/);
    const orders = await client.get(at('/orders'));
    expect(orders.status).toBe(200);
    expect(orders.html).toContain(order.number);

    // Once: a second opening, in another browser, signs nobody in and keeps the destination.
    const again = new PortalClient(baseUrl());
    const replay = await again.get(answer.url);
    expect([replay.status, replay.location]).toEqual([303, signInPage(at('/orders'), 'link-used')]);
    expect(again.cookies.has('portal_session')).toBe(false);
    expect((await again.follow(replay.location!)).html).toContain('That link was used already');
    expect((await again.get(at('/orders'))).status).toBe(303);
  });

  test('each type lands on exactly the page GET /v0/portal/url names for it (its query kept); orderNumber alone names the buyer', async () => {
    const offerId = randomUUID();
    const cases: Body[] = [
      { type: 'orders-list' },
      { type: 'orders-view', orderNumber: order.number },
      { type: 'orders-downloads', orderNumber: order.id },
      { type: 'subscriptions-list', offerId },
      { type: 'subscriptions-manage', orderNumber: subscriptionOrder.number, offerId, cartOfferId: 'a & b' },
      { type: 'subscriptions-update-payment-method', orderNumber: subscriptionOrder.number },
      { type: 'subscriptions-cancel', orderNumber: subscriptionOrder.id },
    ];
    for (const body of cases) {
      const { url } = await ok(restClient(ws, { write: false }).GET('/v0/portal/url', { params: { query: { type: body.type!, ...body } } }));
      const page = new URL(url);
      for (const named of body.orderNumber ? [{ ...body }, { ...body, userId: buyer.id }] : [{ ...body, userId: buyer.id }]) {
        const opened = await new PortalClient(baseUrl()).get(await sessionUrl(ws, named));
        expect([named, opened.status, opened.location]).toEqual([named, 303, `${page.pathname}${page.search}`]);
      }
    }
    const client = new PortalClient(baseUrl());
    const landed = await client.follow(await sessionUrl(ws, { type: 'orders-view', orderNumber: order.number }));
    expect([landed.status, landed.html.includes(`id="order-number">${order.number}<`)]).toEqual([200, true]);
  });

  test("bound to its buyer and workspace: another workspace's portal does not know it; a browser signed in as someone else becomes this buyer (the other session ends)", async () => {
    const url = await sessionUrl(ws, { userId: buyer.id });
    const other = await newWorkspace('Portal sessions elsewhere');
    const foreign = await new PortalClient(baseUrl()).get(url.replace(ws.workspaceId, other.workspaceId));
    expect([foreign.status, foreign.location]).toEqual([303, signInPage(null, 'link-invalid', other)]);

    const someone = await newBuyer(ws);
    const theirs = (await seedOrder(ws, { userId: someone.id })).order;
    const client = new PortalClient(baseUrl());
    await client.follow(await sessionUrl(ws, { userId: someone.id }));
    const previous = client.cookies.get('portal_session')!;
    expect((await client.get(at('/orders'))).html).toContain(theirs.number);
    // Still unused after the other workspace's attempt.
    expect((await client.get(url)).location).toBe(at('/orders'));
    const orders = await client.get(at('/orders'));
    expect([orders.html.includes(order.number), orders.html.includes(theirs.number)]).toEqual([true, false]);
    const stale = new PortalClient(baseUrl());
    stale.cookies.set('portal_session', previous);
    expect((await stale.get(at('/orders'))).status).toBe(303);
  });

  test('expired, made up, an emailed link\'s kind, or its buyer archived since: the sign-in page says so; the portal turned off uses nothing up', async () => {
    const expiring = await sessionUrl(ws, { type: 'orders-view', orderNumber: order.number });
    await salesDb().portalSignInLink.update({ where: { tokenHash: hash(tokenOf(expiring)) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await new PortalClient(baseUrl()).get(expiring);
    expect([expired.status, expired.location]).toEqual([303, signInPage(at(`/orders/${order.number}`), 'link-expired')]);
    expect((await new PortalClient(baseUrl()).follow(expired.location!)).html).toContain('That link has expired');

    const valid = tokenOf(await sessionUrl(ws, { userId: buyer.id }));
    for (const token of [`psu_${'A'.repeat(43)}`, `psl_${valid.slice(4)}`, `${valid}x`, 'nonsense']) {
      const answer = await new PortalClient(baseUrl()).get(at(`/session/${token}`));
      expect([token, answer.status, answer.location]).toEqual([token, 303, signInPage(null, 'link-invalid')]);
    }

    await setWorkspace(ws.workspaceId, 'portalEnabled=false');
    try {
      const off = await new PortalClient(baseUrl()).get(at(`/session/${valid}`));
      expect([off.status, off.html.includes('id="portal-disabled"')]).toEqual([403, true]);
    } finally {
      await setWorkspace(ws.workspaceId, 'portalEnabled=true');
    }
    expect((await new PortalClient(baseUrl()).get(at(`/session/${valid}`))).location).toBe(at('/orders'));

    const leaving = await newBuyer(ws);
    const url = await sessionUrl(ws, { userId: leaving.id });
    await ok(restClient(ws).PATCH('/v0/users/{userId}/archive', { params: { path: { userId: leaving.id } } }));
    const archived = new PortalClient(baseUrl());
    expect((await archived.get(url)).location).toBe(signInPage(at('/orders'), 'link-invalid'));
    expect(archived.cookies.has('portal_session')).toBe(false);
  });

  test('opened twice at once, exactly one opening signs in', async () => {
    const url = await sessionUrl(ws, { userId: buyer.id });
    const browsers = [new PortalClient(baseUrl()), new PortalClient(baseUrl())];
    const answers = await Promise.all(browsers.map((b) => b.get(url)));
    expect(answers.map((a) => a.location).sort()).toEqual([at('/orders'), signInPage(at('/orders'), 'link-used')].sort());
    expect(browsers.filter((b) => b.cookies.has('portal_session'))).toHaveLength(1);
  });

  describe('the rules, in the link route\'s order', () => {
    test('a write: the public key alone, or no key, is 401', async () => {
      expect(await failure(mint(ws, { userId: buyer.id }, { write: false }))).toEqual({ status: 401, body: ERROR });
      const bare = await fetch(`${baseUrl()}/v0/portal/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: buyer.id }) });
      expect(bare.status).toBe(401);
    });

    test('401 for a test-mode key and while the portal is disabled, before the type and the buyer are looked at', async () => {
      const testBuyer = await newBuyer(ws, undefined, { mode: 'test' });
      for (const body of [{ userId: testBuyer.id }, { type: 'nope' }, {}, { orderNumber: '0000000000000000' }] as Body[]) {
        expect([body, await failure(mint(ws, body, { mode: 'test' }))]).toEqual([body, { status: 401, body: ERROR }]);
      }
      const disabled = await newWorkspace('Portal sessions disabled', ['portalEnabled=false']);
      for (const body of [{ userId: randomUUID() }, { type: 'nope' }, {}] as Body[]) {
        expect([body, await failure(mint(disabled, body))]).toEqual([body, { status: 401, body: ERROR }]);
      }
    });

    test('a custom subscription-management URL answers every subscriptions-* type first, signing nobody in; order types follow the rules', async () => {
      const custom = 'https://billing.example.com/manage?shop=2';
      const w = await newWorkspace('Portal sessions custom', ['testMode=true', `customSubscriptionManagementUrl=${custom}`, 'portalEnabled=false']);
      for (const [body, key] of [
        [{ type: 'subscriptions-list' }, {}],
        [{ type: 'subscriptions-manage', orderNumber: '0000000000000000' }, { mode: 'test' }],
        [{ type: 'subscriptions-cancel', userId: randomUUID() }, {}],
      ] as [Body, KeyChoice][]) {
        expect([body, await ok(mint(w, body, key))]).toEqual([body, { url: custom, expiresAt: null }]);
      }
      expect((await failure(mint(w, { type: 'orders-list' }))).status).toBe(401);
      await setWorkspace(w.workspaceId, 'portalEnabled=true');
      const theirBuyer = await newBuyer(w);
      expect((await ok(mint(w, { type: 'orders-list', userId: theirBuyer.id }))).url).toContain(`/portal/${w.workspaceId}/session/psu_`);
    });

    test('400: no buyer named, an unknown type, a type that needs an order without one, a subscription type for a one-time order, an order without a buyer or of another buyer, a malformed userId', async () => {
      const anonymous = (await seedOrder(ws)).order;
      const someone = await newBuyer(ws);
      for (const body of [
        {},
        { type: 'orders-view', orderNumber: anonymous.number },
        { type: 'nope', userId: buyer.id },
        { type: '', userId: buyer.id },
        { type: 'orders-view', userId: buyer.id },
        { type: 'subscriptions-manage', userId: buyer.id },
        { type: 'subscriptions-cancel', orderNumber: order.number },
        { type: 'orders-view', orderNumber: order.number, userId: someone.id },
        { userId: 'not-a-uuid' },
      ] as Body[]) {
        expect([body, await failure(mint(ws, body))]).toEqual([body, { status: 400, body: ERROR }]);
      }
    });

    test("404: an unknown, archived, test-mode or other workspace's user; an unknown or other workspace's order", async () => {
      const archived = await newBuyer(ws);
      await ok(restClient(ws).PATCH('/v0/users/{userId}/archive', { params: { path: { userId: archived.id } } }));
      const testBuyer = await newBuyer(ws, undefined, { mode: 'test' });
      const other = await newWorkspace('Portal sessions other');
      const otherBuyer = await newBuyer(other);
      const otherOrder = (await seedOrder(other, { userId: otherBuyer.id })).order;
      for (const body of [
        { userId: randomUUID() },
        { userId: archived.id },
        { userId: testBuyer.id },
        { userId: otherBuyer.id },
        { orderNumber: '0000000000000000' },
        { orderNumber: otherOrder.number },
        { type: 'orders-view', orderNumber: otherOrder.id, userId: buyer.id },
      ] as Body[]) {
        expect([body, await failure(mint(ws, body))]).toEqual([body, { status: 404, body: ERROR }]);
      }
    });
  });
});
