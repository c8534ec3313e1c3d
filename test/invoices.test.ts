import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { formatMoney } from '../src/checkout/page-format.js';
import { documentLinks, LINK_TTL_SECONDS } from '../src/invoices/links.js';
import { markPaymentPaid } from '../src/payments/index.js';
import { baseUrl, keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { card, orderBody, payCheckout, placeOrder } from './support/checkout.js';
import { BROWSER_TIMEOUT_MS, launchChromium } from './support/chromium.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { refund, sellingElement, TEST } from './support/refunds.js';
import './support/domains.js';
import { eventsAbout, salesDb, seedOrder } from './support/sales.js';
import { advance, DAY, paymentsOf, seconds, subscribe, subscriptionElement } from './support/subscriptions.js';

// Invoices and credit notes through the suite's server (real HTTP, PostgreSQL, the sandbox
// processor): issued in the transaction that pays the payment or books the refund, numbered
// without gaps, rendered once as HTML and PDF and served behind signed links. Every answer of the
// typed client and raw() is checked against the OpenAPI document.

const SLOW = 180_000;
const SELLER = ['invoiceLegalName=Invoicing Test GmbH', 'invoiceAddress=Teststraße 1\n10115 Berlin\nGermany', 'invoiceTaxId=DE143454214'];
const DE_CONSUMER = { countryCode: 'DE', postalCode: '10115' };

const payment = async (ws: Workspace, paymentId: string) =>
  (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/payments/{paymentId}', { params: { path: { paymentId } } }))).payment;
const document = async (ws: Workspace, invoiceId: string) =>
  (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/invoices/{invoiceId}', { params: { path: { invoiceId } } }))).invoice;
const list = async (ws: Workspace, query: Record<string, unknown> = {}) =>
  ok(restClient(ws, { ...TEST, write: false }).GET('/v0/invoices/list', { params: { query: { take: 100, returnCount: true, ...query } } }));

/** The text pdftotext (Debian's poppler-utils) reads out of a PDF. */
async function pdfText(bytes: Buffer): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'invoice-pdf-'));
  try {
    const file = path.join(dir, 'document.pdf');
    await writeFile(file, bytes);
    const { stdout } = await promisify(execFile)('pdftotext', ['-layout', file, '-']);
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('pdftotext is missing: apt-get install -y poppler-utils (.ci/run does this)', { cause: error });
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A document's PDF through its signed link, with no key. */
async function fetchPdf(pdfUrl: string): Promise<Buffer> {
  const response = await fetch(pdfUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  return Buffer.from(await response.arrayBuffer());
}

let ws: Workspace;
let element: string;

beforeAll(async () => {
  ws = await newWorkspace('Invoices', ['testMode=true', ...SELLER, 'invoicePrefix=ACME-']);
  element = (await sellingElement(ws, 1000)).id;
}, SLOW);

describe('numbering', () => {
  test('50 parallel checkouts: one invoice each, numbered 1 to 50 without a gap or a duplicate', async () => {
    const own = await newWorkspace('Invoices in parallel', ['testMode=true', ...SELLER]);
    const sold = (await sellingElement(own, 700)).id;
    const answers = await Promise.all(Array.from({ length: 50 }, () => payCheckout(sold, orderBody())));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const paymentIds = answers.map((a) => a.body.data.payment.id as string);

    const rows = await salesDb().invoice.findMany({ where: { workspaceId: own.workspaceId }, orderBy: { sequence: 'asc' } });
    expect(rows.map((r) => r.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(rows.map((r) => r.number)).toEqual(Array.from({ length: 50 }, (_, i) => `INV-TEST-${String(i + 1).padStart(6, '0')}`));
    expect(new Set(rows.map((r) => r.paymentId))).toEqual(new Set(paymentIds));
    expect(await salesDb().invoiceCounter.findMany({ where: { workspaceId: own.workspaceId } })).toEqual([{ workspaceId: own.workspaceId, livemode: false, kind: 'invoice', last: 50 }]);

    const listed = await ok(restClient(own, { ...TEST, write: false }).GET('/v0/invoices/list', { params: { query: { take: 100, returnCount: true, orderDirection: 'ASC' } } }));
    expect(listed.count).toBe(50);
    expect(new Set(listed.invoices.map((i) => i.number)).size).toBe(50);
    const shown = await payment(own, paymentIds[17]!);
    expect(shown.invoice).toMatchObject({ object: 'invoice', status: 'issued', reason: null, id: rows.find((r) => r.paymentId === paymentIds[17])!.id });
  }, SLOW);

  test('a payment whose transaction rolls back gives its number back: the next paid payment takes it', async () => {
    const own = await newWorkspace('Invoices rolled back', ['testMode=true', ...SELLER]);
    const [rolledBack, paid] = [await seedOrder(own, {}, TEST), await seedOrder(own, {}, TEST)];
    await expect(
      salesDb().$transaction(async (tx) => {
        await markPaymentPaid(tx, rolledBack.payment.id);
        expect(await tx.invoice.count({ where: { workspaceId: own.workspaceId } })).toBe(1);
        throw new Error('the payment fails after its invoice');
      }),
    ).rejects.toThrow('the payment fails after its invoice');
    await salesDb().$transaction((tx) => markPaymentPaid(tx, paid.payment.id));
    expect(await salesDb().invoice.findMany({ where: { workspaceId: own.workspaceId }, select: { number: true, paymentId: true } })).toEqual([{ number: 'INV-TEST-000001', paymentId: paid.payment.id }]);
  }, SLOW);
});

describe('an invoice', () => {
  test("a paid payment's invoice: the seller, the buyer, the lines, the totals per rate, the card; its PDF's text says the same", async () => {
    // A buyer whose billing details the workspace keeps (name and street), then buying.
    const email = `erika-${randomUUID()}@example.com`;
    await ok(restClient(ws, TEST).POST('/v0/users/create', { body: { email, billingDetails: { ...DE_CONSUMER, name: 'Erika Mustermann', line1: 'Hauptstraße 5', city: 'Berlin' } } }));
    const placed = await placeOrder(element, orderBody({ email, card: card(), quantity: 2, billingDetails: DE_CONSUMER }));
    const link = (await payment(ws, placed.payment.id)).invoice!;
    expect(link).toMatchObject({ object: 'invoice', status: 'issued', reason: null, number: expect.stringMatching(/^ACME-TEST-\d{6}$/) });
    const invoice = await document(ws, link.id!);
    expect(invoice).toMatchObject({
      object: 'invoice', number: link.number, livemode: false, currency: 'USD', paymentId: placed.payment.id, orderId: placed.order.id,
      seller: { legalName: 'Invoicing Test GmbH', address: ['Teststraße 1', '10115 Berlin', 'Germany'], taxId: 'DE143454214' },
      buyer: { name: 'Erika Mustermann', email, address: ['Hauptstraße 5', '10115 Berlin'], country: 'DE', taxId: null },
      lines: [{ quantity: 2, unitPrice: 1000, discount: 0, taxRate: 0.19, tax: 380, amount: 2000, total: 2380 }],
      taxes: [{ rate: 0.19, amount: 2000, tax: 380 }],
      subtotal: 2000, tax: 380, total: 2380, reverseCharge: false, cardLast4: '4242', correctsInvoiceId: null,
    });
    expect(invoice.notes.join(' ')).toMatch(/Test mode/);
    expect(invoice.supplyDate).toBe(new Date(invoice.issuedAt * 1000).toISOString().slice(0, 10));

    const text = await pdfText(await fetchPdf(link.pdfUrl!));
    for (const expected of [invoice.number, 'Invoicing Test GmbH', 'Erika Mustermann', 'Tax 19%', formatMoney(2000, 'USD'), formatMoney(380, 'USD'), formatMoney(2380, 'USD'), 'ending in 4242', 'TEST MODE']) {
      expect(text).toContain(expected);
    }

    const [event] = await eventsAbout(ws, 'invoice_issued', 'invoice', invoice.id);
    expect(event!.payload).toMatchObject({ invoice: { id: invoice.id, number: invoice.number, total: 2380, url: null } });
  }, SLOW);

  test("renewals: each paid period gets its invoice, dated at its period's start on the test clock, with the period's tax; a refund over them a credit note per share", async () => {
    const own = await newWorkspace('Invoices of renewals', ['testMode=true', ...SELLER]);
    const { order, subscription } = await subscribe(own, await subscriptionElement(own, 900), { billingDetails: DE_CONSUMER });
    await ok(advance(own, order.number, seconds(subscription.currentPeriodStart!) + 62 * DAY));
    const payments = await paymentsOf(subscription.id);
    expect(payments.map((p) => p.status)).toEqual(['PAID', 'PAID', 'PAID']);
    const invoices = await Promise.all(payments.map(async (p) => document(own, (await payment(own, p.id)).invoice!.id!)));
    expect(invoices.map((i) => i.number)).toEqual(['INV-TEST-000001', 'INV-TEST-000002', 'INV-TEST-000003']);
    expect(invoices.map((i) => [i.total, i.tax])).toEqual(payments.map((p) => [p.amount, p.tax]));
    expect(invoices.map((i) => i.issuedAt)).toEqual(payments.map((p) => seconds(p.paidAt!)));
    expect(invoices[1]!.lines).toEqual([expect.objectContaining({ itemId: null, quantity: 1, taxRate: 0.19, description: expect.stringMatching(new RegExp(`subscription ${order.number}, renewal, period 2$`)) })]);

    // A refund of the whole order splits over the three payments: one credit note per share, each correcting its payment's invoice.
    const refunded = await ok(refund(own, order.id, { idempotencyKey: randomUUID() }));
    expect(refunded.status).toBe('succeeded');
    expect(refunded.creditNotes).toHaveLength(3);
    const notes = await Promise.all(refunded.creditNotes.map((n) => document(own, n.id!)));
    expect(notes.map((n) => [n.paymentId, n.correctsInvoiceId, n.total, n.tax]).sort()).toEqual(
      refunded.payments.map((share) => {
        const invoice = invoices.find((i) => i.paymentId === share.paymentId)!;
        return [share.paymentId, invoice.id, share.amount, invoice.tax];
      }).sort(),
    );
    expect(notes.map((n) => n.number).sort()).toEqual(['INV-CN-TEST-000001', 'INV-CN-TEST-000002', 'INV-CN-TEST-000003']);
  }, SLOW);

  test('immutable: changing the seller afterwards changes neither the document, its page nor its PDF', async () => {
    const own = await newWorkspace('Invoices immutable', ['testMode=true', ...SELLER]);
    const placed = await placeOrder((await sellingElement(own, 500)).id);
    const before = (await payment(own, placed.payment.id)).invoice!;
    const [page, pdf] = await Promise.all([fetch(before.url!).then((r) => r.text()), fetchPdf(before.pdfUrl!)]);
    await setWorkspace(own.workspaceId, 'invoiceLegalName=Renamed Ltd', 'invoicePrefix=NEW-');
    const after = await document(own, before.id!);
    expect(after.seller.legalName).toBe('Invoicing Test GmbH');
    expect(after.number).toBe(before.number);
    expect(await fetch(after.url!).then((r) => r.text())).toBe(page);
    expect((await fetchPdf(after.pdfUrl!)).equals(pdf)).toBe(true);
    // The next invoice carries the new details and continues the series.
    const next = (await payment(own, (await placeOrder((await sellingElement(own, 500)).id)).payment.id)).invoice!;
    expect(next.number).toBe('NEW-TEST-000002');
    expect((await document(own, next.id!)).seller.legalName).toBe('Renamed Ltd');
  }, SLOW);

  test("reverse charge: a business buyer's VAT id, 0 tax, and the note on the document and its PDF", async () => {
    const placed = await placeOrder(element, orderBody({ billingDetails: { ...DE_CONSUMER, taxId: 'DE143454214' } }));
    const invoice = await document(ws, (await payment(ws, placed.payment.id)).invoice!.id!);
    expect(invoice).toMatchObject({ reverseCharge: true, tax: 0, total: 1000, buyer: { taxId: 'DE143454214' }, lines: [{ taxRate: 0, tax: 0, amount: 1000 }], taxes: [{ rate: 0, amount: 1000, tax: 0 }] });
    expect(invoice.notes[0]).toMatch(/^Reverse charge/);
    const text = await pdfText(await fetchPdf(invoice.pdfUrl!));
    expect(text).toContain('Reverse charge');
    expect(text).toContain('Tax 0%');
    expect(text).toContain('DE143454214');
  }, SLOW);

  test('no seller name or address: no document, and the payment says why', async () => {
    const own = await newWorkspace('Invoices without a seller', ['testMode=true', 'invoiceLegalName=Only A Name Ltd']);
    const placed = await placeOrder((await sellingElement(own, 500)).id);
    expect((await payment(own, placed.payment.id)).invoice).toEqual({ object: 'invoice', status: 'withheld', reason: 'seller_details_missing', id: null, number: null, issuedAt: null, url: null, pdfUrl: null });
    expect(await list(own)).toEqual({ invoices: [], count: 0 });
    expect(await salesDb().invoiceCounter.count({ where: { workspaceId: own.workspaceId } })).toBe(0);
  }, SLOW);
});

describe('credit notes', () => {
  test('a partial, an items and a full refund: one credit note each, for what each gave back, correcting the invoice', async () => {
    const placed = await placeOrder(element, orderBody({ quantity: 3, billingDetails: DE_CONSUMER }));
    const invoice = await document(ws, (await payment(ws, placed.payment.id)).invoice!.id!);
    expect(invoice.total).toBe(3570);
    const order = (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: placed.order.id } } }))).order;
    const itemId = order.items[0]!.id;
    const bodies = [{ amount: 500 }, { items: [{ id: itemId, quantity: 1 }] }, {}];
    const notes = [];
    for (const body of bodies) {
      const result = await ok(refund(ws, placed.order.id, { idempotencyKey: randomUUID(), ...body }));
      expect(result.status).toBe('succeeded');
      expect(result.creditNotes).toHaveLength(1);
      const note = await document(ws, result.creditNotes[0]!.id!);
      expect(note).toMatchObject({ object: 'credit_note', refundId: result.refundId, correctsInvoiceId: invoice.id, correctsInvoiceNumber: invoice.number, total: result.amount, paymentId: placed.payment.id });
      expect(note.lines.reduce((sum, l) => sum + l.total, 0)).toBe(result.amount);
      expect(note.taxes.reduce((sum, t) => sum + t.amount + t.tax, 0)).toBe(result.amount);
      expect(note.lines.every((l) => l.taxRate === 0.19)).toBe(true);
      const text = await pdfText(await fetchPdf(note.pdfUrl!));
      for (const expected of [note.number, invoice.number, 'Credit note', formatMoney(note.total, 'USD'), 'Tax 19%']) expect(text).toContain(expected);
      notes.push(note);
    }
    expect(notes[0]).toMatchObject({ total: 500, tax: 80, lines: [{ quantity: 3, tax: 80, amount: 420 }] });
    expect(notes[1]!.lines).toEqual([expect.objectContaining({ itemId, quantity: 1, total: notes[1]!.total })]);
    expect(notes[0]!.total + notes[1]!.total + notes[2]!.total).toBe(invoice.total);
    expect(notes[0]!.tax + notes[1]!.tax + notes[2]!.tax).toBe(invoice.tax);
    expect(notes.map((n) => n.number)).toEqual(notes.map((n) => n.number).sort());
    expect(new Set(notes.map((n) => n.number)).size).toBe(3);
    expect(notes[0]!.number).toMatch(/^ACME-CN-TEST-\d{6}$/);
    for (const note of notes) expect(await eventsAbout(ws, 'credit_note_issued', 'creditNote', note.id)).toHaveLength(1);

    const listed = await list(ws, { kind: 'credit_note', paymentId: placed.payment.id, orderDirection: 'ASC' });
    expect(listed.invoices.map((n) => n.id)).toEqual(notes.map((n) => n.id));
  }, SLOW);
});

