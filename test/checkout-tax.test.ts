import { randomUUID } from 'node:crypto';
import { newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { newCodeDiscount, orderBody, payCheckout, quoteCheckout, tally } from './support/checkout.js';
import { ERROR, ok } from './support/responses.js';
import { newCatalogue } from './support/sales.js';

// Tax at the hosted checkout through its JSON API: the quote and the order use the same
// calculation (src/tax), per line; the order records its tax, its billing address and whether the
// prices included the tax; an address tax cannot be determined for is refused before anything is
// written or charged. Every answer is checked against the published OpenAPI document.

const SLOW = 60_000;

async function cart(ws: Workspace, prices: number[], currency = 'EUR') {
  const catalogues = [];
  for (const price of prices) catalogues.push(await newCatalogue(ws, price, {}, { currency }));
  const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: catalogues.map((c) => c.offer.id) } }));
  return { element: checkoutElement, catalogues };
}

const orderDetails = async (ws: Workspace, orderIdOrNumber: string) =>
  (await ok(restClient(ws, { write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber } } }))).order;

let exclusive: Workspace;
let inclusive: Workspace;
beforeAll(async () => {
  exclusive = await newWorkspace('Tax checkout');
  inclusive = await newWorkspace('Tax checkout inclusive', ['pricesIncludeTax=true']);
}, SLOW);

describe('quote and pay compute the same tax', () => {
  test('exclusive prices, a cart with a code: each line taxed after its discount; the order equals the quote', async () => {
    const { element, catalogues } = await cart(exclusive, [1000, 500]);
    const code = await newCodeDiscount(exclusive, { currency: 'EUR' });
    const billingDetails = { countryCode: 'DE', postalCode: '10115' };
    const { quote } = (await quoteCheckout(element.id, { quantity: 2, discountCode: code.discountCode, billingDetails })).body.data;
    // 2000 - 200 = 1800 and 1000 - 100 = 900; 19%: 342 and 171.
    expect(quote.lines.map((l: { tax: number; total: number }) => [l.tax, l.total])).toEqual([[342, 2142], [171, 1071]]);
    expect(quote).toMatchObject({ subtotal: 3000, tax: 513, total: 3213, taxInclusive: false, taxCalculated: true, taxes: [{ type: 'VAT', rate: 0.19, jurisdiction: 'DE', amount: 513 }] });

    const paid = await payCheckout(element.id, orderBody({ quantity: 2, discountCode: code.discountCode, billingDetails }));
    expect(paid.status).toBe(200);
    const { order, payment } = paid.body.data;
    expect(order).toMatchObject({ status: 'PAID', value: quote.total, tax: quote.tax, country: 'DE', billingState: null, billingPostalCode: '10115', taxInclusive: false });
    expect(payment).toMatchObject({ amount: quote.total, tax: quote.tax });
    // The platform fee is on the value without tax: 5% of 2700 + 50.
    expect(order.fee).toBe(185);
    const details = await orderDetails(exclusive, order.id);
    expect(details.items.map((i: { offerId: string; tax: number; total: number; taxInclusive: boolean }) => [i.offerId, i.tax, i.total, i.taxInclusive])).toEqual([
      [catalogues[0]!.offer.id, 342, 2142, false],
      [catalogues[1]!.offer.id, 171, 1071, false],
    ]);
  }, SLOW);

  test('inclusive prices (pricesIncludeTax): the tax is within the price, the value is the price', async () => {
    const { element } = await cart(inclusive, [11_900]);
    const billingDetails = { countryCode: 'FR', postalCode: '75001' };
    const { quote } = (await quoteCheckout(element.id, { billingDetails })).body.data;
    // 11900 / 1.2 = 9916.67 -> 9917 net, 1983 VAT.
    expect(quote).toMatchObject({ subtotal: 11_900, tax: 1_983, total: 11_900, taxInclusive: true, taxes: [{ type: 'VAT', rate: 0.2, jurisdiction: 'FR', amount: 1_983 }] });
    const { order } = (await payCheckout(element.id, orderBody({ billingDetails }))).body.data;
    expect(order).toMatchObject({ value: 11_900, tax: 1_983, taxInclusive: true, fee: Math.floor((9_917 * 500 + 5_000) / 10_000) + 50 });
    const [item] = (await orderDetails(inclusive, order.number)).items;
    expect(item).toMatchObject({ subtotal: 11_900, tax: 1_983, total: 11_900, taxInclusive: true });
  }, SLOW);

  test('Canada and the US: state and postal code recorded; a state that does not tax digital goods charges none', async () => {
    const { element } = await cart(exclusive, [10_000], 'USD');
    const quebec = { countryCode: 'CA', postalCode: 'h2x 1y4', state: 'qc' };
    const { order } = (await payCheckout(element.id, orderBody({ billingDetails: quebec }))).body.data;
    expect(order).toMatchObject({ value: 11_498, tax: 1_498, country: 'CA', billingState: 'QC', billingPostalCode: 'h2x 1y4' });
    const { order: california } = (await payCheckout(element.id, orderBody({ billingDetails: { countryCode: 'US', postalCode: '94107', state: 'CA' } }))).body.data;
    expect(california).toMatchObject({ value: 10_000, tax: 0, billingState: 'CA', billingPostalCode: '94107' });
  }, SLOW);

  test('a quote without billing details has no tax yet and says so', async () => {
    const { element } = await cart(exclusive, [1000]);
    expect((await quoteCheckout(element.id, {})).body.data.quote).toMatchObject({ tax: 0, total: 1000, taxCalculated: false, taxes: [] });
  }, SLOW);
});

describe('an address tax cannot be determined for: 422 before anything is written or charged; malformed: 400', () => {
  const undetermined = [
    ['a US address without a state', { countryCode: 'US', postalCode: '98101' }],
    ['an unknown state', { countryCode: 'US', postalCode: '98101', state: 'ZZ' }],
    ['a ZIP code not in the state', { countryCode: 'US', postalCode: '98101', state: 'CA' }],
    ['a Canadian address without a province', { countryCode: 'CA', postalCode: 'M5V 3L9' }],
  ] as const;
  test.each(undetermined)('%s', async (_name, billingDetails) => {
    const { element } = await cart(exclusive, [1000], 'USD');
    const before = await tally([exclusive.workspaceId]);
    const quote = await quoteCheckout(element.id, { billingDetails });
    expect([quote.status, quote.body]).toEqual([422, ERROR]);
    expect(quote.body.error.message).toMatch(/cannot be determined/);
    const paid = await payCheckout(element.id, orderBody({ billingDetails }), randomUUID());
    expect([paid.status, paid.body]).toEqual([422, ERROR]);
    expect(await tally([exclusive.workspaceId])).toEqual(before);
  }, SLOW);

  test('a malformed postal code is 400, nothing written', async () => {
    const { element } = await cart(exclusive, [1000], 'USD');
    const before = await tally([exclusive.workspaceId]);
    const billingDetails = { countryCode: 'US', postalCode: 'ABCDE', state: 'WA' };
    expect((await quoteCheckout(element.id, { billingDetails })).status).toBe(400);
    expect((await payCheckout(element.id, orderBody({ billingDetails }))).status).toBe(400);
    expect(await tally([exclusive.workspaceId])).toEqual(before);
  }, SLOW);
});
