// The signed-in buyer's portal on the suite's server (signed in through portal links): only their
// own orders and subscriptions, keys shown on request, downloads minted as the API mints them, and
// subscription changes through the API's services (the same events), safe to send twice.
import { randomUUID } from 'node:crypto';

import { baseUrl, newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { buy, csrfOf, fileShop, keyShop, PortalClient, signInByLink } from './support/portal.js';
import { ok } from './support/responses.js';
import { newCatalogue, salesDb } from './support/sales.js';
import { refundUnits } from './support/refunds.js';
import { subscriptionEvents } from './support/subscriptions.js';

const SLOW = 180_000;
let ws: Workspace;
let basic: { offerId: string; elementId: string };
let pro: { offerId: string };
const email = () => `buyer-${randomUUID()}@example.com`;

async function subscriptionOffer(w: Workspace, price: number) {
  const { offer } = await newCatalogue(w, price, {}, { recurringInterval: 'month' });
  const { checkoutElement } = await ok(restClient(w).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return { offerId: offer.id as string, elementId: checkoutElement.id as string };
}

beforeAll(async () => {
  ws = await newWorkspace('Account shop');
  basic = await subscriptionOffer(ws, 900);
  pro = await subscriptionOffer(ws, 1500);
  await setWorkspace(ws.workspaceId, `portalSwitchOfferIds=${basic.offerId},${pro.offerId}`);
}, SLOW);

const at = (path: string, w = ws) => `/portal/${w.workspaceId}${path}`;
const subscriptionRow = (number: string) => salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number } });
const updates = async (number: string) => (await subscriptionEvents(ws, number)).filter((e) => e.type === 'subscription_updated');

test("isolation: another buyer's orders and subscriptions, another workspace's and made-up numbers are 404; a session opens only its own workspace", async () => {
  const mine = await buy(ws, basic.elementId, email());
  const theirs = await buy(ws, basic.elementId, email());
  const client = await signInByLink(baseUrl(), ws, mine.number);
  expect((await client.get(at(`/orders/${mine.number}`))).status).toBe(200);
  expect((await client.get(at(`/subscriptions/${mine.number}`))).status).toBe(200);
  for (const path of [`/orders/${theirs.number}`, `/orders/${theirs.id}`, `/subscriptions/${theirs.number}`, `/subscriptions/${theirs.number}/cancel`, `/orders/${theirs.number}/downloads`, '/orders/0000000000000000', '/orders/%23x', `/subscriptions/${mine.id}`]) {
    const answer = await client.get(at(path));
    expect([path, answer.status, answer.html.includes('id="not-found"')]).toEqual([path, 404, true]);
  }
  const list = await client.get(at('/orders'));
  expect(list.html).toContain(mine.number);
  expect(list.html).not.toContain(theirs.number);
  expect((await client.get(at('/subscriptions'))).html).not.toContain(theirs.number);
  const cancel = await client.post(at(`/subscriptions/${theirs.number}/cancel`), { csrf: csrfOf(list.html, '/sign-out'), when: 'now' });
  expect(cancel.status).toBe(404);
  expect((await subscriptionRow(theirs.number)).status).toBe('active');

  const other = await newWorkspace('Account shop two');
  const elsewhere = await buy(other, (await subscriptionOffer(other, 500)).elementId, email());
  // The session is this workspace's: in another it signs nobody in (its cookie path is this one's too).
  const borrowed = new PortalClient(baseUrl());
  borrowed.cookies.set('portal_session', client.cookies.get('portal_session')!);
  expect((await borrowed.get(at(`/orders/${elsewhere.number}`, other))).status).toBe(303);
  expect((await client.get(at(`/orders/${elsewhere.number}`))).status).toBe(404);
}, SLOW);

