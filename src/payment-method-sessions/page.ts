// GET /payment-method/{subscriptionId}/{sessionToken}: the hosted page where a buyer replaces a
// subscription's card. Server-rendered with the checkout page's frame, stylesheet, test-mode
// banner, card inputs and headers (CSP by hash, no framing by plain-http sites, no caching, no
// Referer); only its script is its own. Every value written into it is escaped.
import { hostedPageHeaders, escapeHtml, formatMoney, scriptJson, htmlDocument, testBanner } from '../checkout/index.js';
import type { PrismaClient, Subscription } from '../generated/prisma/client.js';
import { subscriptionItems, upcomingPayment } from '../subscriptions/index.js';
import { PAGE_SCRIPT } from './page-script.js';
import { browserCards, cardInputs, cardScripts, type ProcessorName } from '../payments/index.js';
import { PAGE_PATH } from './page-path.js';
import { lookUpSession } from './service.js';


export interface HostedPage {
  status: number;
  html: string;
  headers: Readonly<Record<string, string>>;
}

const HEADERS: Readonly<Record<ProcessorName, Readonly<Record<string, string>>>> = {
  sandbox: hostedPageHeaders(PAGE_SCRIPT, 'sandbox'),
  stripe: hostedPageHeaders(PAGE_SCRIPT, 'stripe'),
};

const DATE = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/** The page for a link that opens nothing: its reason, never which subscription it was for. */
function refusalPage(status: number, reason: 'unknown' | 'expired' | 'used' | 'closed'): HostedPage {
  const texts: Record<typeof reason, readonly [string, string]> = {
    unknown: ['This link is not valid', 'The link does not lead to a payment-method update: it may be mistyped, or meant for another subscription.'],
    expired: ['This link has expired', 'Links to update a payment method work for 15 minutes.'],
    used: ['This link was used already', 'The payment method was updated with it; each link works once.'],
    closed: ['This subscription cannot be updated', 'The subscription has ended, or its first payment was never made.'],
  };
  const [title, text] = texts[reason];
  return {
    status,
    headers: HEADERS.sandbox,
    html: htmlDocument(title, `<main>
<div class="card" id="refused" data-reason="${reason}">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
<p class="muted">Ask the seller for a new link to update your payment method.</p>
</div>
</main>`),
  };
}

/** What the buyer is updating: the items, and what is charged next and when. */
async function summary(prisma: PrismaClient, subscription: Subscription): Promise<string> {
  const scope = { workspaceId: subscription.workspaceId, livemode: subscription.livemode };
  const [items, next] = await Promise.all([subscriptionItems(prisma, scope, subscription), upcomingPayment(prisma, subscription)]);
  const names = items.map((item) => `<li>${escapeHtml(item.offer?.name?.trim() || item.product?.name || 'Subscription')}${item.quantity > 1 ? ` \u00d7 ${item.quantity}` : ''}</li>`).join('\n');
  const charge = next
    ? `<tr><th>${next.retry ? 'Overdue payment' : 'Next payment'}</th><td class="amount" id="next-amount">${escapeHtml(formatMoney(next.amount, subscription.currency))}</td></tr>
<tr><th>${next.retry ? 'Charged' : 'On'}</th><td class="amount" id="next-date">${next.retry ? 'as soon as you save a card' : escapeHtml(DATE.format(next.at))}</td></tr>`
    : `<tr><th>Next payment</th><td class="amount" id="next-amount">${subscription.status === 'paused' ? 'none while paused' : subscription.status === 'unpaid' ? `${escapeHtml(formatMoney(subscription.amount, subscription.currency))}, charged as soon as you save a card` : 'none scheduled'}</td></tr>`;
  return `<ul class="offers" id="items">
${names}
</ul>
<table class="summary" id="summary"><tbody>
${charge}
</tbody></table>`;
}

/** 200 the form; 404 an unknown or foreign token; 410 an expired or used one, or a subscription that ended. */
export async function renderPaymentMethodPage(prisma: PrismaClient, subscriptionId: string, token: string, now: Date): Promise<HostedPage> {
  const lookup = await lookUpSession(prisma, subscriptionId, token, now);
  if (lookup.state === 'unknown') return refusalPage(404, 'unknown');
  if (lookup.state !== 'open') return refusalPage(410, lookup.state);
  const { subscription } = lookup;
  const workspace = await prisma.workspace.findUniqueOrThrow({ where: { id: subscription.workspaceId }, select: { name: true } });
  const merchant = workspace.name.trim();
  const owed = subscription.status === 'past_due' || subscription.status === 'unpaid';
  const processor = subscription.processor ?? 'sandbox';
  const cards = browserCards(processor);
  const data = { cards, currency: subscription.currency, completePath: `${PAGE_PATH}/${subscription.id}/${token}/complete`, owed };
  const body = `<main>
${subscription.livemode ? '' : testBanner()}
<header class="card">
${merchant ? `<p class="merchant">${escapeHtml(merchant)}</p>` : ''}
<h1 id="title">Update your payment method</h1>
</header>
<noscript><div class="card notice error">This page needs JavaScript to save your card.</div></noscript>
<form id="payment-method" method="post" autocomplete="on">
<section class="card" aria-labelledby="subscription-heading">
<h2 id="subscription-heading">Your subscription</h2>
${await summary(prisma, subscription)}
${owed ? '<p class="notice warn" id="owed">A payment of this subscription failed. The new card is charged for it at once.</p>' : ''}
</section>
<section class="card" aria-labelledby="card-heading">
<h2 id="card-heading">New card</h2>
${cardInputs(cards)}
</section>
<button type="submit" class="pay" id="save" disabled>Save card</button>
<div id="outcome" class="notice" role="status" aria-live="polite" hidden></div>
</form>
</main>`;
  const script = `${cardScripts(cards)}<script type="application/json" id="session-data">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>`;
  return { status: 200, headers: HEADERS[processor], html: htmlDocument(`${merchant ? `${merchant}: ` : ''}Update your payment method`, body, script) };
}
