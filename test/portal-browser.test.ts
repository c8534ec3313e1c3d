// The buyer portal in headless Chromium (Debian's chromium + playwright-core), on a server of its
// own whose email goes to an SMTP receiver in the test: sign-in by the emailed link, an order's
// key and download, cancel at the period end and undo, the card update on the hosted page, a
// portal link followed without a session (sign-in, then its page), every portal-link type through
// a portal session's sign-in URL; axe-core checks each page (injected from npm), and the orders and
// subscription pages are kept as screenshots at desktop and phone widths (.tmp/portal-screenshots,
// CI artefacts).
import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

import { newWorkspace, type Workspace } from './support/api.js';
import { BROWSER_TIMEOUT_MS, fillCard, launchChromium, submitCard } from './support/chromium.js';
import { buy, fileShop, keyShop, portalLink, portalSession, signInLinks, startPortalServer, type PortalServer } from './support/portal.js';
import { salesDb } from './support/sales.js';
import { subscriptionElement } from './support/subscriptions.js';

const SCREENSHOTS = path.resolve('.tmp/portal-screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: PortalServer;
let ws: Workspace;
let browser: { context: BrowserContext; close: () => Promise<void> } | undefined;
const buyer = `reader-${randomUUID()}@example.com`;
const key = `COMIC-${randomUUID().slice(0, 8).toUpperCase()}`;
let keyOrder: { number: string };
let fileOrder: { number: string };
let subscriptionOrder: { number: string };

beforeAll(async () => {
  server = await startPortalServer();
  ws = await newWorkspace('Chromium Comics', ['brandColor=#5b2a86', 'accentColor=#ffb000']);
  const keyed = await keyShop(ws, [key]);
  const file = await fileShop(ws, Buffer.from('issue #1, a comic in plain text'), 'issue-1.txt');
  const monthly = await subscriptionElement(ws, 900, { recurringInterval: 'month', name: 'Comics monthly' }, {});
  keyOrder = await buy(ws, keyed.elementId, buyer);
  fileOrder = await buy(ws, file.elementId, buyer);
  subscriptionOrder = await buy(ws, monthly, buyer);
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
}, BROWSER_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const at = (p = '') => `${server.url}/portal/${ws.workspaceId}${p}`;

/** A tab that collects page errors and policy refusals. */
async function tab(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser!.context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  return { page, problems };
}

/** axe-core's WCAG 2.1 A/AA checks on the page as it is; the violations' ids and targets. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(await axeSource);
  const results = await page.evaluate(() => (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }));
  return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Screenshots of the page at desktop and phone widths, and what axe finds at each. */
async function capture(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
    problems.push(...(await accessibilityProblems(page)).map((p) => `${width}: ${p}`));
    // Nothing wider than the screen on a phone.
    if (width === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  }
  await page.setViewportSize(DESKTOP);
  return problems;
}

test(
  'sign in by the emailed link: the address entered, the link from the test mail server, its button, the orders (screenshots, axe)',
  async () => {
    const { page, problems } = await tab();
    await page.goto(at('/orders'));
    expect(new URL(page.url()).pathname).toBe(`/portal/${ws.workspaceId}/sign-in`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.fill('#email', buyer);
    await page.click('#send-link');
    await page.waitForSelector('#check-email');
    const [link] = signInLinks(await server.mailTo(buyer));
    await page.goto(link!);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.click('#confirm-sign-in');
    await page.waitForSelector('#orders');
    expect(new URL(page.url()).pathname).toBe(`/portal/${ws.workspaceId}/orders`);
    for (const order of [keyOrder, fileOrder, subscriptionOrder]) expect(await page.textContent('#orders')).toContain(order.number);
    expect(await page.textContent('#merchant')).toBe('Chromium Comics');
    expect(await capture(page, 'orders')).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);

test(
  "an order: its license key shown on a click, its file downloaded through the download button",
  async () => {
    const { page, problems } = await tab();
    await page.goto(at('/orders'));
    await page.click(`a[href$="/orders/${keyOrder.number}"]`);
    await page.waitForSelector('#order-number');
    expect(await page.content()).not.toContain(key);
    await page.click('button[id^="show-key-"]');
    await page.waitForSelector('code.key');
    expect(await page.textContent('code.key')).toBe(key);
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.goto(at(`/orders/${fileOrder.number}`));
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button[id^="download-"]')]);
    expect(download.suggestedFilename()).toBe('issue-1.txt');
    expect(await readFile((await download.path())!, 'utf8')).toBe('issue #1, a comic in plain text');
    expect(problems).toEqual([]);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);

test(
  'cancel the subscription at the period end (by keyboard) and undo it (screenshots, axe)',
  async () => {
    const { page, problems } = await tab();
    await page.goto(at('/subscriptions'));
    await page.click(`a[href$="/subscriptions/${subscriptionOrder.number}"]`);
    await page.waitForSelector('#subscription-status');
    expect(await page.textContent('#next-payment')).toMatch(/^\$9\.00 on /);
    expect(await capture(page, 'subscription')).toEqual([]);
    await page.click('#cancel');
    await page.waitForSelector('#confirm-cancel');
    expect(await page.isChecked('#when-period-end')).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);
    // Tab to the button and press Enter.
    for (let i = 0; i < 30 && (await page.evaluate(() => document.activeElement?.id)) !== 'confirm-cancel'; i++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#cancel-scheduled');
    expect(await page.textContent('#subscription-status')).toBe('Ends at period end');
    expect(await page.textContent('#notice')).toContain('will end at the end of the period');
    expect(await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscriptionOrder.number } })).toMatchObject({ cancelAtPeriodEnd: true, status: 'active' });
    await page.click('#undo-cancel');
    await page.waitForSelector('#notice');
    expect(await page.textContent('#subscription-status')).toBe('Active');
    expect(await page.isVisible('#cancel-scheduled')).toBe(false);
    expect((await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscriptionOrder.number } })).cancelAtPeriodEnd).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);

