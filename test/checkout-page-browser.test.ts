// The hosted checkout page driven in headless Chromium (Debian's `chromium` + playwright-core)
// through the checkout JSON API, and the orders it makes found again through /v0 (its rendering:
// test/checkout-page-rendering.test.ts).
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { newCatalogue } from './support/sales.js';
import { BROWSER_TIMEOUT_MS, fillCard, launchChromium, submitCard } from './support/chromium.js';
import { TEST, XSS_NAME, XSS_OFFER, newElement, pageUrl } from './support/checkout-page-suite.js';

interface Watched {
  page: Page;
  dialogs: string[];
  problems: string[];
  orderKeys: string[];
}

/** A new tab that records dialogs (an XSS would open one), CSP violations and script errors, and each Pay's Idempotency-Key. */
async function openTab(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const watched: Watched = { page, dialogs: [], problems: [], orderKeys: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => watched.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) watched.problems.push(message.text());
  });
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/orders')) watched.orderKeys.push(request.headers()['idempotency-key'] ?? '');
  });
  return watched;
}

async function openCheckout(watched: Watched, elementId: string, query = '') {
  const { page } = watched;
  const response = await page.goto(pageUrl(elementId, query));
  expect(response?.status()).toBe(200);
  await page.waitForSelector('html[data-ready="true"]');
  // The first quote has answered.
  await page.waitForSelector('#summary[data-quoted]');
}

async function fillBuyer(page: Page, email: string) {
  await page.fill('#email', email);
  await page.selectOption('#country', 'US');
  await page.fill('#postal-code', '94107');
  await page.fill('#state', 'CA');
}

/** Clicks Pay (then `authentication`'s button of the sandbox's 3-D Secure step, if given) and waits for the outcome. */
const pay = (page: Page, authentication?: 'authenticate' | 'fail-authentication') => submitCard(page, '#pay', 'Processing', authentication);

async function ordersOf(ws: Workspace, checkoutId: string) {
  const { orders } = await ok(restClient(ws, { mode: 'test', write: false }).GET('/v0/orders/list', { params: { query: { checkoutIds: [checkoutId], orderBy: 'createdAt', orderDirection: 'ASC' } } }));
  return orders as { id: string; number: string; status: string; value: number; tax: number; user: { email: string } | null; checkoutId: string | null }[];
}

