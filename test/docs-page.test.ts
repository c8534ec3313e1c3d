import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { baseUrl } from './support/api.js';
import { BROWSER_TIMEOUT_MS, launchChromium } from './support/chromium.js';
import { operationsOf, readDocument, type OpenApi } from './support/openapi.js';
import { ROOT } from './support/processes.js';

// GET /v0/docs in a real browser: Scalar's reference renders the published document from this
// server's own files (no other origin is asked for anything), lists every operation, and shows an
// operation readably (the screenshot is kept under .tmp/ for a person to look at).

const SCREENSHOT = path.join(ROOT, '.tmp', 'docs-operation.png');

describe('the docs page (/v0/docs) in Chromium', () => {
  let document: OpenApi;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const requested: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    document = await readDocument();
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 1000 });
    page.on('request', (request) => requested.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${baseUrl()}/v0/docs`);
    // Rendered: the document's title and the first tag's first operation are on the page.
    await page.getByText(document.paths['/v0/products/create']!.post!.summary, { exact: true }).first().waitFor({ timeout: 120_000 });
  }, BROWSER_TIMEOUT_MS);
  afterAll(() => browser?.close());

  test('everything comes from this server: the renderer, the document; no CDN, fonts or telemetry', () => {
    const origin = new URL(baseUrl()).origin;
    expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:'))).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/v0/docs/scalar.js`, `${origin}/v0/openapi.json`]));
    expect(problems).toEqual([]);
  });

  test('the sidebar lists every operation of the document under its tag', async () => {
    const text = await page.locator('body').innerText();
    for (const tag of (document as { tags?: { name: string }[] }).tags ?? []) expect(text).toContain(tag.name);
    const missing = operationsOf(document).filter(({ operation }) => !text.includes(operation.summary));
    expect(missing.map(({ method, path: p }) => `${method} ${p}`)).toEqual([]);
  });

  test('an operation shows its path, parameters, example and errors, and its screenshot is readable', async () => {
    const { summary } = document.paths['/v0/orders/{orderIdOrNumber}/refund']!.patch!;
    await page.getByText(summary, { exact: true }).first().click();
    const heading = page.getByRole('heading', { name: summary }).first();
    await heading.waitFor();
    // The operation's block: the smallest element around its heading that also shows its path.
    const text = await heading.evaluate((element) => {
      let node: HTMLElement = element as HTMLElement;
      while (node.parentElement && !node.innerText.includes('/v0/orders/{orderIdOrNumber}/refund')) node = node.parentElement;
      return node.innerText;
    });
    expect(text).toContain('orderIdOrNumber');
    expect(text).toMatch(/404/);
    // The recorded example of the body and of the answer.
    expect(text).toContain('Recorded from the test suite');
    expect(text).toContain('PARTIALLY_REFUNDED');
    await heading.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    const shot = await page.screenshot({ path: SCREENSHOT });
    // A PNG of a real section, not a sliver: wide and tall enough to read.
    expect(shot.readUInt32BE(16)).toBeGreaterThan(600);
    expect(shot.readUInt32BE(20)).toBeGreaterThan(300);
  }, BROWSER_TIMEOUT_MS);

  test('GraphiQL stays at /graphql', async () => {
    const res = await fetch(`${baseUrl()}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/graphiql/i);
  });
});