describe('reading them', () => {
  test('the list filters by buyer and issue date; GraphQL serves the same; an unknown id is 404; a tampered link is 403, an expired one 410', async () => {
    const email = `buyer-${randomUUID()}@example.com`;
    const placed = await placeOrder(element, orderBody({ email }));
    const invoice = await document(ws, (await payment(ws, placed.payment.id)).invoice!.id!);
    expect((await list(ws, { email: email.toUpperCase() })).invoices.map((i) => i.id)).toEqual([invoice.id]);
    expect((await list(ws, { userId: placed.order.userId })).invoices.map((i) => i.id)).toEqual([invoice.id]);
    expect((await list(ws, { issuedFrom: invoice.issuedAt, issuedTo: invoice.issuedAt, email })).count).toBe(1);
    expect((await list(ws, { issuedTo: invoice.issuedAt - 1, email })).count).toBe(0);

    // GraphQL serves the same documents as /v0.
    const query = `query($id: UUID!, $email: String) {
      invoice(invoiceId: $id) { invoice { id number total taxes { rate tax } lines { taxRate } } }
      invoices(email: $email, returnCount: true) { invoices { id } count }
      payment(paymentId: "${placed.payment.id}") { payment { invoice { status id number } } }
    }`;
    const graphql = await fetch(`${baseUrl()}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders(ws, { ...TEST, write: false }) }, body: JSON.stringify({ query, variables: { id: invoice.id, email } }) });
    const { data, errors } = (await graphql.json()) as { data: any; errors?: unknown };
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      invoice: { invoice: { id: invoice.id, number: invoice.number, total: invoice.total, taxes: invoice.taxes.map(({ rate, tax }) => ({ rate, tax })), lines: invoice.lines.map(({ taxRate }) => ({ taxRate })) } },
      invoices: { invoices: [{ id: invoice.id }], count: 1 },
      payment: { payment: { invoice: { status: 'issued', id: invoice.id, number: invoice.number } } },
    });

    const missing = await raw('GET', `/v0/invoices/${randomUUID()}`, { headers: { 'x-svc-public-key': ws.testPublicKey } });
    expect(missing.status).toBe(404);
    const tampered = await fetch(invoice.url!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')));
    expect(tampered.status).toBe(403);
    // A link minted a second more than its lifetime ago (under the suite's secret, as the server's).
    const origin = new URL(invoice.url!).origin;
    const old = documentLinks(invoice.id, origin, new Date(Date.now() - (LINK_TTL_SECONDS + 1) * 1000));
    for (const url of [old.url, old.pdfUrl]) {
      const expired = await fetch(url);
      expect(expired.status).toBe(410);
      expect((await expired.json()).error.message).toMatch(/expired/);
    }
    expect((await fetch(documentLinks(invoice.id, origin, new Date()).pdfUrl)).status).toBe(200);
    // Another workspace's key sees nothing of it.
    const other = await newWorkspace('Invoices elsewhere', ['testMode=true']);
    expect((await raw('GET', `/v0/invoices/${invoice.id}`, { headers: { 'x-svc-public-key': other.testPublicKey } })).status).toBe(404);
  }, SLOW);

  test('the hosted invoice page in Chromium: the number, the total and the test-mode mark, styled, nothing blocked', async () => {
    const placed = await placeOrder(element, orderBody({ billingDetails: DE_CONSUMER }));
    const invoice = await document(ws, (await payment(ws, placed.payment.id)).invoice!.id!);
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      const response = await page.goto(invoice.url!);
      expect(response!.status()).toBe(200);
      expect(await page.title()).toBe(`Invoice ${invoice.number}`);
      expect(await page.textContent('#number')).toBe(invoice.number);
      expect(await page.textContent('#total')).toBe(formatMoney(invoice.total, 'USD'));
      expect(await page.isVisible('.test')).toBe(true);
      // The inline style applies under the page's Content-Security-Policy.
      expect(await page.$eval('table', (table) => getComputedStyle(table).borderCollapse)).toBe('collapse');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, BROWSER_TIMEOUT_MS);
});
