// The hosted payment-method page, GET /payment-method/{subscriptionId}/{sessionToken}: rendered
// through the suite's HTTP server (what it shows, the checkout page's CSP, escaping and test-mode
// rules, clear pages for refused tokens), then completed in headless Chromium with sandbox cards.
import { createHash } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';

import { baseUrl, newWorkspace, type Workspace } from './support/api.js';
import { card } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { BROWSER_TIMEOUT_MS, fillCard, launchChromium, submitCard } from './support/chromium.js';
import { ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { advance, DECLINES_OFF_SESSION, paymentsOf, seconds, subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

const SLOW = 120_000;
const HOSTILE = `</title><script>alert("product")</script><img src=x onerror="alert('p')">&amp;`;

const mint = async (ws: Workspace, id: string) =>
  ok(restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: id } }, body: {} }));

async function getPage(url: string) {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, html: await response.text() };
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

let ws: Workspace;
let monthly: string;

beforeAll(async () => {
  ws = await newWorkspace('Card <Updates> & Co', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
  monthly = await subscriptionElement(ws, 900, { recurringInterval: 'month' }, TEST);
}, SLOW);

describe('payment-method page: rendering', () => {
  test('what is updated (product, next charge and date), the card form, the test banner, the checkout page headers', async () => {
    const { subscription } = await subscribe(ws, monthly);
    const { url } = await mint(ws, subscription.number);
    const { status, headers, html } = await getPage(url);
    expect(status).toBe(200);
    expect(html).toContain('Card &lt;Updates&gt; &amp; Co');
    expect(html).toContain('id="test-mode"');
    expect(html).toMatch(/<td class="amount" id="next-amount">\$9\.00<\/td>/);
    const date = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(subscription.currentPeriodEnd!);
    expect(html).toContain(`<td class="amount" id="next-date">${date}</td>`);
    for (const id of ['card-number', 'card-exp-month', 'card-exp-year', 'card-cvc', 'save']) expect(html).toContain(`id="${id}"`);
    expect(html).not.toMatch(/<input[^>]*id="card-number"[^>]*name=/);

    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    const scripts = [...html.matchAll(/<script(?: type="([^"]*)")?[^>]*>([\s\S]*?)<\/script>/g)];
    const executable = scripts.filter((m) => m[1] === undefined);
    expect(executable).toHaveLength(1);
    expect(csp).toContain(`script-src 'sha256-${sha256(executable[0]![2]!)}'`);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
    expect(csp).toContain(`style-src 'sha256-${sha256(styles[0]![1]!)}'`);
    expect(html).not.toMatch(/ on[a-z]+="/);
  }, SLOW);

  test("merchant input is escaped: a hostile product name renders as text", async () => {
    const element = await subscriptionElement(ws, 700, { recurringInterval: 'month', name: HOSTILE }, TEST);
    const { subscription } = await subscribe(ws, element);
    const { html } = await getPage((await mint(ws, subscription.number)).url);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('&lt;/title&gt;&lt;script&gt;alert(&quot;product&quot;)&lt;/script&gt;');
  }, SLOW);

  test("clear pages: an unknown token or another subscription's is 404, an expired or used one 410; none shows the subscription", async () => {
    const { subscription } = await subscribe(ws, monthly);
    const other = await subscribe(ws, monthly);
    const { url, sessionToken } = await mint(ws, subscription.number);
    const page = (id: string, token: string) => getPage(`${baseUrl()}/payment-method/${id}/${token}`);

    const foreign = await page(other.subscription.id, sessionToken);
    expect(foreign.status).toBe(404);
    expect(foreign.html).toContain('data-reason="unknown"');
    expect(foreign.html).not.toContain('$9.00');
    expect((await page(subscription.id, `pms_${'x'.repeat(43)}`)).status).toBe(404);
    expect((await page(subscription.id, 'nonsense')).status).toBe(404);

    // Time travel, which no route does: the session's 15 minutes over.
    await salesDb().paymentMethodSession.updateMany({ where: { subscriptionId: subscription.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await getPage(url);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('This link has expired');

    // Used: the buyer completed it with a card.
    const used = await mint(ws, subscription.number);
    await ok(buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId: subscription.id, sessionToken: used.sessionToken } }, body: { card: card() } }));
    const again = await getPage(used.url);
    expect(again.status).toBe(410);
    expect(again.html).toContain('This link was used already');
    expect(again.html).not.toContain('$9.00');
  }, SLOW);
});

// --- Headless Chromium -------------------------------------------------------------------------

interface Watched {
  page: Page;
  dialogs: string[];
  problems: string[];
}

async function openPage(context: BrowserContext, url: string): Promise<Watched> {
  const page = await context.newPage();
  const watched: Watched = { page, dialogs: [], problems: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => watched.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) watched.problems.push(message.text());
  });
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  await page.waitForSelector('html[data-ready="true"]');
  return watched;
}

