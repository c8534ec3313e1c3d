import { randomUUID } from 'node:crypto';

import type { KeyChoice, Workspace } from './api.js';
import { card, orderBody, placeOrder } from './checkout.js';
import { restClient } from './client.js';
import { ok } from './responses.js';
import { newCatalogue, salesDb } from './sales.js';

// Subscriptions as an integrator drives them (typed from the published OpenAPI document, every
// answer checked against it), bought through the hosted checkout in test mode.

export const TEST: KeyChoice = { mode: 'test' };
export const VISA = '4242424242424242';
/** Saved fine, every later off-session charge declined (generic_decline: dunning retries it). */
export const DECLINES_OFF_SESSION = '4000000000000341';
/** Declined expired_card: a hard decline (no retries). */
export const EXPIRED = '4000000000000069';

export const DAY = 24 * 60 * 60;

/** A monthly (or other) subscription offer sold through its own checkout element, in test mode. */
export async function subscriptionElement(ws: Workspace, price = 900, offer: Record<string, unknown> = { recurringInterval: 'month' }, key: KeyChoice = TEST) {
  const catalogue = await newCatalogue(ws, price, key, offer);
  const { checkoutElement } = await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds: [catalogue.offer.id] } }));
  return checkoutElement.id as string;
}

/** Buys the subscription with `cardNumber` and waits until its workflow gave the first period its end. */
export async function subscribe(ws: Workspace, elementId: string, options: { cardNumber?: string; quantity?: number; billingDetails?: Record<string, unknown>; discountCode?: string } = {}) {
  const body = orderBody({
    card: card(options.cardNumber ?? VISA), quantity: options.quantity ?? 1,
    ...(options.discountCode ? { discountCode: options.discountCode } : {}),
    ...(options.billingDetails ? { billingDetails: options.billingDetails as never } : {}),
  });
  const { order } = await placeOrder(elementId, body, randomUUID());
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const row = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: order.number } });
    if (row.currentPeriodEnd) return { order, subscription: row };
  }
  throw new Error('the subscription workflow never started');
}

export const advance = (ws: Workspace, id: string, to: number, key: KeyChoice = TEST) =>
  restClient(ws, key).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { params: { path: { subscriptionIdOrNumber: id } }, body: { to } });

export const cancel = (ws: Workspace, id: string, body: { cancelAtIntervalEnd?: boolean; cancelOption?: string } = {}, key: KeyChoice = TEST) =>
  restClient(ws, key).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { params: { path: { subscriptionIdOrNumber: id } }, body });

export const lifecycle = (ws: Workspace, action: 'undo-cancel' | 'pause' | 'resume', id: string, key: KeyChoice = TEST) =>
  restClient(ws, key).PATCH(`/v0/subscriptions/{subscriptionIdOrNumber}/${action}`, { params: { path: { subscriptionIdOrNumber: id } }, body: {} });

export const replaceCard = (ws: Workspace, id: string, testCard: string, key: KeyChoice = TEST) =>
  restClient(ws, key).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method', { params: { path: { subscriptionIdOrNumber: id } }, body: { testCard } });

/** The subscription's payments (first payment, then renewals), oldest first, with their charges. */
export const paymentsOf = (subscriptionId: string) =>
  salesDb().payment.findMany({ where: { subscriptionId }, orderBy: { sequence: 'asc' }, include: { charges: { orderBy: { attempt: 'asc' } } } });

export const subscriptionEvents = async (ws: Workspace, number: string) => {
  const rows = await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type: { startsWith: 'subscription_' } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.filter((row) => (row.payload as { subscription?: { id?: string } }).subscription?.id === number);
};

/** The subscription's workflow id (its business key, src/subscriptions/service.ts). */
export const subscriptionWorkflowId = (ws: Workspace, number: string) => `subscription/${ws.workspaceId}/${number}`;

/** Unix seconds of a Date. */
export const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