test('an order: items, amounts, tax, status; its license key shown only when asked for; a download minted through the delivery service', async () => {
  const buyer = email();
  const keyed = await keyShop(ws, [`KEY-${randomUUID()}`]);
  const file = await fileShop(ws, Buffer.from('portal download bytes'), 'manual.txt');
  const keyOrder = await buy(ws, keyed.elementId, buyer);
  const fileOrder = await buy(ws, file.elementId, buyer);
  const client = await signInByLink(baseUrl(), ws, keyOrder.number);
  const page = await client.get(at(`/orders/${keyOrder.number}`));
  expect(page.html).toContain('<td class="amount" id="order-total" data-label="Total">$25.00</td>');
  expect(page.html).toContain('>Paid</span>');
  const [key] = (await salesDb().licenseKey.findMany({ where: { productId: keyed.productId } }));
  const { openKey } = await import('../src/delivery/key-vault.js');
  const value = openKey(key!.productId, key!.sealed);
  expect(page.html).not.toContain(value);
  const shown = await client.get(at(`/orders/${keyOrder.number}?key=${key!.id}`));
  expect(shown.html).toContain(`<code class="key" id="key-${key!.id}">${value}</code>`);
  // Another order's key id shows nothing on this order.
  expect((await client.get(at(`/orders/${fileOrder.number}?key=${key!.id}`))).html).not.toContain(value);

  const downloads = await client.get(at(`/orders/${fileOrder.number}/downloads`));
  const itemId = /id="download-([0-9a-f-]{36})"/.exec(downloads.html)![1]!;
  const minted = await client.post(at(`/orders/${fileOrder.number}/items/${itemId}/download`), { csrf: csrfOf(downloads.html, '/download') });
  expect(minted.status).toBe(303);
  expect(minted.location).toMatch(new RegExp(`^${baseUrl()}/downloads/`));
  const fetched = await fetch(minted.location!);
  expect(await fetched.text()).toBe('portal download bytes');
}, SLOW);