test(
  'update the card: the portal opens the hosted payment-method page, which saves the new card',
  async () => {
    const before = (await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscriptionOrder.number } })).paymentMethodRef;
    const { page } = await tab();
    await page.goto(at(`/subscriptions/${subscriptionOrder.number}`));
    await page.click('#update-payment-method');
    await page.waitForSelector('#continue-payment-method');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.click('#continue-payment-method');
    await page.waitForSelector('html[data-ready="true"]');
    expect(new URL(page.url()).pathname).toMatch(/^\/payment-method\//);
    await fillCard(page, '4242 4242 4242 4242');
    const outcome = await submitCard(page, '#save', 'Saving');
    expect(outcome.kind).toBe('saved');
    const after = (await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: subscriptionOrder.number } })).paymentMethodRef;
    expect(after).not.toBe(before);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);

test(
  "a portal link in a browser without a session: the sign-in page, the emailed link, then the link's page",
  async () => {
    await browser!.context.clearCookies();
    const { page, problems } = await tab();
    const landing = `/portal/${ws.workspaceId}/subscriptions/${subscriptionOrder.number}/cancel`;
    await page.goto(await portalLink(server.url, ws, { type: 'subscriptions-cancel', orderNumber: subscriptionOrder.number }));
    await page.waitForSelector('#sign-in-form');
    expect(new URL(page.url()).pathname).toBe(`/portal/${ws.workspaceId}/sign-in`);
    const seen = server.mails.filter((mail) => mail.to.includes(buyer)).length;
    await page.fill('#email', buyer);
    await page.click('#send-link');
    await page.waitForSelector('#check-email');
    const [link] = signInLinks(await server.mailTo(buyer, seen));
    await page.goto(link!);
    await page.click('#confirm-sign-in');
    await page.waitForSelector('#confirm-cancel');
    expect(new URL(page.url()).pathname).toBe(landing);
    expect(problems).toEqual([]);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);

test(
  'every portal-link type, signed in by a portal session (POST /v0/portal/sessions) in a browser without a session, opens on its page',
  async () => {
    const { page, problems } = await tab();
    // orders-list names its buyer by userId; the others by their order.
    const buyerId = (await salesDb().user.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, emailNormalized: buyer, livemode: true } })).id;
    const landings: [string, string | undefined, string, string][] = [
      ['orders-list', undefined, '/orders', '#orders'],
      ['orders-view', keyOrder.number, `/orders/${keyOrder.number}`, '#order-number'],
      ['orders-downloads', fileOrder.number, `/orders/${fileOrder.number}/downloads`, '#delivery'],
      ['subscriptions-list', subscriptionOrder.number, '/subscriptions', '#subscriptions'],
      ['subscriptions-manage', subscriptionOrder.number, `/subscriptions/${subscriptionOrder.number}`, '#subscription-status'],
      ['subscriptions-update-payment-method', subscriptionOrder.number, `/subscriptions/${subscriptionOrder.number}/payment-method`, '#continue-payment-method'],
      ['subscriptions-cancel', subscriptionOrder.number, `/subscriptions/${subscriptionOrder.number}/cancel`, '#confirm-cancel'],
    ];
    for (const [type, orderNumber, landing, marker] of landings) {
      await browser!.context.clearCookies();
      const link = await portalLink(server.url, ws, { type, ...(orderNumber ? { orderNumber } : {}) });
      await page.goto(await portalSession(server.url, ws, { type, ...(orderNumber ? { orderNumber } : { userId: buyerId }) }));
      await page.waitForSelector(marker);
      const url = new URL(page.url());
      expect([type, `${url.pathname}${url.search}`]).toEqual([type, `/portal/${ws.workspaceId}${landing}`]);
      expect([type, url.href]).toEqual([type, link]);
      expect([type, await accessibilityProblems(page)]).toEqual([type, []]);
    }
    expect(problems).toEqual([]);
    await page.close();
  },
  BROWSER_TIMEOUT_MS,
);
