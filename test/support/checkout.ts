import { randomUUID } from 'node:crypto';
import type { operations } from '../generated/openapi.js';
import type { ApiResponse, KeyChoice, Workspace } from './api.js';
import { buyerClient, restClient } from './client.js';
import { ok } from './responses.js';
import { newCatalogue, salesDb } from './sales.js';

// The hosted checkout's JSON API as an integrator's front end calls it: no API keys, the element
// id in the path (public, like a payment link), an optional Idempotency-Key header. Requests are
// typed from the published OpenAPI document and every answer is checked against it (buyerClient).

export const CARD_OK = '4242424242424242';
export const CARD_DECLINED = '4000000000000002';

export const card = (number = CARD_OK) => ({ number, expMonth: 12, expYear: new Date().getUTCFullYear() + 5, cvc: '123' });

/** The body of POST /checkout/{checkoutElementId}/orders, as the published document types it. */
export type CheckoutBody = NonNullable<operations['createCheckoutOrder']['requestBody']>['content']['application/json'];
/** The body of POST /checkout/{checkoutElementId}/quote. */
export type QuoteBody = NonNullable<NonNullable<operations['checkoutQuote']['requestBody']>['content']['application/json']>;

/** A body the pay route accepts: a fresh buyer in Hong Kong (no VAT: the value is the price), the succeeding test card. */
export const orderBody = (extra: Partial<CheckoutBody> = {}): CheckoutBody => ({
  email: `buyer-${randomUUID()}@example.com`,
  billingDetails: { countryCode: 'HK' },
  card: card(),
  ...extra,
});

export const checkoutPath = (checkoutElementId: string, action?: 'quote' | 'orders') =>
  `/checkout/${encodeURIComponent(checkoutElementId)}${action ? `/${action}` : ''}`;

/** A typed client's answer in the shape raw() gives: status, headers and the parsed body (the envelope). */
async function answered(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<ApiResponse> {
  const { data, error, response } = await pending;
  return { status: response.status, headers: response.headers, body: data ?? error };
}

/** POST /checkout/{id}/orders through the typed buyer client; `idempotencyKey` becomes the Idempotency-Key header. */
export const payCheckout = (checkoutElementId: string, body: CheckoutBody, idempotencyKey?: string, url?: string): Promise<ApiResponse> =>
  answered(
    buyerClient({}, url).POST('/checkout/{checkoutElementId}/orders', {
      params: { path: { checkoutElementId }, header: idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey } },
      body,
    }),
  );

/** The order and payment of a checkout answered 200 (PAID, or PENDING for the manual method). */
export interface PlacedOrder {
  order: { id: string; number: string; value: number; fee: number; status: string; userId: string };
  payment: { id: string; status: string };
}

/** A checkout that must be answered 200 (a test's setup; tests of the answer itself use payCheckout): its order and payment. */
export async function placeOrder(checkoutElementId: string, body: CheckoutBody = orderBody(), idempotencyKey?: string, url?: string): Promise<PlacedOrder> {
  const { status, body: answer } = await payCheckout(checkoutElementId, body, idempotencyKey, url);
  if (status !== 200) throw new Error(`checkout answered ${status}: ${JSON.stringify(answer)}`);
  return answer.data as PlacedOrder;
}

/** POST /checkout/{id}/quote through the typed buyer client. */
export const quoteCheckout = (checkoutElementId: string, body: QuoteBody): Promise<ApiResponse> =>
  answered(buyerClient().POST('/checkout/{checkoutElementId}/quote', { params: { path: { checkoutElementId } }, body }));

/** A product, a one-time offer of it and an ACTIVE checkout element selling it, in the key's mode. */
export async function newCheckout(ws: Workspace, options: { price?: number; limit?: number | null; key?: KeyChoice } = {}) {
  const { price = 1000, limit = null, key = {} } = options;
  const catalogue = await newCatalogue(ws, price, key, limit === null ? {} : { limit });
  const { checkoutElement } = await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds: [catalogue.offer.id] } }));
  return { ...catalogue, element: checkoutElement };
}

/** A code discount (10% off every offer unless `body` says otherwise), in the key's mode. */
export async function newCodeDiscount(ws: Workspace, body: Record<string, unknown> = {}, key: KeyChoice = {}) {
  const code = `FUZZ${randomUUID().slice(0, 8).toUpperCase()}`;
  const { discount } = await ok(
    restClient(ws, key).POST('/v0/discounts/create', { body: { type: 'code', discountCode: code, amount: 10, amountType: 'percentage', currency: 'USD', ...body } as never }),
  );
  return discount;
}

/** The offer as GET /v0/offers/{id} shows it (soldItems). */
export const offerOf = async (ws: Workspace, offerId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/offers/{offerId}', { params: { path: { offerId } } }))).offer;

/** The discount as GET /v0/discounts/{id} shows it (timesUsed). */
export const discountOf = async (ws: Workspace, discountId: string, key: KeyChoice = {}) =>
  (await ok(restClient(ws, { ...key, write: false }).GET('/v0/discounts/{discountId}', { params: { path: { discountId } } }))).discount;

/** The element's orders through GET /v0/orders/list?checkoutIds=...&returnCount=true (up to 100). */
export async function ordersOfCheckout(ws: Workspace, checkoutElementId: string, key: KeyChoice = {}) {
  const { orders, count } = await ok(
    restClient(ws, { ...key, write: false }).GET('/v0/orders/list', { params: { query: { checkoutIds: [checkoutElementId], returnCount: true, take: 100 } } }),
  );
  return { orders, count };
}

/**
 * Polls `read` until `done` holds and returns that value; throws, with the last value read, when the
 * time is up first. A minute: what it waits for (a workflow, a dispatcher's round) runs in processes
 * that a CI machine with both cores busy can slow several times over.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`eventually: not done after ${timeoutMs} ms; last value read: ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The charges recorded at the processor boundary for a payment (the Charge table). */
export const chargesOf = (paymentId: string) => salesDb().charge.findMany({ where: { paymentId }, orderBy: { attempt: 'asc' } });

/** The charges the sandbox processor itself made for payments (its books): money actually taken. */
export const processorChargesOf = (paymentIds: string[]) => salesDb().sandboxCharge.findMany({ where: { paymentId: { in: paymentIds } } });

/**
 * What a checkout request can write in some workspaces, both modes: records counted and the
 * reservations summed. Equal tallies before and after a rejected request mean it wrote nothing.
 */
export async function tally(workspaceIds: string[]) {
  const db = salesDb();
  const where = { workspaceId: { in: workspaceIds } };
  const [orders, items, payments, charges, users, events, idempotencyKeys, offers, discounts] = await Promise.all([
    db.order.count({ where }),
    db.orderItem.count({ where: { order: where } }),
    db.payment.count({ where }),
    db.charge.count({ where: { payment: where } }),
    db.user.count({ where }),
    db.event.count({ where }),
    db.idempotencyKey.count({ where }),
    db.offer.aggregate({ where, _sum: { soldItems: true } }),
    db.discount.aggregate({ where, _sum: { timesUsed: true } }),
  ]);
  return { orders, items, payments, charges, users, events, idempotencyKeys, soldItems: offers._sum.soldItems ?? 0, timesUsed: discounts._sum.timesUsed ?? 0 };
}
export type Tally = Awaited<ReturnType<typeof tally>>;
