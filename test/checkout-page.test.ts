// The hosted checkout page, GET /checkout/{checkoutElementId}: rendered through the suite's HTTP
// server, then driven in headless Chromium (Debian's `chromium` + playwright-core) through the
// checkout JSON API, and the orders it makes found again through /v0.
import { createHash, randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { baseUrl, newWorkspace, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok, useSuiteDatabase } from './support/responses.js';
import { newCatalogue } from './support/sales.js';
import { BROWSER_TIMEOUT_MS, fillCard, launchChromium, submitCard } from './support/chromium.js';

const TEST: KeyChoice = { mode: 'test' };
const db = useSuiteDatabase();

async function newElement(ws: Workspace, offersIds: string[], extra: Record<string, unknown> = {}, key: KeyChoice = {}) {
  const { checkoutElement } = await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds, ...extra } }));
  return checkoutElement as { id: string; name: string | null };
}

const pageUrl = (id: string, query = '') => `${baseUrl()}/checkout/${id}${query}`;

async function getPage(id: string, query = '') {
  const response = await fetch(pageUrl(id, query));
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The value attribute of the input with this id, as written in the HTML. */
const inputValue = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*?value="([^"]*)"`).exec(html)?.[1];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

const XSS_NAME = `</title><script>alert("element")</script><img src=x onerror="alert('element')">&amp;`;
const XSS_OFFER = `"><svg onload=alert('offer')>'<script>alert(1)</script>`;