describe('checkout page: headless Chromium', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> } | undefined;
  let ws: Workspace;
  let offerId: string;
  const code = `SPRING-${randomUUID().slice(0, 8).toUpperCase()}`;
  beforeAll(async () => {
    browser = await launchChromium();
    ws = await newWorkspace('Browser shop', ['testMode=true']);
    ({
      offer: { id: offerId },
    } = await newCatalogue(ws, 2500, TEST, { name: 'Browser offer' }));
    await ok(restClient(ws, TEST).POST('/v0/discounts/create', { body: { type: 'code', discountCode: code, amount: 10, amountType: 'percentage', currency: 'USD' } }));
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  test(
    'merchant input renders as text: no script runs, nothing breaks the page, the CSP admits the page script',
    async () => {
      const { offer } = await newCatalogue(ws, 100, TEST, { name: XSS_OFFER });
      const element = await newElement(ws, [offer.id], { name: XSS_NAME }, TEST);
      const tab = await openTab(browser!.context);
      await openCheckout(tab, element.id);
      expect(await tab.page.textContent('#element-name')).toBe(XSS_NAME);
      expect(await tab.page.textContent('#offers .offer-name')).toBe(XSS_OFFER);
      expect(await tab.page.title()).toBe(XSS_NAME);
      expect(await tab.page.isVisible('#test-mode')).toBe(true);
      // The summary the script wrote from the quote uses text too.
      expect(await tab.page.textContent('#summary-lines')).toContain(XSS_OFFER);
      expect(await tab.page.locator('img, svg').count()).toBe(0);
      expect(tab.dialogs).toEqual([]);
      expect(tab.problems).toEqual([]);
      await tab.page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'pays with the sandbox card 4242 4242 4242 4242; the order is found through /v0/orders/list',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Browser checkout' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      // A code that does not exist: the quote says why, and the total stays.
      await openCheckout(tab, element.id, '?svc-quantity=2&svc-discount-code=NO-SUCH-CODE');
      expect(await page.inputValue('#quantity')).toBe('2');
      expect(await page.isVisible('#discount-rejection')).toBe(true);
      expect(await page.textContent('#discount-rejection')).toMatch(/^Discount code not applied: ./);
      expect(await page.textContent('#summary-totals')).toContain('$50.00');
      // The prefilled code replaced by a real one: the summary follows.
      await page.fill('#discount-code', code);
      await page.waitForFunction(() => document.getElementById('discount-rejection')!.hidden && /SPRING-/.test(document.getElementById('summary-totals')!.textContent!));
      expect(await page.textContent('#summary-totals')).toContain(`Discount (${code})\u2212$5.00`);
      expect(await page.textContent('#summary-totals')).toContain('Total$45.00');
      expect(await page.textContent('#pay')).toBe('Pay $45.00');
      const email = `browser-${randomUUID()}@example.com`;
      await fillBuyer(page, email);
      await page.click('details.custom-fields summary');
      await page.fill('#field-id-0', 'gamertag');
      await page.fill('#field-value-0', 'neo <b>');
      await fillCard(page, '4242 4242 4242 4242');
      const outcome = await pay(page);
      expect(outcome).toEqual({ kind: 'paid', text: expect.stringContaining('Payment received') });
      const number = /Order number: (\S+)/.exec(outcome.text)?.[1];
      expect(number).toBeDefined();
      expect(await page.isDisabled('#pay')).toBe(true);

      const orders = await ordersOf(ws, element.id);
      expect(orders).toHaveLength(1);
      expect(orders[0]).toMatchObject({ number, status: 'PAID', value: 4500, checkoutId: element.id });
      expect(await page.inputValue('#card-number')).toBe('');
      expect(orders[0]!.user?.email).toBe(email);
      // The custom field went with the cart item.
      const byField = await ok(
        restClient(ws, { mode: 'test', write: false }).GET('/v0/orders/list', { params: { query: { customFields: JSON.stringify({ gamertag: 'neo <b>' }) } } }),
      );
      expect(byField.orders.map((o: { id: string }) => o.id)).toEqual([orders[0]!.id]);
      expect(tab.orderKeys).toHaveLength(1);
      expect(tab.orderKeys[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'the tax line follows the country, state and postal code; an address tax cannot be determined for is a clear message; the order records its tax',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Taxed checkout' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      const totals = () => page.textContent('#summary-totals');
      const until = (pattern: RegExp) => page.waitForFunction((source) => new RegExp(source).test(document.getElementById('summary-totals')!.textContent!), pattern.source);
      await openCheckout(tab, element.id);
      expect(await totals()).toContain('Taxcalculated from your country');
      await page.selectOption('#country', 'DE');
      await page.fill('#postal-code', '10115');
      // $25.00 at 19%: $4.75 on top.
      await until(/VAT 19% \(DE\)\$4\.75/);
      expect(await totals()).toContain('Total$29.75');
      expect(await page.textContent('#pay')).toBe('Pay $29.75');
      // A business's VAT number: a wrong one is said, a valid one reverse charges; cleared, VAT again.
      await page.fill('#tax-id', 'DE123456789');
      await page.waitForFunction(() => /check digits/.test(document.getElementById('quote-error')!.textContent!));
      await page.fill('#tax-id', 'DE143454214');
      await until(/VAT \(reverse charge\)\$0\.00/);
      expect(await totals()).toContain('Total$25.00');
      await page.fill('#tax-id', '');
      await until(/VAT 19% \(DE\)\$4\.75/);
      // A US address: no tax can be determined without the state, and the page says why.
      await page.selectOption('#country', 'US');
      await page.fill('#postal-code', '98101');
      await page.waitForFunction(() => !document.getElementById('quote-error')!.hidden);
      expect(await page.textContent('#quote-error')).toMatch(/without a state/);
      await page.fill('#state', 'WA');
      await until(/Sales tax 6\.5% \(US-WA\)\$1\.63/);
      expect(await page.isHidden('#quote-error')).toBe(true);
      // A ZIP code of another state: 422, said on the page.
      await page.fill('#state', 'CA');
      await page.waitForFunction(() => /not in state CA/.test(document.getElementById('quote-error')!.textContent!));
      await page.fill('#postal-code', '94107');
      await until(/Tax\$0\.00/);
      expect(await totals()).toContain('Total$25.00');
      // Quebec: GST and QST, each on its own line.
      await page.selectOption('#country', 'CA');
      await page.fill('#postal-code', 'H2X 1Y4');
      await page.fill('#state', 'QC');
      await until(/QST 9\.975% \(CA-QC\)\$2\.49/);
      expect(await totals()).toContain('GST 5% (CA)$1.25');
      expect(await totals()).toContain('Total$28.74');
      await page.fill('#email', `taxed-${randomUUID()}@example.com`);
      await fillCard(page, '4242424242424242');
      expect((await pay(page)).kind).toBe('paid');
      const [order] = await ordersOf(ws, element.id);
      expect(order).toMatchObject({ status: 'PAID', value: 2874, tax: 374, country: 'CA', billingState: 'QC', billingPostalCode: 'H2X 1Y4' });
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'a lost answer: Pay again sends the same Idempotency-Key and gets the same order, never a second charge',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Flaky network' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      await openCheckout(tab, element.id);
      await fillBuyer(page, `flaky-${randomUUID()}@example.com`);
      await fillCard(page, '4242424242424242');
      // The first answer is lost on its way back: the server has the request, the browser a network error.
      let lost = false;
      await page.route('**/orders', async (route) => {
        if (lost) return route.continue();
        lost = true;
        await route.fetch();
        await route.abort('connectionreset');
      });
      const first = await pay(page);
      expect(first.kind).toBe('error');
      expect(first.text).toContain('not be charged twice');
      const second = await pay(page);
      expect(second.kind).toBe('paid');
      expect(tab.orderKeys).toHaveLength(2);
      expect(tab.orderKeys[1]).toBe(tab.orderKeys[0]);
      const orders = await ordersOf(ws, element.id);
      expect(orders.map((o) => o.status)).toEqual(['PAID']);
      expect(second.text).toContain(orders[0]!.number);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'the declined card 4000 0000 0000 0002 shows the decline; another card then pays with a new Idempotency-Key',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Decline then pay' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      await openCheckout(tab, element.id);
      await fillBuyer(page, `declined-${randomUUID()}@example.com`);
      await fillCard(page, '4000 0000 0000 0002');
      const declined = await pay(page);
      expect(declined.kind).toBe('error');
      // The 402 envelope's message, under the page's own heading.
      expect(declined.text).toContain('Payment declined');
      expect(declined.text).toContain('Your card was declined.');
      expect(await page.isEnabled('#pay')).toBe(true);

      const afterDecline = await ordersOf(ws, element.id);
      expect(afterDecline.map((o) => o.status)).toEqual(['FAILED']);

      await fillCard(page, '4242 4242 4242 4242');
      const paid = await pay(page);
      expect(paid.kind).toBe('paid');
      expect(tab.orderKeys).toHaveLength(2);
      expect(tab.orderKeys[1]).not.toBe(tab.orderKeys[0]);
      expect((await ordersOf(ws, element.id)).map((o) => o.status)).toEqual(['FAILED', 'PAID']);
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'a card that needs 3-D Secure: the buyer authenticates in the sandbox step, the page shows the payment received',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Needs authentication' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      await openCheckout(tab, element.id);
      await fillBuyer(page, `authenticated-${randomUUID()}@example.com`);
      await fillCard(page, '4000 0027 6000 3184');
      const outcome = await pay(page, 'authenticate');
      expect(outcome.kind).toBe('paid');
      const orders = await ordersOf(ws, element.id);
      expect(orders.map((o) => o.status)).toEqual(['PAID']);
      expect(outcome.text).toContain(`Order number: ${orders[0]!.number}`);
      expect(await page.$('#sandbox-authentication')).toBeNull();
      // One order: the outcome was asked for again with the same key.
      expect(new Set(tab.orderKeys).size).toBe(1);
      expect(tab.orderKeys.length).toBeGreaterThan(1);
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'a card that needs 3-D Secure: the authentication fails, the page says the payment was declined',
    async () => {
      const element = await newElement(ws, [offerId], { name: 'Fails authentication' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      await openCheckout(tab, element.id);
      await fillBuyer(page, `unauthenticated-${randomUUID()}@example.com`);
      await fillCard(page, '4000 0027 6000 3184');
      const outcome = await pay(page, 'fail-authentication');
      expect(outcome.kind).toBe('error');
      expect(outcome.text).toContain('Payment declined');
      expect(outcome.text).toContain('3-D Secure was not completed');
      expect((await ordersOf(ws, element.id)).map((o) => o.status)).toEqual(['FAILED']);
      expect(await page.isEnabled('#pay')).toBe(true);
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  test(
    'a free offer: no payment section, no card; the order is paid at once',
    async () => {
      const { offer } = await newCatalogue(ws, 0, TEST, { name: 'Free demo' });
      const element = await newElement(ws, [offer.id], { name: 'Free claim' }, TEST);
      const tab = await openTab(browser!.context);
      const { page } = tab;
      await openCheckout(tab, element.id);
      expect(await page.isHidden('#payment')).toBe(true);
      expect(await page.textContent('#pay')).toBe('Get it for free');
      await fillBuyer(page, `free-${randomUUID()}@example.com`);
      const outcome = await pay(page);
      expect(outcome.kind).toBe('paid');
      const orders = await ordersOf(ws, element.id);
      expect(orders).toMatchObject([{ status: 'PAID', value: 0 }]);
      expect(tab.problems).toEqual([]);
      await page.close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
