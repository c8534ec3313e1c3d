import { randomUUID } from 'node:crypto';
import { portalBaseUrl, portalBaseUrlFromEnv } from '../src/portal/base-url.js';
import { baseUrl, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { newBuyer, seedOrder } from './support/sales.js';

// GET /v0/portal/url through the real HTTP surface, its rules in the contract's order: the custom
// subscription-management URL first, then 401 for a test-mode key, 401 with the portal disabled,
// 400 for an unknown type, 404 for an unknown orderNumber; offerId and cartOfferId unchecked.
// The suite's server runs without PORTAL_BASE_URL: links are under its own /portal (the origin asked).

type Query = { type: string; orderNumber?: string; offerId?: string; cartOfferId?: string };
const link = (ws: Workspace, query: Query, key: KeyChoice = {}) => restClient(ws, { write: false, ...key }).GET('/v0/portal/url', { params: { query } });
const urlOf = async (ws: Workspace, query: Query, key: KeyChoice = {}) => new URL((await ok(link(ws, query, key))).url);

let ws: Workspace;
let oneTime: { number: string; id: string };
let subscriptionOrder: { number: string; id: string };

beforeAll(async () => {
  ws = await newWorkspace('Portal', ['testMode=true']);
  oneTime = (await seedOrder(ws)).order;
  subscriptionOrder = (await seedOrder(ws, { subscription: { recurringInterval: 'month' } })).order;
});

describe('GET /v0/portal/url', () => {
  test('each type links into the workspace in the portal; orderNumber takes the number or the id', async () => {
    const base = `/portal/${ws.workspaceId}`;
    expect((await urlOf(ws, { type: 'subscriptions-list' })).pathname).toBe(`${base}/subscriptions`);
    expect((await urlOf(ws, { type: 'subscriptions-manage', orderNumber: subscriptionOrder.number })).pathname).toBe(`${base}/subscriptions/${subscriptionOrder.number}`);
    expect((await urlOf(ws, { type: 'subscriptions-manage', orderNumber: subscriptionOrder.id })).pathname).toBe(`${base}/subscriptions/${subscriptionOrder.number}`);
    expect((await urlOf(ws, { type: 'subscriptions-update-payment-method', orderNumber: subscriptionOrder.number })).pathname).toBe(`${base}/subscriptions/${subscriptionOrder.number}/payment-method`);
    expect((await urlOf(ws, { type: 'subscriptions-cancel', orderNumber: subscriptionOrder.number })).pathname).toBe(`${base}/subscriptions/${subscriptionOrder.number}/cancel`);
    expect((await urlOf(ws, { type: 'orders-list' })).pathname).toBe(`${base}/orders`);
    expect((await urlOf(ws, { type: 'orders-view', orderNumber: oneTime.id })).pathname).toBe(`${base}/orders/${oneTime.number}`);
    expect((await urlOf(ws, { type: 'orders-downloads', orderNumber: `#${oneTime.number}` })).pathname).toBe(`${base}/orders/${oneTime.number}/downloads`);
  });

  test('offerId and cartOfferId are not checked against the workspace: unknown ones still give a link carrying them', async () => {
    const offerId = randomUUID();
    const url = await urlOf(ws, { type: 'subscriptions-manage', orderNumber: subscriptionOrder.number, offerId, cartOfferId: 'anything & more' });
    expect(url.searchParams.get('offerId')).toBe(offerId);
    expect(url.searchParams.get('cartOfferId')).toBe('anything & more');
  });

  test('400: an unknown type, a type that needs an orderNumber without one, a subscription link to an order that started none', async () => {
    for (const query of [{ type: 'nope' }, { type: '' }, { type: 'subscriptions-manage' }, { type: 'orders-view' }, { type: 'subscriptions-cancel', orderNumber: oneTime.number }]) {
      expect([query, await failure(link(ws, query))]).toEqual([query, { status: 400, body: ERROR }]);
    }
    expect((await raw('GET', '/v0/portal/url', { headers: { 'x-svc-public-key': ws.publicKey } })).status).toBe(400);
  });

  test("404: an unknown orderNumber, another workspace's order, the other mode's order (tenant isolation)", async () => {
    const other = await newWorkspace('Portal other');
    const theirs = (await seedOrder(other)).order;
    const testOrder = (await seedOrder(ws, {}, { mode: 'test' })).order;
    for (const orderNumber of ['0000000000000000', 'not a number', randomUUID(), theirs.number, theirs.id, testOrder.number]) {
      expect([orderNumber, await failure(link(ws, { type: 'orders-view', orderNumber }))]).toEqual([orderNumber, { status: 404, body: ERROR }]);
    }
  });

  test("every caller gets exactly the contract's link: with the secret key too it carries nothing more (it signs nobody in)", async () => {
    const buyer = await newBuyer(ws);
    const owned = (await seedOrder(ws, { userId: buyer.id, subscription: { recurringInterval: 'month' } })).order;
    const offerId = randomUUID();
    const cases: [Query, string][] = [
      [{ type: 'orders-view', orderNumber: owned.number }, `orders/${owned.number}`],
      [{ type: 'orders-downloads', orderNumber: owned.id }, `orders/${owned.number}/downloads`],
      [{ type: 'orders-list', orderNumber: owned.number }, 'orders'],
      [{ type: 'subscriptions-manage', orderNumber: owned.number, offerId }, `subscriptions/${owned.number}?offerId=${offerId}`],
      [{ type: 'subscriptions-list', orderNumber: owned.number }, 'subscriptions'],
    ];
    for (const [query, path] of cases) {
      const expected = `${baseUrl()}/portal/${ws.workspaceId}/${path}`;
      for (const write of [false, true]) expect([query, write, (await ok(link(ws, query, { write }))).url]).toEqual([query, write, expected]);
    }
  });

  test('R: the public key alone is enough; no key or a wrong one is 401', async () => {
    expect((await raw('GET', '/v0/portal/url', { query: 'type=orders-list' })).status).toBe(401);
    expect((await raw('GET', '/v0/portal/url', { query: 'type=orders-list', headers: { 'x-svc-public-key': 'pk_live_nope' } })).status).toBe(401);
    expect((await urlOf(ws, { type: 'orders-list' })).pathname).toBe(`/portal/${ws.workspaceId}/orders`);
  });

  describe('the rules in their order', () => {
    test('401 for a test-mode key, before the type and the order are looked at', async () => {
      for (const query of [{ type: 'orders-list' }, { type: 'subscriptions-list' }, { type: 'nope' }, { type: 'orders-view', orderNumber: '0000000000000000' }]) {
        expect([query, await failure(link(ws, query, { mode: 'test' }))]).toEqual([query, { status: 401, body: ERROR }]);
      }
      // Even without a type.
      expect((await raw('GET', '/v0/portal/url', { headers: { 'x-svc-public-key': ws.testPublicKey } })).status).toBe(401);
    });

    test('401 with the portal disabled, before the type and the order are looked at', async () => {
      const disabled = await newWorkspace('Portal disabled', ['portalEnabled=false', 'testMode=true']);
      for (const query of [{ type: 'orders-list' }, { type: 'subscriptions-manage' }, { type: 'nope' }, { type: 'orders-view', orderNumber: '0000000000000000' }]) {
        expect([query, await failure(link(disabled, query))]).toEqual([query, { status: 401, body: ERROR }]);
      }
      await setWorkspace(disabled.workspaceId, 'portalEnabled=true');
      expect((await urlOf(disabled, { type: 'orders-list' })).pathname).toBe(`/portal/${disabled.workspaceId}/orders`);
    });

    test('a custom subscription-management URL answers every subscriptions-* type first: test-mode key, portal disabled, unknown or missing order', async () => {
      const custom = 'https://billing.example.com/manage?shop=1';
      const w = await newWorkspace('Portal custom', ['testMode=true', `customSubscriptionManagementUrl=${custom}`, 'portalEnabled=false']);
      for (const [query, key] of [
        [{ type: 'subscriptions-list' }, {}],
        [{ type: 'subscriptions-manage', orderNumber: '0000000000000000' }, {}],
        [{ type: 'subscriptions-cancel' }, { mode: 'test' }],
        [{ type: 'subscriptions-update-payment-method', orderNumber: randomUUID(), offerId: randomUUID() }, { mode: 'test' }],
      ] as [Query, KeyChoice][]) {
        expect([query, (await ok(link(w, query, key))).url]).toEqual([query, custom]);
      }
      // Order types are not subscription management: the rules after the custom URL apply.
      expect((await failure(link(w, { type: 'orders-list' }))).status).toBe(401);
      expect((await failure(link(w, { type: 'orders-list' }, { mode: 'test' }))).status).toBe(401);
      await setWorkspace(w.workspaceId, 'portalEnabled=true');
      expect((await urlOf(w, { type: 'orders-list' })).pathname).toBe(`/portal/${w.workspaceId}/orders`);
      await setWorkspace(w.workspaceId, 'customSubscriptionManagementUrl=');
      expect((await urlOf(w, { type: 'subscriptions-list' })).pathname).toBe(`/portal/${w.workspaceId}/subscriptions`);
    });
  });
});

describe('PORTAL_BASE_URL', () => {
  test('the portal base URL: the variable (trailing slashes dropped), else this service under /portal (where the request came in); anything but an http(s) URL without query stops the start', () => {
    expect(portalBaseUrlFromEnv({ PORTAL_BASE_URL: 'https://portal.example.com/shop/' })).toBe('https://portal.example.com/shop');
    expect(portalBaseUrlFromEnv({ HOST: '0.0.0.0', PORT: '8080' })).toBeUndefined();
    expect(portalBaseUrl('http://127.0.0.1:41234')).toBe('http://127.0.0.1:41234/portal');
    for (const bad of ['ftp://x.example', 'not a url', 'https://x.example/?a=1']) expect(() => portalBaseUrlFromEnv({ PORTAL_BASE_URL: bad })).toThrow(/PORTAL_BASE_URL/);
  });
});