describe('checkout page: rendering', () => {
  let ws: Workspace;
  let offer: { id: string };
  let element: { id: string };
  beforeAll(async () => {
    ws = await newWorkspace('Page Shop <b>&</b>');
    ({ offer } = await newCatalogue(ws, 1999, {}, { name: 'Sword of testing' }));
    element = await newElement(ws, [offer.id], { name: 'Buy the sword' });
  });

  test('the checkout: element name, merchant, offers with their price, the form, strict headers', async () => {
    const { status, headers, html } = await getPage(element.id);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('<h1 id="element-name">Buy the sword</h1>');
    expect(html).toContain('Page Shop &lt;b&gt;&amp;&lt;/b&gt;');
    expect(html).toContain('Sword of testing');
    expect(html).toContain('$19.99');
    for (const id of ['quantity', 'discount-code', 'email', 'country', 'postal-code', 'state', 'card-number', 'card-exp-month', 'card-exp-year', 'card-cvc', 'pay']) {
      expect(html).toContain(`id="${id}"`);
    }
    expect(html).toContain('<option value="XK">Kosovo</option>');
    expect(html).toContain('<option value="DE">Germany</option>');
    expect(html).toMatch(/value="paypal"/);
    expect(html).toMatch(/value="manual"/);
    expect(html).not.toContain('id="test-mode"');
    // The card inputs are never submitted by the browser itself: they have no name, and the policy forbids form posts.
    expect(html).not.toMatch(/<input[^>]*id="card-number"[^>]*name=/);

    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toMatch(/frame-ancestors 'self' https:/);
    expect(csp).not.toContain('unsafe-inline');
    expect(headers.get('x-frame-options')).toBeNull();
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    // The only executable script and stylesheet are the ones the policy names by hash.
    const scripts = [...html.matchAll(/<script(?: type="([^"]*)")?[^>]*>([\s\S]*?)<\/script>/g)];
    const executable = scripts.filter((m) => m[1] === undefined);
    expect(executable).toHaveLength(1);
    expect(csp).toContain(`script-src 'sha256-${sha256(executable[0]![2]!)}'`);
    expect(scripts.filter((m) => m[1] === 'application/json')).toHaveLength(1);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
    expect(styles).toHaveLength(1);
    expect(csp).toContain(`style-src 'sha256-${sha256(styles[0]![1]!)}'`);
    expect(html).not.toMatch(/ style="/);
    expect(html).not.toMatch(/ on[a-z]+="/);
  });

  test('svc-quantity and svc-discount-code prefill the inputs; a bad quantity falls back to 1', async () => {
    const { html } = await getPage(element.id, '?svc-quantity=3&svc-discount-code=SPRING-10');
    expect(inputValue(html, 'quantity')).toBe('3');
    expect(inputValue(html, 'discount-code')).toBe('SPRING-10');
    // The summary before the first quote: the list price times the quantity.
    expect(html).toContain('Sword of testing \u00d7 3');
    expect(html).toContain('$59.97');

    for (const bad of ['0', '-2', '2.5', 'abc', '1001', '99999999999']) {
      expect(inputValue((await getPage(element.id, `?svc-quantity=${encodeURIComponent(bad)}`)).html, 'quantity')).toBe('1');
    }
    expect(inputValue((await getPage(element.id, '?svc-quantity=1000')).html, 'quantity')).toBe('1000');
    expect(inputValue((await getPage(element.id)).html, 'discount-code')).toBe('');

    // The code is the buyer's URL: escaped, and cut at the API's 64 characters.
    const hostile = `"><script>alert(1)</script>`;
    const escaped = (await getPage(element.id, `?svc-discount-code=${encodeURIComponent(hostile)}`)).html;
    expect(inputValue(escaped, 'discount-code')).toBe('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escaped).not.toContain(hostile);
    const long = 'A'.repeat(80);
    expect(inputValue((await getPage(element.id, `?svc-discount-code=${long}`)).html, 'discount-code')).toBe('A'.repeat(64));
  });

  test('merchant input is escaped everywhere: element, offer and workspace names', async () => {
    const { offer: hostileOffer } = await newCatalogue(ws, 500, {}, { name: XSS_OFFER });
    const hostile = await newElement(ws, [hostileOffer.id], { name: XSS_NAME });
    const { status, html } = await getPage(hostile.id);
    expect(status).toBe(200);
    expect(html).not.toContain(XSS_NAME);
    expect(html).not.toContain(XSS_OFFER);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain('alert("element")</script>');
    expect(html).toContain('&lt;/title&gt;&lt;script&gt;alert(&quot;element&quot;)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(&#39;element&#39;)&quot;&gt;&amp;amp;');
    expect(html).toContain('&quot;&gt;&lt;svg onload=alert(&#39;offer&#39;)&gt;&#39;&lt;script&gt;alert(1)&lt;/script&gt;');
    // Two <script> elements only: the data block and the page's own.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  test('prices in the currency of the offer, with its own decimals', async () => {
    const cases: [string, number, string][] = [
      ['JPY', 1500, '¥1,500'],
      ['BHD', 12345, 'BHD\u00a012.345'],
      ['EUR', 5, '€0.05'],
      ['USD', 0, 'Free'],
    ];
    for (const [currency, price, shown] of cases) {
      const { offer: o } = await newCatalogue(ws, price, {}, { currency });
      const { html } = await getPage((await newElement(ws, [o.id])).id);
      expect(html).toContain(`<span class="price">${shown}</span>`);
    }
  });

  test('a test-mode element shows the test-mode banner with the sandbox test cards', async () => {
    const testWs = await newWorkspace('Test shop', ['testMode=true']);
    const { offer: o } = await newCatalogue(testWs, 1000, TEST);
    const testElement = await newElement(testWs, [o.id], { name: 'Test buy' }, TEST);
    const { status, html } = await getPage(testElement.id);
    expect(status).toBe(200);
    expect(html).toContain('id="test-mode"');
    expect(html).toContain('<strong>Test mode</strong>');
    expect(html).toContain('<code>4242 4242 4242 4242</code> succeeds');
    expect(html).toContain('<code>4000 0000 0000 0002</code> is declined');
    expect(html).toContain('data-livemode="false"');

    // Test mode switched off for the workspace: its test elements cannot sell.
    await setWorkspace(testWs.workspaceId, 'testMode=false');
    expect((await getPage(testElement.id)).status).toBe(404);
  });

  test('unknown, malformed, archived and inactive elements, and an offline workspace: a clear 404 page', async () => {
    const inactive = await newElement(ws, [offer.id], { status: 'INACTIVE' });
    const archived = await newElement(ws, [offer.id]);
    // No route archives an element (the contract has none): the mark is set beneath the API.
    await db.query('UPDATE "CheckoutElement" SET "archivedAt" = now() WHERE id = $1', [archived.id]);
    for (const id of [randomUUID(), 'not-a-uuid', inactive.id, archived.id, '%3Cscript%3E']) {
      const { status, headers, html } = await getPage(id);
      expect(status).toBe(404);
      expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(html).toContain('This checkout is not available');
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<script>');
    }

    const offlineWs = await newWorkspace('Offline shop');
    const { offer: o } = await newCatalogue(offlineWs, 100);
    const offlineElement = await newElement(offlineWs, [o.id]);
    expect((await getPage(offlineElement.id)).status).toBe(200);
    await setWorkspace(offlineWs.workspaceId, 'offline=true');
    expect((await getPage(offlineElement.id)).status).toBe(404);
  });

  test('a sold-out offer: a page that says so (200), no form', async () => {
    const { offer: none } = await newCatalogue(ws, 700, {}, { name: 'Limited edition', limit: 0 });
    const soldOut = await newElement(ws, [none.id], { name: 'Limited' });
    const { status, html } = await getPage(soldOut.id);
    expect(status).toBe(200);
    expect(html).toContain('data-reason="sold-out"');
    expect(html).toContain('Limited edition is sold out.');
    expect(html).not.toContain('id="checkout"');
    expect(html).not.toContain('<script');

    // Sold out later, by sales (the offer's limit reached).
    const { offer: few } = await newCatalogue(ws, 700, {}, { name: 'Few left', limit: 2 });
    const fewElement = await newElement(ws, [few.id]);
    expect((await getPage(fewElement.id)).html).toContain('id="checkout"');
    await placeOrder(fewElement.id, orderBody({ quantity: 2 }));
    expect((await getPage(fewElement.id)).html).toContain('Few left is sold out.');
  });

  test('an archived or inactive offer: a page saying it can no longer be bought (410), not an error', async () => {
    const { offer: gone } = await newCatalogue(ws, 300, {}, { name: 'Old bundle' });
    const { offer: kept } = await newCatalogue(ws, 300, {}, { name: 'Kept' });
    const cart = await newElement(ws, [kept.id, gone.id], { name: 'Bundle cart' });
    expect((await getPage(cart.id)).status).toBe(200);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId: gone.id } }, body: {} }));
    const { status, html } = await getPage(cart.id);
    expect(status).toBe(410);
    expect(html).toContain('data-reason="withdrawn"');
    expect(html).toContain('Old bundle is no longer sold.');
    expect(html).not.toContain('Kept is');
    expect(html).toContain('Bundle cart');
    expect(html).not.toContain('id="checkout"');

    const { offer: drafted } = await newCatalogue(ws, 300, {}, { name: 'Paused offer' });
    const draftElement = await newElement(ws, [drafted.id]);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/update', { params: { path: { offerId: drafted.id } }, body: { status: 'INACTIVE' } }));
    expect((await getPage(draftElement.id)).status).toBe(410);
  });
});

// --- Headless Chromium -------------------------------------------------------------------------

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
