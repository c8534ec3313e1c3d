import { randomUUID } from 'node:crypto';
import { quoteCheckout as quoteService, createCheckoutOrder } from '../src/checkout/sale-service.js';
import { createPaymentActivities } from '../src/payments/activities.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { card, orderBody, payCheckout, quoteCheckout, tally } from './support/checkout.js';
import { ERROR, ok } from './support/responses.js';
import { newCatalogue, salesDb } from './support/sales.js';
import { ownQueueWorker } from './support/temporal-worker.js';

// The checkout's tax rules through its JSON API (every answer checked against the published
// OpenAPI document): a business buyer's VAT number reverse charges the order; tax only where the
// workspace is registered (not_registered); a location the rate data does not know sold without
// tax (no_data) or refused (noTaxData=refuse); and the rates of the sale's date, from the clock
// the sale service is given.

const SLOW = 60_000;

async function element(ws: Workspace, price: number, currency = 'EUR') {
  const { offer } = await newCatalogue(ws, price, {}, { currency });
  return (await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }))).checkoutElement;
}

const orderDetails = async (ws: Workspace, orderId: string) =>
  (await ok(restClient(ws, { write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order;

let ws: Workspace;
beforeAll(async () => {
  ws = await newWorkspace('Tax rules at checkout');
}, SLOW);

describe('a business buyer\'s VAT number at checkout', () => {
  test('reverse charge on the quote and the order: no VAT, the number kept on the order', async () => {
    const { id } = await element(ws, 10_000);
    const billingDetails = { countryCode: 'DE', postalCode: '10115', taxId: 'de 143 454 214' };
    const { quote } = (await quoteCheckout(id, { billingDetails })).body.data;
    expect(quote).toMatchObject({ tax: 0, total: 10_000, taxes: [], taxReason: 'reverse_charge', taxCalculated: true });
    expect(quote.lines[0]).toMatchObject({ tax: 0, taxReason: 'reverse_charge' });
    const paid = await payCheckout(id, orderBody({ billingDetails }));
    expect(paid.status).toBe(200);
    expect(paid.body.data.order).toMatchObject({ status: 'PAID', value: 10_000, tax: 0, taxId: 'DE143454214', taxReason: 'reverse_charge' });
    expect(await orderDetails(ws, paid.body.data.order.id)).toMatchObject({ tax: 0, taxId: 'DE143454214', taxReason: 'reverse_charge' });
    // The same buyer without a number pays the VAT.
    const consumer = (await payCheckout(id, orderBody({ billingDetails: { countryCode: 'DE', postalCode: '10115' } }))).body.data.order;
    expect(consumer).toMatchObject({ value: 11_900, tax: 1_900, taxId: null, taxReason: null });
  }, SLOW);

  test('a number whose check digits are wrong, or of another country, is 400 and writes nothing', async () => {
    const { id } = await element(ws, 10_000);
    const before = await tally([ws.workspaceId]);
    for (const billingDetails of [{ countryCode: 'DE', postalCode: '10115', taxId: 'DE123456789' }, { countryCode: 'FR', postalCode: '75001', taxId: 'DE143454214' }]) {
      const quote = await quoteCheckout(id, { billingDetails });
      expect([quote.status, quote.body]).toEqual([400, ERROR]);
      expect(quote.body.error.message).toMatch(/^billingDetails\.taxId/);
      const paid = await payCheckout(id, orderBody({ billingDetails }), randomUUID());
      expect([paid.status, paid.body]).toEqual([400, ERROR]);
    }
    expect(await tally([ws.workspaceId])).toEqual(before);
  }, SLOW);
});

describe('tax only where the workspace is registered', () => {
  test('outside its registrations an order carries 0 tax with the reason not_registered; inside, the tax', async () => {
    const registered = await newWorkspace('Registered in the UK', ['taxRegistrations=GB']);
    const { id } = await element(registered, 10_000);
    const { quote } = (await quoteCheckout(id, { billingDetails: { countryCode: 'DE', postalCode: '10115' } })).body.data;
    expect(quote).toMatchObject({ tax: 0, total: 10_000, taxReason: 'not_registered' });
    const germany = (await payCheckout(id, orderBody({ billingDetails: { countryCode: 'DE', postalCode: '10115' } }))).body.data.order;
    expect(germany).toMatchObject({ value: 10_000, tax: 0, taxReason: 'not_registered' });
    const britain = (await payCheckout(id, orderBody({ billingDetails: { countryCode: 'GB', postalCode: 'SW1A 1AA' } }))).body.data.order;
    expect(britain).toMatchObject({ value: 12_000, tax: 2_000, taxReason: null });
  }, SLOW);
});

describe('a location the rate data does not know', () => {
  test('by default sold without tax, with the reason no_data; refused (422, nothing written) with noTaxData=refuse', async () => {
    const seller = await newWorkspace('No tax data');
    const { id } = await element(seller, 10_000, 'USD');
    const billingDetails = { countryCode: 'BR', postalCode: '01310-100' };
    expect((await quoteCheckout(id, { billingDetails })).body.data.quote).toMatchObject({ tax: 0, total: 10_000, taxReason: 'no_data' });
    const sold = (await payCheckout(id, orderBody({ billingDetails }))).body.data.order;
    expect(sold).toMatchObject({ status: 'PAID', value: 10_000, tax: 0, taxReason: 'no_data' });

    await setWorkspace(seller.workspaceId, 'noTaxData=refuse');
    const before = await tally([seller.workspaceId]);
    const quote = await quoteCheckout(id, { billingDetails });
    expect([quote.status, quote.body]).toEqual([422, ERROR]);
    expect(quote.body.error.message).toMatch(/^No tax rate of BR is known for .*: tax cannot be determined$/);
    const refused = await payCheckout(id, orderBody({ billingDetails }), randomUUID());
    expect([refused.status, refused.body]).toEqual([422, ERROR]);
    expect(await tally([seller.workspaceId])).toEqual(before);
    // Where no tax is collected anyway, nothing needs the data.
    await setWorkspace(seller.workspaceId, 'taxRegistrations=DE');
    expect((await payCheckout(id, orderBody({ billingDetails }))).body.data.order).toMatchObject({ tax: 0, taxReason: 'not_registered' });
  }, SLOW);
});

describe('the rates of the sale\'s date, from the injected clock', () => {
  let worker: Awaited<ReturnType<typeof ownQueueWorker>>;
  beforeAll(async () => {
    worker = await ownQueueWorker('checkout-tax-clock', (own) => createPaymentActivities({ prisma: salesDb(), temporal: own }));
  }, SLOW);
  afterAll(async () => {
    await worker?.stop();
  });

  test('a sale of 2023 in Finland is taxed at 24%, one of 2025 at 25.5% (from 1 September 2024)', async () => {
    const { id } = await element(ws, 10_000);
    const billingDetails = { countryCode: 'FI', postalCode: '00100' };
    const in2023 = () => new Date('2023-06-15T12:00:00Z');
    expect(await quoteService(salesDb(), id, { billingDetails }, in2023)).toMatchObject({ tax: 2_400, taxes: [{ type: 'VAT', rate: 0.24, jurisdiction: 'FI', amount: 2_400 }] });
    expect(await quoteService(salesDb(), id, { billingDetails }, () => new Date('2025-06-15T12:00:00Z'))).toMatchObject({ tax: 2_550 });
    const deps = { prisma: salesDb(), temporal: worker.temporal, processor: new SandboxProcessor({ prisma: salesDb() }), now: in2023 };
    const placed = await createCheckoutOrder(deps, id, { email: `buyer-${randomUUID()}@example.com`, billingDetails, card: card() });
    expect(await salesDb().order.findUniqueOrThrow({ where: { id: placed.orderId } })).toMatchObject({ value: 12_400, tax: 2_400, taxReason: null });
  }, SLOW);
});