/** Clicks Save (then `authentication`'s button of the sandbox's 3-D Secure step, if given) and waits for the outcome. */
const save = (page: Page, authentication?: 'authenticate' | 'fail-authentication') => submitCard(page, '#save', 'Saving', authentication);

const savedRef = async (id: string) => (await salesDb().subscription.findUniqueOrThrow({ where: { id } })).paymentMethodRef;

describe('payment-method page: headless Chromium', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  test(
    'saves the sandbox card 4242 4242 4242 4242: the subscription charges it from now on; the link is then used',
    async () => {
      const { subscription } = await subscribe(ws, monthly);
      const { url } = await mint(ws, subscription.number);
      const tab = await openPage(browser!.context, url);
      expect(await tab.page.isVisible('#test-mode')).toBe(true);
      await fillCard(tab.page, '4242 4242 4242 4242');
      const outcome = await save(tab.page);
      expect(outcome.kind).toBe('saved');
      expect(outcome.text).toContain('Card saved: visa ending in 4242');
      expect(await tab.page.inputValue('#card-number')).toBe('');
      expect(await savedRef(subscription.id)).not.toBe(subscription.paymentMethodRef);
      expect((await getPage(url)).status).toBe(410);
      expect(tab.problems).toEqual([]);
      expect(tab.dialogs).toEqual([]);
      await tab.page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test.each([
    { title: 'the declined card 4000 0000 0000 0002 shows the decline', cardNumber: '4000 0000 0000 0002', authentication: undefined, reason: 'Your card was declined.' },
    { title: 'a card that needs 3-D Secure whose authentication fails shows a decline', cardNumber: '4000 0027 6000 3184', authentication: 'fail-authentication' as const, reason: '3-D Secure was not completed' },
  ])(
    '$title and keeps the saved card; another card then saves',
    async ({ cardNumber, authentication, reason }) => {
      const { subscription } = await subscribe(ws, monthly);
      const { url } = await mint(ws, subscription.number);
      const tab = await openPage(browser!.context, url);
      await fillCard(tab.page, cardNumber);
      const declined = await save(tab.page, authentication);
      expect(declined.kind).toBe('error');
      expect(declined.text).toContain('Card declined');
      expect(declined.text).toContain(reason);
      expect(await savedRef(subscription.id)).toBe(subscription.paymentMethodRef);
      expect(await tab.page.isEnabled('#save')).toBe(true);
      await fillCard(tab.page, '4242424242424242');
      expect((await save(tab.page)).kind).toBe('saved');
      expect(tab.problems).toEqual([]);
      await tab.page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'a card that needs 3-D Secure: authenticated in the sandbox step, it is saved and the link used',
    async () => {
      const { subscription } = await subscribe(ws, monthly);
      const { url } = await mint(ws, subscription.number);
      const tab = await openPage(browser!.context, url);
      await fillCard(tab.page, '4000 0027 6000 3184');
      const outcome = await save(tab.page, 'authenticate');
      expect(outcome.kind).toBe('saved');
      expect(outcome.text).toContain('Card saved: visa ending in 3184');
      const ref = await savedRef(subscription.id);
      expect(ref).not.toBe(subscription.paymentMethodRef);
      expect(await salesDb().sandboxPaymentMethod.findUniqueOrThrow({ where: { id: ref! } })).toMatchObject({ reusable: true, last4: '3184' });
      expect((await getPage(url)).status).toBe(410);
      expect(tab.problems).toEqual([]);
      await tab.page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'past_due: the page says the overdue payment; saving a card charges it at once and the subscription is active again',
    async () => {
      const { order, subscription } = await subscribe(ws, monthly, { cardNumber: DECLINES_OFF_SESSION });
      const due = seconds(subscription.currentPeriodEnd!);
      expect((await ok(advance(ws, order.number, due + 60))).subscription.status).toBe('past_due');
      const { url } = await mint(ws, order.number);
      const tab = await openPage(browser!.context, url);
      expect(await tab.page.isVisible('#owed')).toBe(true);
      expect(await tab.page.textContent('#summary')).toContain('Overdue payment$9.00');
      await fillCard(tab.page, '4242 4242 4242 4242');
      const outcome = await save(tab.page);
      expect(outcome.kind).toBe('saved');
      expect(outcome.text).toContain('The overdue payment was charged. Your subscription is active again.');
      expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).status).toBe('active');
      const [, renewal] = await paymentsOf(subscription.id);
      expect(renewal).toMatchObject({ status: 'PAID' });
      expect(tab.problems).toEqual([]);
      await tab.page.close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
