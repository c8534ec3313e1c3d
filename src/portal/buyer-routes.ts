// The signed-in buyer's pages and forms: orders (list, one order, its downloads, a download) and
// subscriptions (list, one, cancel, the payment method, a plan switch, undo, pause, resume). A
// form answers with a redirect to the page that shows its outcome (POST, redirect, GET: reloading
// that page sends nothing again).
import { randomUUID } from 'node:crypto';

import { changeSubscription, downloadUrl, paymentMethodUrl, previewSwitch, switchPlan, type SubscriptionChange } from './actions.js';
import { actionAddressBudget, actionBuyerBudget } from './budgets.js';
import { buyerOrder, buyerOrders, buyerSubscription, buyerSubscriptions } from './buyer.js';
import { portalPath } from './pages/layout.js';
import { csrfRefusedPage, methodNotAllowedPage } from './pages/messages.js';
import { downloadsPage, orderPage, ordersPage } from './pages/orders.js';
import { cancelPage, paymentMethodPage, subscriptionPage, subscriptionsPage, switchPage } from './pages/subscriptions.js';
import type { Buyer } from './sessions.js';
import type { Visit } from './visit.js';

/** What a redirect after a subscription form says, by the outcome's code. */
const DONE: Record<string, { kind: 'success' | 'error' | 'info'; text: string }> = {
  'cancel-scheduled': { kind: 'success', text: 'Your subscription will end at the end of the period. You can keep it until then.' },
  cancelled: { kind: 'success', text: 'Your subscription is cancelled.' },
  kept: { kind: 'success', text: 'Your subscription continues.' },
  paused: { kind: 'success', text: 'Your subscription is paused: nothing is charged until you resume it.' },
  resumed: { kind: 'success', text: 'Your subscription is active again.' },
  switched: { kind: 'success', text: 'Your plan is changed.' },
  'switch-pending': { kind: 'info', text: 'The payment for the change is being processed: the plan changes once it is paid.' },
  'switch-declined': { kind: 'error', text: 'The payment for the change was declined: your plan is unchanged.' },
};

const done = (visit: Visit) => DONE[visit.url.searchParams.get('done') ?? ''] ?? null;

export async function routeBuyer(visit: Visit, buyer: Buyer, rest: string[]): Promise<Response | null> {
  const [section, ref, page, itemId, action, ...extra] = rest;
  if (extra.length) return null;
  if (section === 'orders') return orders(visit, buyer, ref, page, itemId, action);
  if (section === 'subscriptions' && itemId === undefined) return subscriptions(visit, buyer, ref, page);
  return null;
}

const deps = (visit: Visit) => ({ prisma: visit.endpoint.prisma, temporal: visit.endpoint.temporal, rateLimits: visit.endpoint.rateLimits });
const frameOf = (visit: Visit, buyer: Buyer) => ({ workspace: visit.workspace, buyer, title: '', notice: done(visit) });

/** A form's fields once its CSRF token and the budgets of its address and buyer allow it; null when refused. */
const buyerForm = (visit: Visit, buyer: Buyer) =>
  visit.form([
    { rule: actionAddressBudget, key: visit.endpoint.client },
    { rule: actionBuyerBudget, key: buyer.userId },
  ]);

async function orders(visit: Visit, buyer: Buyer, number?: string, page?: string, itemId?: string, action?: string): Promise<Response | null> {
  const { prisma } = visit.endpoint;
  const frame = frameOf(visit, buyer);
  if (visit.method === 'POST') {
    if (!number || page !== 'items' || !itemId || action !== 'download') return null;
    if (!(await buyerForm(visit, buyer))) return visit.page(csrfRefusedPage(visit.workspace, buyer));
    return visit.redirect(await downloadUrl(deps(visit), buyer, number, itemId, visit.url.origin, visit.now));
  }
  if (itemId !== undefined) return null;
  if (number === undefined) {
    const requested = Number(visit.url.searchParams.get('page') ?? '1');
    const current = Number.isSafeInteger(requested) && requested >= 1 && requested <= 10_000 ? requested : 1;
    return visit.page(ordersPage(frame, { ...(await buyerOrders(prisma, buyer, current)), page: current }));
  }
  if (page === undefined) return visit.page(orderPage(frame, await buyerOrder(prisma, buyer, number), visit.url.searchParams.get('key')));
  if (page === 'downloads') return visit.page(downloadsPage(frame, await buyerOrder(prisma, buyer, number)));
  return null;
}

const CHANGE_FORMS: Record<string, SubscriptionChange | null> = { 'undo-cancel': 'undo-cancel', pause: 'pause', resume: 'resume', cancel: null };

async function subscriptions(visit: Visit, buyer: Buyer, number?: string, page?: string): Promise<Response | null> {
  const { prisma } = visit.endpoint;
  const { workspace } = visit;
  const frame = frameOf(visit, buyer);
  if (number === undefined) {
    if (visit.method !== 'GET') return visit.page(methodNotAllowedPage(workspace, buyer));
    return visit.page(subscriptionsPage(frame, await buyerSubscriptions(prisma, buyer)));
  }
  const here = portalPath(workspace.id, `subscriptions/${encodeURIComponent(number)}`);
  if (visit.method === 'POST') {
    if (page === undefined || !(page in CHANGE_FORMS || page === 'switch' || page === 'payment-method')) return null;
    const fields = await buyerForm(visit, buyer);
    if (!fields) return visit.page(csrfRefusedPage(workspace, buyer));
    if (page === 'payment-method') return visit.redirect(await paymentMethodUrl(deps(visit), buyer, number, visit.url.origin, visit.now));
    if (page === 'switch') {
      const { payment } = await switchPlan(deps(visit), workspace, buyer, number, fields.get('offerId') ?? '', fields.get('key') ?? '');
      const outcome = !payment || payment.status === 'PAID' ? 'switched' : payment.status === 'PENDING' ? 'switch-pending' : 'switch-declined';
      return visit.redirect(`${here}?done=${outcome}`);
    }
    const change = CHANGE_FORMS[page] ?? (fields.get('when') === 'now' ? 'cancel-now' : 'cancel-at-period-end');
    const after = await changeSubscription(deps(visit), workspace, buyer, number, change);
    const outcome = after.status === 'cancelled' ? 'cancelled' : after.cancelAtPeriodEnd ? 'cancel-scheduled' : after.status === 'paused' ? 'paused' : change === 'resume' ? 'resumed' : 'kept';
    return visit.redirect(`${here}?done=${outcome}`);
  }
  if (visit.method !== 'GET') return visit.page(methodNotAllowedPage(workspace, buyer));
  const offerId = visit.url.searchParams.get('offerId');
  if (page === 'switch') {
    const { subscription, preview } = await previewSwitch(deps(visit), workspace, buyer, number, offerId ?? '');
    return visit.page(switchPage(frame, subscription, preview, `portal-${randomUUID()}`));
  }
  const details = await buyerSubscription(prisma, workspace, buyer, number);
  if (page === undefined) return visit.page(subscriptionPage(frame, details, offerId?.toLowerCase() ?? null));
  if (page === 'cancel') return visit.page(cancelPage(frame, details));
  if (page === 'payment-method') return visit.page(paymentMethodPage(frame, details));
  return null;
}