test('cancel at the period end and undo: the API\'s events (subscription_updated), and sending either form again changes nothing more', async () => {
  const order = await buy(ws, basic.elementId, email());
  const client = await signInByLink(baseUrl(), ws, order.number);
  const cancelPage = await client.get(at(`/subscriptions/${order.number}/cancel`));
  expect(cancelPage.html).toContain('id="when-period-end" checked');
  const form = { csrf: csrfOf(cancelPage.html), when: 'period-end' };
  for (let i = 0; i < 2; i++) {
    const sent = await client.post(at(`/subscriptions/${order.number}/cancel`), form);
    expect([sent.status, sent.location]).toEqual([303, at(`/subscriptions/${order.number}?done=cancel-scheduled`)]);
  }
  expect(await subscriptionRow(order.number)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
  const scheduled = await updates(order.number);
  expect(scheduled).toHaveLength(1);
  expect(scheduled[0]!.payload).toMatchObject({ subscription: { id: order.number, cancelAtPeriodEnd: true } });
  const page = await client.get(`${at(`/subscriptions/${order.number}`)}?done=cancel-scheduled`);
  expect(page.html).toContain('id="cancel-scheduled"');
  expect(page.html).toContain('Your subscription will end at the end of the period.');
  for (let i = 0; i < 2; i++) {
    const undone = await client.post(at(`/subscriptions/${order.number}/undo-cancel`), { csrf: csrfOf(page.html, '/undo-cancel') });
    expect(undone.location).toBe(at(`/subscriptions/${order.number}?done=kept`));
  }
  expect(await subscriptionRow(order.number)).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
  expect(await updates(order.number)).toHaveLength(2);
}, SLOW);

test('pause and resume only where the workspace allows pausing', async () => {
  const order = await buy(ws, basic.elementId, email());
  const client = await signInByLink(baseUrl(), ws, order.number);
  const page = await client.get(at(`/subscriptions/${order.number}`));
  expect(page.html).not.toContain('id="pause"');
  const refused = await client.post(at(`/subscriptions/${order.number}/pause`), { csrf: csrfOf(page.html, '/sign-out') });
  expect(refused.status).toBe(403);
  expect((await subscriptionRow(order.number)).status).toBe('active');
  await setWorkspace(ws.workspaceId, 'portalPauseEnabled=true');
  try {
    const allowed = await client.get(at(`/subscriptions/${order.number}`));
    expect((await client.post(at(`/subscriptions/${order.number}/pause`), { csrf: csrfOf(allowed.html, '/pause') })).location).toContain('done=paused');
    expect((await subscriptionRow(order.number)).status).toBe('paused');
    const paused = await client.get(at(`/subscriptions/${order.number}`));
    expect(paused.html).toContain('None while paused');
    expect((await client.post(at(`/subscriptions/${order.number}/resume`), { csrf: csrfOf(paused.html, '/resume') })).location).toContain('done=resumed');
    expect((await subscriptionRow(order.number)).status).toBe('active');
  } finally {
    await setWorkspace(ws.workspaceId, 'portalPauseEnabled=false');
  }
}, SLOW);

test('switch to an allowed offer: the proration shown before confirming is what is charged; confirming twice charges once', async () => {
  const order = await buy(ws, basic.elementId, email());
  const client = await signInByLink(baseUrl(), ws, order.number);
  const page = await client.get(at(`/subscriptions/${order.number}?offerId=${pro.offerId}`));
  expect(page.html).toContain(`<option value="${pro.offerId}" selected>`);
  const preview = await client.get(at(`/subscriptions/${order.number}/switch?offerId=${pro.offerId}`));
  expect(preview.status).toBe(200);
  expect(preview.html).toContain('<dd id="switch-price">$15.00 per month</dd>');
  const shown = /<dd id="switch-now"><strong>\$(\d+\.\d\d)<\/strong> is charged now/.exec(preview.html)![1]!;
  const fields = { csrf: csrfOf(preview.html), offerId: pro.offerId, key: /name="key" value="([^"]+)"/.exec(preview.html)![1]! };
  for (let i = 0; i < 2; i++) {
    const sent = await client.post(at(`/subscriptions/${order.number}/switch`), fields);
    expect([sent.status, sent.location, sent.status === 303 ? "" : /<p>([^<]*)<\/p>/.exec(sent.html)?.[1]]).toEqual([303, expect.stringContaining("done=switched"), ""]);
  }
  const changes = await salesDb().payment.findMany({ where: { subscription: { number: order.number, workspaceId: ws.workspaceId }, planChange: true } });
  expect(changes).toHaveLength(1);
  expect(changes[0]!.status).toBe('PAID');
  // Booked a moment after the preview: the same to the cent, or one cent off for the seconds between.
  expect(Math.abs(changes[0]!.amount - Math.round(Number(shown) * 100))).toBeLessThanOrEqual(1);
  expect((await subscriptionRow(order.number)).amount).toBe(1500);

  const stranger = await subscriptionOffer(ws, 2000);
  const refused = await client.get(at(`/subscriptions/${order.number}/switch?offerId=${stranger.offerId}`));
  expect(refused.status).toBe(400);
}, SLOW);

test('a refunded order shows its refund and status, and delivers nothing any more', async () => {
  const file = await fileShop(ws, Buffer.from('refunded bytes'), 'gone.txt');
  const order = await buy(ws, file.elementId, email());
  const client = await signInByLink(baseUrl(), ws, order.number);
  expect((await client.get(at(`/orders/${order.number}`))).html).toContain('id="download-');
  await refundUnits(ws, order.number, undefined, {});
  const page = await client.get(at(`/orders/${order.number}`));
  expect(page.html).toContain('id="refunds"');
  expect(page.html).toMatch(/<span class="status good">Refunded<\/span><\/td><td data-label="Amount" class="amount">\$12\.00<\/td>/);
  expect(page.html).toContain('<dt>Status</dt><dd><span class="status">Refunded</span></dd>');
  expect(page.html).not.toContain('id="download-');
}, SLOW);
