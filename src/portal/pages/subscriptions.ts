// The buyer's subscriptions: the list, one subscription (status, items, the next payment from the
// upcoming-payment computation, and what the buyer may do), and the pages of its actions: cancel
// (now or at the period's end), the payment-method update, and a switch with its proration shown
// before it is confirmed.
import type { Subscription } from '../../generated/prisma/client.js';
import type { BuyerSubscription } from '../buyer.js';
import { escapeHtml, formatMoney, plural } from '../domain-calls.js';
import type { Buyer } from '../sessions.js';
import { csrfField, portalPage, portalPath, type Frame, type PortalPage } from './layout.js';
import { badge, DATE } from './orders.js';

type BuyerFrame = Frame & { buyer: Buyer };

const STATUS: Record<string, [string, string]> = {
  trialing: ['Trial', 'good'],
  active: ['Active', 'good'],
  past_due: ['Payment overdue', 'bad'],
  unpaid: ['Unpaid', 'bad'],
  paused: ['Paused', 'warn'],
  cancelled: ['Cancelled', ''],
  incomplete: ['Awaiting first payment', 'warn'],
  incomplete_expired: ['Not started', ''],
};

const statusBadge = (s: Subscription) => badge(s.cancelAtPeriodEnd && s.status !== 'cancelled' ? ['Ends at period end', 'warn'] : (STATUS[s.status] ?? [s.status, '']), 'subscription-status');

const every = (s: Pick<Subscription, 'recurringInterval' | 'recurringIntervalCount'>) =>
  s.recurringIntervalCount === 1 ? `per ${s.recurringInterval}` : `every ${plural(s.recurringIntervalCount, s.recurringInterval)}`;

const price = (s: Subscription, amount = s.amount) => `${escapeHtml(formatMoney(amount, s.currency))} ${every(s)}`;

const path = (frame: Frame, s: Subscription, page = '') => portalPath(frame.workspace.id, `subscriptions/${s.number}${page ? `/${page}` : ''}`);

/** The next payment, or why there is none. */
function nextPayment(details: Pick<BuyerSubscription, 'subscription' | 'next'>): string {
  const { subscription: s, next } = details;
  if (next) return `${escapeHtml(formatMoney(next.amount, s.currency))}${next.tax ? ` (tax ${escapeHtml(formatMoney(next.tax, s.currency))})` : ''} ${next.retry ? 'retried' : 'on'} ${DATE.format(next.at)}`;
  if (s.status === 'cancelled') return `None: ended ${DATE.format(s.endedAt ?? s.cancelledAt ?? s.updatedAt)}`;
  if (s.cancelAtPeriodEnd && s.currentPeriodEnd) return `None: ends ${DATE.format(s.currentPeriodEnd)}`;
  if (s.status === 'paused') return 'None while paused';
  if (s.status === 'unpaid') return 'None until you update your payment method';
  return 'None scheduled';
}

export function subscriptionsPage(frame: BuyerFrame, list: { subscription: Subscription; items: { name: string }[] }[]): PortalPage {
  const entries = list
    .map(({ subscription: s, items }) => `<li>
<div class="row-head"><a href="${path(frame, s)}"><strong>${escapeHtml(items.map((i) => i.name).join(', ') || 'Subscription')}</strong></a>${statusBadge(s)}</div>
<p class="muted">${price(s)} \u00b7 ${escapeHtml(s.number)}</p>
</li>`)
    .join('\n');
  const body = list.length ? `<ul class="plain" id="subscriptions">\n${entries}\n</ul>` : '<p id="no-subscriptions">No subscriptions.</p>';
  return portalPage(200, { ...frame, title: 'Your subscriptions', current: 'subscriptions' }, `<h1>Your subscriptions</h1>\n<div class="card">\n${body}\n</div>`);
}

function actions(frame: BuyerFrame, details: BuyerSubscription): string {
  const { subscription: s, can } = details;
  const form = (page: string, text: string, id: string, kind = '') =>
    `<form method="post" action="${path(frame, s, page)}">${csrfField(frame.buyer.csrf)}<button type="submit" id="${id}"${kind ? ` class="${kind}"` : ''}>${text}</button></form>`;
  const buttons = [
    can.undoCancel ? form('undo-cancel', 'Keep my subscription', 'undo-cancel', 'primary') : '',
    can.resume ? form('resume', 'Resume', 'resume', 'primary') : '',
    can.pause ? form('pause', 'Pause', 'pause') : '',
    can.updatePaymentMethod ? `<a class="button" id="update-payment-method" href="${path(frame, s, 'payment-method')}">Update payment method</a>` : '',
    can.cancel && !s.cancelAtPeriodEnd ? `<a class="button" id="cancel" href="${path(frame, s, 'cancel')}">Cancel subscription</a>` : '',
  ].filter(Boolean);
  return buttons.length ? `<div class="actions">\n${buttons.join('\n')}\n</div>` : '';
}

function switchForm(frame: BuyerFrame, details: BuyerSubscription, preselected: string | null): string {
  const { subscription: s, switchTo } = details;
  if (!switchTo.length) return '';
  const options = switchTo
    .map((offer) => `<option value="${offer.id}"${offer.id === preselected ? ' selected' : ''}>${escapeHtml(offer.name)}: ${escapeHtml(formatMoney(offer.price, s.currency))} ${every(s)}</option>`)
    .join('');
  return `<section class="card" aria-labelledby="switch-heading">
<h2 id="switch-heading">Change plan</h2>
<form method="get" action="${path(frame, s, 'switch')}">
<label for="offer">New plan</label>
<select id="offer" name="offerId" required>${options}</select>
<div class="actions"><button type="submit" id="preview-switch">See the price</button></div>
</form>
</section>`;
}

