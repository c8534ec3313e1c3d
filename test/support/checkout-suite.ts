// What the checkout test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { randomUUID } from 'node:crypto';
import type { paths } from '../generated/openapi.js';
import { newWorkspace, type KeyChoice, type Workspace } from './api.js';
import { buyerClient, restClient } from './client.js';
import { ok } from './responses.js';
import { newCatalogue } from './sales.js';

// The hosted checkout's JSON API through the real HTTP surface: buyer routes without keys, records
// read back through /v0 with the element's mode's keys.

export const SLOW = 60_000;
export const TEST: KeyChoice = { mode: 'test' };

export type OrderBody = paths['/checkout/{checkoutElementId}/orders']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;
export type QuoteBody = paths['/checkout/{checkoutElementId}/quote']['post']['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export const card = (number: string) => ({ number, expMonth: 12, expYear: 2034, cvc: '123' });
// Hong Kong levies no VAT: these tests are about prices and discounts; tax at checkout is test/checkout-tax.test.ts.
export const billing = { countryCode: 'HK' };
export const email = () => `buyer-${randomUUID()}@example.com`;

export const pay = (elementId: string, body: Partial<OrderBody> = {}, idempotencyKey?: string) =>
  buyerClient(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }).POST('/checkout/{checkoutElementId}/orders', {
    params: { path: { checkoutElementId: elementId } },
    body: { email: email(), billingDetails: billing, card: card('4242424242424242'), ...body } as OrderBody,
  });
export const quote = (elementId: string, body: Partial<QuoteBody> = {}) =>
  buyerClient().POST('/checkout/{checkoutElementId}/quote', { params: { path: { checkoutElementId: elementId } }, body: body as QuoteBody });

export async function newElement(ws: Workspace, offersIds: string[], key: KeyChoice = {}) {
  return (await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds } }))).checkoutElement;
}

/** A product with an offer (price, extra offer fields) sold through its own element. */
export async function shop(ws: Workspace, price = 1000, offer: Record<string, unknown> = {}, key: KeyChoice = {}) {
  const catalogue = await newCatalogue(ws, price, key, offer);
  const element = await newElement(ws, [catalogue.offer.id], key);
  return { ...catalogue, element };
}

export async function newDiscount(ws: Workspace, body: Record<string, unknown>, key: KeyChoice = {}) {
  return (await ok(restClient(ws, key).POST('/v0/discounts/create', { body: body as never }))).discount;
}

export const offerNow = async (ws: Workspace, offerId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/offers/{offerId}', { params: { path: { offerId } } }))).offer;
export const discountNow = async (ws: Workspace, discountId: string) =>
  (await ok(restClient(ws, { write: false }).GET('/v0/discounts/{discountId}', { params: { path: { discountId } } }))).discount;
export const orderNow = async (ws: Workspace, orderIdOrNumber: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber } } }))).order;
export const paymentNow = async (ws: Workspace, paymentId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/payments/{paymentId}', { params: { path: { paymentId } } }))).payment;
export const ordersOf = async (ws: Workspace, checkoutId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/orders/list', { params: { query: { checkoutIds: [checkoutId], returnCount: true } } }))).orders;

export let ws: Workspace;
beforeAll(async () => {
  ws = await newWorkspace('Checkout', ['testMode=true']);
}, SLOW);
