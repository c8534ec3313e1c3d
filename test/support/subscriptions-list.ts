import { randomUUID } from 'node:crypto';
import type { operations } from '../generated/openapi.js';
import type { KeyChoice, Workspace } from './api.js';
import { card, orderBody, payCheckout } from './checkout.js';
import { restClient } from './client.js';
import { ok } from './responses.js';
import { newCatalogue, salesDb } from './sales.js';

// Reading subscriptions as an integrator does (GET /v0/subscriptions/list, cursor pagination, and
// the details), and the subscriptions to read, bought through the hosted checkout: shared by the
// read tests and the long walk (test/subscriptions-walk.test.ts), a file of its own so that the
// suite's workers share the time.

const TEST: KeyChoice = { mode: 'test' };

export type ListQuery = NonNullable<operations['subscriptions']['parameters']['query']>;
export type Row = { id: string; createdAt: number; status: string; amount: number };

const reader = (ws: Workspace, key: KeyChoice) => restClient(ws, { ...key, write: false });
export const list = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = TEST) => reader(ws, key).GET('/v0/subscriptions/list', { params: { query } });
export const details = (ws: Workspace, subscriptionIdOrNumber: string, key: KeyChoice = TEST) =>
  reader(ws, key).GET('/v0/subscriptions/{subscriptionIdOrNumber}', { params: { path: { subscriptionIdOrNumber } } });
export const orderOf = async (ws: Workspace, number: string, key: KeyChoice = TEST) =>
  (await ok(reader(ws, key).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: number } } }))).order;

/** A monthly subscription offer sold through its own checkout element, in the key's mode. */
export async function monthlyElement(ws: Workspace, key: KeyChoice = TEST, price = 900) {
  const { offer } = await newCatalogue(ws, price, key, { recurringInterval: 'month' });
  const { checkoutElement } = await ok(restClient(ws, key).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  return checkoutElement.id as string;
}

/** Buys the element's subscription offer through the hosted checkout; the subscription's number (its order's). */
export async function buy(elementId: string, email = `buyer-${randomUUID()}@example.com`): Promise<string> {
  const { status, body } = await payCheckout(elementId, orderBody({ email, card: card() }));
  if (status !== 200) throw new Error(`checkout answered ${status}: ${JSON.stringify(body)}`);
  const { order } = body.data as { order: { number: string; subscriptionId: string | null } };
  if (order.subscriptionId !== order.number) throw new Error(`not a subscription order: ${JSON.stringify(order)}`);
  return order.number;
}

/** `count` checkouts spread over the elements, `concurrency` at a time; numbers in completion order. */
export async function buyMany(elements: string[], count: number, concurrency: number, onEach?: (number: string) => void) {
  const numbers: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const number = await buy(elements[index % elements.length]!);
        numbers.push(number);
        onEach?.(number);
      }
    }),
  );
  return numbers;
}

export interface Walk {
  rows: Row[];
  pages: { size: number; count: number | null; hasMore: boolean; cursor: string | null }[];
}

/** Follows hasMore from the first page, as the contract tells integrators to; `between` runs after each page. */
export async function walk(ws: Workspace, query: ListQuery, key: KeyChoice = TEST, between?: () => Promise<void>): Promise<Walk> {
  const result: Walk = { rows: [], pages: [] };
  let cursor: string | undefined;
  for (;;) {
    const page = await ok(list(ws, { ...query, ...(cursor ? { cursor } : {}) }, key));
    result.rows.push(...(page.subscriptions as Row[]));
    result.pages.push({ size: page.subscriptions.length, count: page.count ?? null, hasMore: page.hasMore, cursor: page.cursor ?? null });
    if (!page.hasMore) return result;
    if (!page.cursor) throw new Error('hasMore without a cursor');
    cursor = page.cursor;
    if (result.pages.length > 10_000) throw new Error('the walk does not end');
    await between?.();
  }
}

/** The exact creation time of each subscription (the API shows seconds), from the database. */
export async function createdAtOf(ws: Workspace, numbers: string[]) {
  const rows = await salesDb().subscription.findMany({ where: { workspaceId: ws.workspaceId, number: { in: numbers } }, select: { number: true, createdAt: true } });
  return new Map(rows.map((row) => [row.number, row.createdAt]));
}
