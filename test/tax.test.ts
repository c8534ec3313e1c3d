import { randomUUID } from 'node:crypto';
import { newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';

// POST /v0/tax/calculate through the real HTTP surface: every answer is checked against the
// published OpenAPI document (restClient, raw). The rates themselves are pinned to published
// sources in test/tax-calculation.test.ts; here: the route's inputs, statuses and tenancy.

let ws: Workspace;
let product: { id: string };
let offer: { id: string; price: number; currency: string };
let giftCard: { id: string };

async function newProduct(w: Workspace, type = 'DigitalDownload', key: KeyChoice = {}) {
  return (await ok(restClient(w, key).POST('/v0/products/create', { body: { name: `Taxed ${randomUUID().slice(0, 8)}`, projectId: w.projectId, type } as never }))).product;
}

beforeAll(async () => {
  ws = await newWorkspace('Tax', ['testMode=true']);
  product = await newProduct(ws);
  giftCard = await newProduct(ws, 'GiftCard');
  offer = (await ok(restClient(ws).POST('/v0/offers/create', { body: { productId: product.id, price: 2_000, currency: 'EUR' } }))).offer;
});

type Body = Record<string, unknown>;
const calculate = (body: Body, w: Workspace = ws, key: KeyChoice = {}) => restClient(w, key).POST('/v0/tax/calculate', { body: body as never });

describe('POST /v0/tax/calculate', () => {
  test('an offer in Germany: its price and currency, 19% VAT on top (exclusive by default)', async () => {
    const { tax } = await ok(calculate({ offerId: offer.id, country: 'DE', postalCode: '10115' }));
    expect(tax).toMatchObject({
      object: 'tax_calculation',
      productId: product.id,
      offerId: offer.id,
      productType: 'DigitalDownload',
      currency: 'EUR',
      country: 'DE',
      state: null,
      postalCode: '10115',
      priceIncludesTax: false,
      amount: 2_000,
      netAmount: 2_000,
      taxAmount: 380,
      totalAmount: 2_380,
      rate: 0.19,
      taxType: 'VAT',
      jurisdiction: 'DE',
      components: [{ type: 'VAT', rate: 0.19, jurisdiction: 'DE', amount: 380 }],
      reverseCharge: false,
      taxReason: null,
      exemption: null,
      taxId: null,
    });
  });

  test('a product with an amount and currency: Quebec GST + QST, Ontario HST, Washington sales tax, California none', async () => {
    const quebec = (await ok(calculate({ productId: product.id, amount: 10_000, currency: 'CAD', country: 'CA', state: 'QC', postalCode: 'H2X 1Y4' }))).tax;
    expect(quebec.components).toEqual([
      { type: 'GST', rate: 0.05, jurisdiction: 'CA', amount: 500 },
      { type: 'QST', rate: 0.09975, jurisdiction: 'CA-QC', amount: 998 },
    ]);
    expect((await ok(calculate({ productId: product.id, amount: 10_000, currency: 'CAD', country: 'ca', state: 'on' }))).tax).toMatchObject({ taxType: 'HST', taxAmount: 1_300, jurisdiction: 'CA-ON' });
    expect((await ok(calculate({ productId: product.id, amount: 10_000, currency: 'USD', country: 'US', state: 'WA', postalCode: '98101' }))).tax).toMatchObject({ taxType: 'SALES_TAX', taxAmount: 650 });
    const california = (await ok(calculate({ productId: product.id, amount: 10_000, currency: 'USD', country: 'US', state: 'CA', postalCode: '90210' }))).tax;
    expect(california).toMatchObject({ taxAmount: 0, taxType: null, components: [], exemption: expect.stringMatching(/not taxable in US-CA/) });
  });

  test('inclusive prices: the workspace setting, or priceIncludesTax sent', async () => {
    const inclusive = await newWorkspace('Tax inclusive', ['pricesIncludeTax=true']);
    const p = await newProduct(inclusive);
    const body = { productId: p.id, amount: 11_900, currency: 'EUR', country: 'DE' };
    expect((await ok(calculate(body, inclusive))).tax).toMatchObject({ priceIncludesTax: true, netAmount: 10_000, taxAmount: 1_900, totalAmount: 11_900 });
    expect((await ok(calculate({ ...body, priceIncludesTax: false }, inclusive))).tax).toMatchObject({ priceIncludesTax: false, netAmount: 11_900, taxAmount: 2_261, totalAmount: 14_161 });
    await setWorkspace(inclusive.workspaceId, 'pricesIncludeTax=false');
    expect((await ok(calculate(body, inclusive))).tax).toMatchObject({ priceIncludesTax: false, taxAmount: 2_261 });
  });

  test('reverse charge for an EU business with a well-formed VAT number; gift cards untaxed', async () => {
    expect((await ok(calculate({ offerId: offer.id, country: 'FR', taxId: 'fr 40 303265045' }))).tax).toMatchObject({ reverseCharge: true, taxReason: 'reverse_charge', taxId: 'FR40303265045', taxAmount: 0, totalAmount: 2_000 });
    expect((await ok(calculate({ productId: giftCard.id, amount: 5_000, currency: 'EUR', country: 'DE' }))).tax).toMatchObject({ taxAmount: 0, exemption: expect.stringMatching(/Gift cards/) });
  });

  const undetermined: [string, Body][] = [
    ['a US address without a state', { country: 'US', postalCode: '98101' }],
    ['a Canadian address without a province', { country: 'CA' }],
    ['an unknown state', { country: 'US', state: 'ZZ' }],
    ['a ZIP code that is not in the state', { country: 'US', state: 'WA', postalCode: '10001' }],
    ['a postal code that is not in the province', { country: 'CA', state: 'QC', postalCode: 'M5V 3L9' }],
  ];
  test.each(undetermined)('422: %s', async (_name, location) => {
    const { status, body } = await failure(calculate({ productId: product.id, amount: 1_000, currency: 'USD', ...location }));
    expect(status).toBe(422);
    expect(body).toEqual(ERROR);
    expect(body.error.message).toMatch(/cannot be determined/);
  });

  test('422 where the rate data does not know the country, said as such (never "no tax applies"); a country that levies none is 200', async () => {
    const { status, body } = await failure(calculate({ productId: product.id, amount: 1_000, currency: 'BRL', country: 'BR' }));
    expect([status, body]).toEqual([422, ERROR]);
    expect(body.error.message).toMatch(/^No tax rate of BR is known for \d{4}-\d{2}-\d{2}: tax cannot be determined$/);
    expect((await ok(calculate({ productId: product.id, amount: 1_000, currency: 'HKD', country: 'HK' }))).tax).toMatchObject({ taxAmount: 0, taxReason: 'no_tax' });
    // A gift card is not taxed when sold, wherever it is: no rate is needed.
    expect((await ok(calculate({ productId: giftCard.id, amount: 1_000, currency: 'BRL', country: 'BR' }))).tax).toMatchObject({ taxAmount: 0, taxReason: 'not_taxable' });
  });

  test('taxRegistrations: outside them 0 with the reason not_registered (no 422 where no tax is collected anyway); everywhere again as before', async () => {
    const registered = await newWorkspace('Tax registered', ['taxRegistrations=gb,EU,us-wa,CA']);
    const p = await newProduct(registered);
    const sold = { productId: p.id, amount: 10_000, currency: 'EUR' };
    expect((await ok(calculate({ ...sold, country: 'DE' }, registered))).tax).toMatchObject({ taxAmount: 1_900, taxReason: null });
    expect((await ok(calculate({ ...sold, country: 'NO' }, registered))).tax).toMatchObject({ taxAmount: 0, components: [], taxReason: 'not_registered', exemption: 'Not registered for tax in NO: no tax collected' });
    expect((await ok(calculate({ ...sold, country: 'BR' }, registered))).tax).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
    expect((await ok(calculate({ ...sold, country: 'US', state: 'TX' }, registered))).tax).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
    expect((await ok(calculate({ ...sold, country: 'CA', state: 'QC' }, registered))).tax).toMatchObject({ taxAmount: 500, taxType: 'GST', taxReason: 'not_registered' });
    await setWorkspace(registered.workspaceId, 'taxRegistrations=everywhere');
    expect((await ok(calculate({ ...sold, country: 'NO' }, registered))).tax).toMatchObject({ taxAmount: 2_500, taxReason: null });
    await expect(setWorkspace(registered.workspaceId, 'taxRegistrations=US')).rejects.toThrow(/registered per state/);
    await expect(setWorkspace(registered.workspaceId, 'noTaxData=maybe')).rejects.toThrow(/sell_without_tax, refuse/);
  });

  const malformed: [string, Body][] = [
    ['neither productId nor offerId', { amount: 1_000, currency: 'USD', country: 'DE' }],
    ['a product without amount', { productId: 'P', currency: 'USD', country: 'DE' }],
    ['a product without currency', { productId: 'P', amount: 1_000, country: 'DE' }],
    ['no country', { productId: 'P', amount: 1_000, currency: 'USD' }],
    ['an unknown country', { productId: 'P', amount: 1_000, currency: 'USD', country: 'QQ' }],
    ['a negative amount', { productId: 'P', amount: -5, currency: 'USD', country: 'DE' }],
    ['a fractional amount', { productId: 'P', amount: 1.5, currency: 'USD', country: 'DE' }],
    ['an amount past the money range', { productId: 'P', amount: 2_147_483_648, currency: 'USD', country: 'DE' }],
    ['an unknown currency', { productId: 'P', amount: 1_000, currency: 'ABC', country: 'DE' }],
    ['a malformed postal code', { productId: 'P', amount: 1_000, currency: 'USD', country: 'US', state: 'WA', postalCode: 'NOPE' }],
    ['a malformed VAT number', { productId: 'P', amount: 1_000, currency: 'EUR', country: 'DE', taxId: 'DE1' }],
    ['a VAT number whose check digits are wrong', { productId: 'P', amount: 1_000, currency: 'EUR', country: 'DE', taxId: 'DE123456789' }],
    ['a VAT number of another country', { productId: 'P', amount: 1_000, currency: 'EUR', country: 'DE', taxId: 'FR40303265045' }],
    ['a malformed product id', { productId: 'not-a-uuid', amount: 1_000, currency: 'USD', country: 'DE' }],
    ['a string amount', { productId: 'P', amount: '1000', currency: 'USD', country: 'DE' }],
    ['a currency other than the offer\'s', { offerId: 'O', currency: 'USD', country: 'DE' }],
    ['a product that is not the offer\'s', { offerId: 'O', productId: 'G', country: 'DE' }],
  ];
  test.each(malformed)('400: %s', async (_name, template) => {
    const body = JSON.parse(JSON.stringify(template).replace('"P"', JSON.stringify(product.id)).replace('"O"', JSON.stringify(offer.id)).replace('"G"', JSON.stringify(giftCard.id))) as Body;
    const { status, body: envelope } = await failure(calculate(body));
    expect([status, envelope]).toEqual([400, ERROR]);
  });

  test('400 for a body that is not JSON', async () => {
    const response = await raw('POST', '/v0/tax/calculate', { headers: { 'x-svc-public-key': ws.publicKey, 'x-svc-secret-key': ws.secretKey }, body: '{"country":' });
    expect([response.status, response.body]).toEqual([400, ERROR]);
  });

  test('404 for an unknown product or offer, and for another workspace\'s or the other mode\'s (tenant isolation)', async () => {
    const other = await newWorkspace('Tax other');
    const theirs = await newProduct(other);
    const testModeProduct = await newProduct(ws, 'DigitalDownload', { mode: 'test' });
    for (const body of [
      { productId: randomUUID(), amount: 1_000, currency: 'EUR', country: 'DE' },
      { offerId: randomUUID(), country: 'DE' },
      { productId: theirs.id, amount: 1_000, currency: 'EUR', country: 'DE' },
      { productId: testModeProduct.id, amount: 1_000, currency: 'EUR', country: 'DE' },
    ]) {
      expect(await failure(calculate(body))).toEqual({ status: 404, body: ERROR });
    }
    expect(await failure(calculate({ offerId: offer.id, country: 'DE' }, other))).toEqual({ status: 404, body: ERROR });
  });

  test('an archived product is not found', async () => {
    const archived = await newProduct(ws);
    await ok(restClient(ws).PATCH('/v0/products/{productId}/archive', { params: { path: { productId: archived.id } } }));
    expect((await failure(calculate({ productId: archived.id, amount: 1_000, currency: 'EUR', country: 'DE' }))).status).toBe(404);
  });

  test('W: the public key alone is 401; the test-mode keys work on test-mode records', async () => {
    expect((await failure(calculate({ offerId: offer.id, country: 'DE' }, ws, { write: false }))).status).toBe(401);
    const testProduct = await newProduct(ws, 'DigitalDownload', { mode: 'test' });
    expect((await ok(calculate({ productId: testProduct.id, amount: 1_000, currency: 'EUR', country: 'AT' }, ws, { mode: 'test' }))).tax).toMatchObject({ taxAmount: 200 });
  });
});
