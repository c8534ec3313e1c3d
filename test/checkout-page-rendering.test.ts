// The hosted checkout page, GET /checkout/{checkoutElementId}, rendered through the suite's HTTP
// server (driven in headless Chromium: test/checkout-page-browser.test.ts).
import { createHash, randomUUID } from 'node:crypto';
import { newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ok, useSuiteDatabase } from './support/responses.js';
import { newCatalogue } from './support/sales.js';
import { TEST, XSS_NAME, XSS_OFFER, newElement, pageUrl } from './support/checkout-page-suite.js';

const db = useSuiteDatabase();

async function getPage(id: string, query = '') {
  const response = await fetch(pageUrl(id, query));
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The value attribute of the input with this id, as written in the HTML. */
const inputValue = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*?value="([^"]*)"`).exec(html)?.[1];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

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
