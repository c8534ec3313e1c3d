// What the checkout-concurrency test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { type ApiResponse, type KeyChoice, type Workspace } from './api.js';
import { 
  type CheckoutBody,
  eventually,
  ordersOfCheckout,
  payCheckout } from './checkout.js';

// The hosted checkout under load, as integrators' front ends use it: many buyers at once through
// the real HTTP server, PostgreSQL and the Temporal payment workflow. Limits are never oversold,
// a discount is never used past its purchaseLimit, a declined card gives its reservation back,
// an Idempotency-Key makes a retried checkout one order and one charge, and concurrent checkouts
// of two workspaces in both modes never see each other's records.

export const SLOW = 240_000;

export const READ: KeyChoice = { write: false };

/** Sends every body at once; the answers in the same order. */
export const inParallel = (elementId: string, bodies: CheckoutBody[], idempotencyKey?: string) => Promise.all(bodies.map((body) => payCheckout(elementId, body, idempotencyKey)));

export const statusesOf = (answers: ApiResponse[]) =>
  answers.reduce<Record<number, number>>((counts, answer) => ({ ...counts, [answer.status]: (counts[answer.status] ?? 0) + 1 }), {});

/** Expected status counts, the zero ones left out (as statusesOf leaves them out). */
export const counted = (expected: Record<number, number>) => Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0));

/** The distinct error messages of the answers with this status (one reason, one message). */
export const messagesOf = (answers: ApiResponse[], status: number) => [...new Set(answers.filter((a) => a.status === status).map((a) => a.body?.error?.message))];

/** Waits until every order of the element has left PENDING, and returns them. */
export async function settledOrders(ws: Workspace, elementId: string, expected: number, key: KeyChoice = {}) {
  return eventually(
    () => ordersOfCheckout(ws, elementId, key),
    ({ orders, count }) => count === expected && orders.every((order) => order.status !== 'PENDING'),
    60_000,
  );
}