export function subscriptionPage(frame: BuyerFrame, details: BuyerSubscription, preselectedOffer: string | null): PortalPage {
  const { subscription: s, items } = details;
  const name = items.map((i) => i.name).join(', ') || 'Subscription';
  const lines = items.map((item) => `<li>${escapeHtml(item.name)}${item.quantity > 1 ? ` \u00d7 ${item.quantity}` : ''}</li>`).join('\n');
  const facts = [
    ['Status', statusBadge(s)],
    ['Price', price(s)],
    ['Next payment', `<span id="next-payment">${nextPayment(details)}</span>`],
    s.currentPeriodEnd && s.status !== 'cancelled' ? ['Current period', `${s.currentPeriodStart ? `${DATE.format(s.currentPeriodStart)} to ` : 'until '}${DATE.format(s.currentPeriodEnd)}`] : null,
    s.trialEndsAt && s.status === 'trialing' ? ['Trial ends', DATE.format(s.trialEndsAt)] : null,
    ['Reference', escapeHtml(s.number)],
  ].filter((fact): fact is string[] => fact !== null);
  const body = `<h1>${escapeHtml(name)}</h1>
<div class="card">
<ul class="plain" id="subscription-items">
${lines}
</ul>
<dl class="facts">
${facts.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join('\n')}
</dl>
${s.cancelAtPeriodEnd && s.status !== 'cancelled' && s.currentPeriodEnd ? `<p class="notice info" id="cancel-scheduled">Your subscription ends on ${DATE.format(s.currentPeriodEnd)}. Nothing more will be charged.</p>` : ''}
${actions(frame, details)}
</div>
${switchForm(frame, details, preselectedOffer)}
<p><a href="${portalPath(frame.workspace.id, `orders/${s.number}`)}">The order that started it</a></p>`;
  return portalPage(200, { ...frame, title: name, current: 'subscriptions' }, body);
}

export function cancelPage(frame: BuyerFrame, details: BuyerSubscription): PortalPage {
  const { subscription: s } = details;
  // Which of the two the subscription allows is the subscriptions service's rule: the page after says what it did.
  const end = s.currentPeriodEnd ? DATE.format(s.currentPeriodEnd) : null;
  const body = `<h1>Cancel your subscription</h1>
<div class="card">
<form method="post" action="${path(frame, s, 'cancel')}">
${csrfField(frame.buyer.csrf)}
<fieldset><legend>When should it end?</legend>
${end ? `<label class="choice"><input type="radio" name="when" value="period-end" id="when-period-end" checked> <span>At the end of the period, on ${end}: you keep it until then</span></label>` : ''}
<label class="choice"><input type="radio" name="when" value="now" id="when-now"${end ? '' : ' checked'}> <span>Now: it ends at once, without a refund</span></label>
</fieldset>
<div class="actions"><button type="submit" class="danger" id="confirm-cancel">Cancel subscription</button><a href="${path(frame, s)}">Keep it</a></div>
</form>
</div>`;
  return portalPage(200, { ...frame, title: 'Cancel your subscription', current: 'subscriptions' }, body);
}

export function paymentMethodPage(frame: BuyerFrame, details: BuyerSubscription): PortalPage {
  const { subscription: s, can } = details;
  const body = can.updatePaymentMethod
    ? `<h1>Update your payment method</h1>
<div class="card">
<p>The next payments of this subscription are charged to the card you enter on the secure payment page.${s.status === 'past_due' || s.status === 'unpaid' ? ' The overdue payment is charged to it at once.' : ''}</p>
<form method="post" action="${path(frame, s, 'payment-method')}">${csrfField(frame.buyer.csrf)}
<div class="actions"><button type="submit" class="primary" id="continue-payment-method">Continue to the payment page</button><a href="${path(frame, s)}">Back</a></div>
</form>
</div>`
    : `<h1>Update your payment method</h1>
<div class="card" id="payment-method-unavailable"><p>The payment method of this subscription cannot be changed here now.</p><p><a href="${path(frame, s)}">Back to the subscription</a></p></div>`;
  return portalPage(200, { ...frame, title: 'Update your payment method', current: 'subscriptions' }, body);
}

export interface SwitchPreview {
  offer: { id: string; name: string };
  net: number;
  tax: number;
  periodAmount: number;
}

export function switchPage(frame: BuyerFrame, s: Subscription, preview: SwitchPreview, key: string): PortalPage {
  const money = (amount: number) => escapeHtml(formatMoney(amount, s.currency));
  const now =
    preview.net > 0
      ? `<strong>${money(preview.net)}</strong> is charged now for the rest of the current period${preview.tax ? ` (tax ${money(preview.tax)})` : ''}.`
      : preview.net < 0
        ? `<strong>${money(-preview.net)}</strong> of the current period is credited to your next payments.`
        : 'Nothing is charged now.';
  const body = `<h1>Change plan to ${escapeHtml(preview.offer.name)}</h1>
<div class="card" id="switch-preview">
<dl class="facts">
<dt>New price</dt><dd id="switch-price">${price(s, preview.periodAmount)}</dd>
<dt>Now</dt><dd id="switch-now">${now}</dd>
</dl>
<form method="post" action="${path(frame, s, 'switch')}">
${csrfField(frame.buyer.csrf)}
<input type="hidden" name="offerId" value="${preview.offer.id}">
<input type="hidden" name="key" value="${escapeHtml(key)}">
<div class="actions"><button type="submit" class="primary" id="confirm-switch">Confirm the change</button><a href="${path(frame, s)}">Keep the current plan</a></div>
</form>
</div>`;
  return portalPage(200, { ...frame, title: 'Change plan', current: 'subscriptions' }, body);
}
