// The buyer portal's sign-in, through a server of its own whose email goes to an SMTP receiver in
// the test: the emailed one-time link (15 minutes, single use), a link of GET /v0/portal/url
// followed without a session (sign-in first, then its page), sessions and their cookies, sign-out,
// CSRF, rate limits, the portal turned off, and a workspace whose subscriptions are managed
// elsewhere. The sign-in URLs of POST /v0/portal/sessions: test/portal-sessions.test.ts.
import { randomUUID } from 'node:crypto';

import type { EndpointRequest } from '../src/http/endpoint.js';
import { Visit } from '../src/portal/visit.js';
import { newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { newCheckout } from './support/checkout.js';
import { buy, csrfOf, hiddenField, portalLink, PortalClient, signInByEmail, signInLinks, startPortalServer, type PortalServer } from './support/portal.js';
import { salesDb } from './support/sales.js';
import { subscriptionElement, TEST } from './support/subscriptions.js';

const SLOW = 180_000;
let server: PortalServer;
let ws: Workspace;
let elementId: string;
const email = () => `buyer-${randomUUID()}@example.com`;

beforeAll(async () => {
  server = await startPortalServer();
  ws = await newWorkspace('Portal <Shop> & Co', ['testMode=true', 'brandColor=#ffd400', 'accentColor=#0b6e4f']);
  elementId = (await newCheckout(ws, { price: 1500 })).element.id;
}, SLOW);

afterAll(async () => {
  await server?.stop();
});

const at = (path = '') => `/portal/${ws.workspaceId}${path}`;

describe('sign-in by emailed link', () => {
  test('the link signs in once: confirm page, session cookie (HTTP-only, Lax, the workspace path), the orders; used again or expired it is refused', async () => {
    const buyer = email();
    const order = await buy(ws, elementId, buyer);
    const client = new PortalClient(server.url);
    const form = await client.get(at('/sign-in'));
    expect(form.status).toBe(200);
    expect(form.html).toContain('Portal &lt;Shop&gt; &amp; Co');
    expect(form.html).toContain('<label for="email">Email address</label>');
    const asked = await client.post(at('/sign-in'), { csrf: csrfOf(form.html), email: buyer.toUpperCase() });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('id="check-email"');
    const mail = await server.mailTo(buyer);
    expect(mail.subject).toBe('Sign in to Portal <Shop> & Co');
    const [link] = signInLinks(mail);
    expect(link).toMatch(new RegExp(`^${server.url}/portal/${ws.workspaceId}/sign-in/psl_`));
    // The outbox keeps the email without its link.
    const stored = await salesDb().email.findMany({ where: { to: buyer } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.text).not.toContain('psl_');

    // Opening the link signs nobody in (a mail scanner may open it); its button does.
    const confirm = await client.get(link!);
    expect(confirm.status).toBe(200);
    expect(client.cookies.has('portal_session')).toBe(false);
    const signedIn = await client.post(link!, { csrf: csrfOf(confirm.html) });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(at('/orders'));
    const cookie = client.setCookieHeaders.find((h) => h.startsWith('portal_session=pps_'))!;
    expect(cookie).toMatch(/; Path=\/portal\/[0-9a-f-]{36}; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain('Secure');
    const orders = await client.get(at('/orders'));
    expect(orders.status).toBe(200);
    expect(orders.html).toContain(order.number);

    const again = new PortalClient(server.url);
    const reused = await again.get(link!);
    expect([reused.status, reused.html.includes('id="sign-in-link-used"')]).toEqual([410, true]);
    expect((await again.post(link!, { csrf: csrfOf((await again.get(at('/sign-in'))).html) })).status).toBe(410);
    expect(again.cookies.has('portal_session')).toBe(false);

    const second = await new PortalClient(server.url);
    const form2 = await second.get(at('/sign-in'));
    await second.post(at('/sign-in'), { csrf: csrfOf(form2.html), email: buyer });
    const [fresh] = signInLinks(await server.mailTo(buyer, 1));
    await salesDb().portalSignInLink.updateMany({ where: { workspaceId: ws.workspaceId, usedAt: null }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await second.get(fresh!);
    expect([expired.status, expired.html.includes('id="sign-in-link-expired"')]).toEqual([410, true]);
    expect((await second.post(fresh!, { csrf: csrfOf(form2.html) })).status).toBe(410);
    expect((await second.get(at('/orders'))).status).toBe(303);
  }, SLOW);

  test('an address that bought nothing gets the same answer and no email; a link of another workspace is unknown here', async () => {
    const stranger = email();
    const client = new PortalClient(server.url);
    const form = await client.get(at('/sign-in'));
    const asked = await client.post(at('/sign-in'), { csrf: csrfOf(form.html), email: stranger });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('id="check-email"');
    const buyer = email();
    await buy(ws, elementId, buyer);
    await client.post(at('/sign-in'), { csrf: csrfOf(form.html), email: buyer });
    const [link] = signInLinks(await server.mailTo(buyer));
    // The first request's email would have gone out before the second's.
    expect(server.mails.some((mail) => mail.to.includes(stranger))).toBe(false);
    expect(await salesDb().email.count({ where: { to: stranger } })).toBe(0);
    const other = await newWorkspace('Other portal');
    const foreign = await client.get(link!.replace(ws.workspaceId, other.workspaceId));
    expect([foreign.status, foreign.html.includes('id="sign-in-link-unknown"')]).toEqual([404, true]);
  }, SLOW);

  test("a test-mode buyer's pages carry the test-mode banner; the live buyer's do not", async () => {
    const buyer = email();
    const testElement = (await newCheckout(ws, { key: TEST })).element.id;
    await buy(ws, testElement, buyer);
    const client = await signInByEmail(server, ws.workspaceId, buyer);
    expect((await client.get(at('/orders'))).html).toContain('id="test-mode"');
    const live = email();
    await buy(ws, elementId, live);
    expect((await (await signInByEmail(server, ws.workspaceId, live)).get(at('/orders'))).html).not.toContain('id="test-mode"');
  }, SLOW);

  test('sign-out ends the session: its cookie opens nothing afterwards', async () => {
    const buyer = email();
    await buy(ws, elementId, buyer);
    const client = await signInByEmail(server, ws.workspaceId, buyer);
    const session = client.cookies.get('portal_session')!;
    const orders = await client.get(at('/orders'));
    const out = await client.post(at('/sign-out'), { csrf: csrfOf(orders.html, '/sign-out') });
    expect(out.status).toBe(303);
    expect(out.location).toContain('/sign-in?notice=signed-out');
    const replay = new PortalClient(server.url);
    replay.cookies.set('portal_session', session);
    expect((await replay.get(at('/orders'))).status).toBe(303);
  }, SLOW);

  test('the sign-in email is rate limited per address asked for: the sixth in an hour is a 429 page', async () => {
    const buyer = email();
    const client = new PortalClient(server.url);
    const csrf = csrfOf((await client.get(at('/sign-in'))).html);
    for (let i = 0; i < 5; i++) expect((await client.post(at('/sign-in'), { csrf, email: buyer })).status).toBe(200);
    const limited = await client.post(at('/sign-in'), { csrf, email: buyer });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.html).toContain('id="rate-limited"');
  }, SLOW);
});

describe('portal links', () => {
  test('a portal link followed without a session leads to the sign-in page and, through the emailed link, on to the page it named (its query kept)', async () => {
    const buyer = email();
    const order = await buy(ws, elementId, buyer);
    const offerId = randomUUID();
    const target = at(`/orders/${order.number}/downloads?offerId=${offerId}&cartOfferId=a+b`);
    const link = await portalLink(server.url, ws, { type: 'orders-downloads', orderNumber: order.number, offerId, cartOfferId: 'a b' });
    expect(link).toBe(`${server.url}${target}`);
    const client = new PortalClient(server.url);
    const first = await client.get(link);
    expect([first.status, first.location]).toEqual([303, `${at('/sign-in')}?next=${encodeURIComponent(target)}`]);
    const form = await client.get(first.location!);
    expect(form.status).toBe(200);
    const next = hiddenField(form.html, 'next');
    expect(next).toBe(target);
    expect((await client.post(at('/sign-in'), { csrf: csrfOf(form.html), email: buyer, next })).html).toContain('id="check-email"');
    const [signInLink] = signInLinks(await server.mailTo(buyer));
    const confirm = await client.get(signInLink!);
    const signedIn = await client.post(signInLink!, { csrf: csrfOf(confirm.html) });
    expect([signedIn.status, signedIn.location]).toEqual([303, target]);
    const landed = await client.get(target);
    expect(landed.status).toBe(200);
    expect(landed.html).toContain('id="delivery"');
    expect(landed.html).toContain(order.number);
  }, SLOW);
});

describe('forms and switches', () => {
  test('CSRF: a form without its token, with another browser\'s, or without the form cookie is refused (403) and changes nothing', async () => {
    const buyer = email();
    const order = await buy(ws, elementId, buyer);
    const mine = await signInByEmail(server, ws.workspaceId, buyer);
    const theirs = await signInByEmail(server, ws.workspaceId, buyer);
    const page = await mine.get(at('/orders'));
    const foreignToken = csrfOf((await theirs.get(at('/orders'))).html, '/sign-out');
    for (const fields of [{}, { csrf: '' }, { csrf: foreignToken }] as Record<string, string>[]) {
      const refused = await mine.post(at('/sign-out'), fields);
      expect([refused.status, refused.html.includes('id="csrf-refused"')]).toEqual([403, true]);
    }
    expect((await mine.get(at(`/orders/${order.number}`))).status).toBe(200);
    expect(page.status).toBe(200);
    const anonymous = new PortalClient(server.url);
    const token = csrfOf((await anonymous.get(at('/sign-in'))).html);
    const cookieless = new PortalClient(server.url);
    expect((await cookieless.post(at('/sign-in'), { csrf: token, email: buyer })).status).toBe(403);
  }, SLOW);

  test('portalEnabled off: every page answers a clear page (403), sign-in and sessions included', async () => {
    const off = await newWorkspace('Closed shop', ['portalEnabled=false']);
    const client = new PortalClient(server.url);
    for (const path of ['/orders', '/sign-in', `/orders/${randomUUID()}`, '']) {
      const answer = await client.get(`/portal/${off.workspaceId}${path}`);
      expect([path, answer.status, answer.html.includes('id="portal-disabled"'), answer.html.includes('Closed shop')]).toEqual([path, 403, true, true]);
    }
    expect((await client.post(`/portal/${off.workspaceId}/sign-in`, { email: 'a@example.com' })).status).toBe(403);
    const buyer = email();
    await buy(ws, elementId, buyer);
    const signedIn = await signInByEmail(server, ws.workspaceId, buyer);
    await setWorkspace(ws.workspaceId, 'portalEnabled=false');
    try {
      expect((await signedIn.get(at('/orders'))).status).toBe(403);
    } finally {
      await setWorkspace(ws.workspaceId, 'portalEnabled=true');
    }
    expect((await new PortalClient(server.url).get(`/portal/${randomUUID()}/orders`)).status).toBe(404);
  }, SLOW);

  test('a workspace with a custom subscription-management URL never reaches the built-in subscription pages, signed in or not, portal on or off', async () => {
    const custom = 'https://billing.example.com/manage?shop=7';
    const elsewhere = await newWorkspace('Managed elsewhere', [`customSubscriptionManagementUrl=${custom}`]);
    const subscriptionOffer = await subscriptionElement(elsewhere, 700, { recurringInterval: 'month' }, {});
    const buyer = email();
    const order = await buy(elsewhere, subscriptionOffer, buyer);
    const client = await signInByEmail(server, elsewhere.workspaceId, buyer);
    const base = `/portal/${elsewhere.workspaceId}`;
    for (const path of ['/subscriptions', `/subscriptions/${order.number}`, `/subscriptions/${order.number}/cancel`, `/subscriptions/${order.number}/payment-method`]) {
      const answer = await client.get(`${base}${path}`);
      expect([path, answer.status, answer.location]).toEqual([path, 303, custom]);
    }
    const orderPage = await client.get(`${base}/orders/${order.number}`);
    expect(orderPage.status).toBe(200);
    expect(orderPage.html).toContain(`href="${custom.replace('&', '&amp;')}"`);
    expect(orderPage.html).not.toContain(`${base}/subscriptions`);
    const cancel = await client.post(`${base}/subscriptions/${order.number}/cancel`, { csrf: csrfOf(orderPage.html, '/sign-out'), when: 'now' });
    expect([cancel.status, cancel.location]).toEqual([303, custom]);
    expect((await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: elsewhere.workspaceId, number: order.number } })).status).toBe('active');
    await setWorkspace(elsewhere.workspaceId, 'portalEnabled=false');
    expect((await new PortalClient(server.url).get(`${base}/subscriptions`)).location).toBe(custom);
  }, SLOW);
});

test('behind TLS (the portal reached over https) the session cookie is Secure', () => {
  const request = new Request('https://shop.example.com/portal/x/orders');
  const visit = new Visit({ request, url: new URL(request.url) } as EndpointRequest, { id: 'ws', name: 'Shop' } as never);
  visit.signIn('pps_token');
  expect(visit.redirect('/portal/ws/orders').headers.get('set-cookie')).toBe('portal_session=pps_token; Path=/portal/ws; Max-Age=43200; HttpOnly; SameSite=Lax; Secure');
});
