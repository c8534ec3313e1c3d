// GET /checkout/{checkoutElementId}: the buyer-facing hosted checkout page (issue 8, section 2).
// Server-rendered HTML with an inline stylesheet and a small inline script (./page-assets.ts);
// the script calls the checkout JSON API (POST /checkout/{id}/quote and /orders). Every value
// written into the page is escaped: element, offer, product and workspace names are merchant input.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { PaymentMethodType } from '../generated/prisma/enums.js';
import { isUuid } from '../core/uuid.js';
import { browserCards, cardInputs, cardScripts, type ProcessorName } from '../payments/index.js';
import { COUNTRIES, POSTAL_CODE_REQUIRED } from '../reference/countries.js';
import { CHECKOUT_PAGE_HEADERS, PAGE_CSS } from './page-assets.js';
import { PAGE_SCRIPT } from './page-script.js';
import { currencyDecimals } from '../reference/currencies.js';
import { escapeHtml, formatMoney, plural, scriptJson, TEST_CARDS } from './page-format.js';
import { MAX_QUANTITY, MIN_QUANTITY } from './pricing.js';

export interface CheckoutPage {
  status: number;
  html: string;
  /** Content type, Content-Security-Policy, framing and caching: the same for every page of this module. */
  headers: Readonly<Record<string, string>>;
}


let countryOptions: { code: string; name: string }[] | undefined;
/** The contract's countries (XK included), by English name. */
function countries() {
  if (!countryOptions) {
    let names: Intl.DisplayNames | undefined;
    try {
      names = new Intl.DisplayNames(['en'], { type: 'region' });
    } catch {
      names = undefined;
    }
    countryOptions = [...COUNTRIES]
      .map((code) => ({ code, name: names?.of(code) ?? code }))
      .sort((a, b) => a.name.localeCompare(b.name, 'en'));
  }
  return countryOptions;
}

/** The element with what the page shows and checks. */
const loadElement = (prisma: PrismaClient, id: string) =>
  prisma.checkoutElement.findUnique({
    where: { id },
    select: {
      id: true,
      workspaceId: true,
      livemode: true,
      name: true,
      status: true,
      archivedAt: true,
      offers: {
        orderBy: { position: 'asc' },
        select: {
          offer: {
            select: {
              id: true,
              name: true,
              price: true,
              currency: true,
              recurringInterval: true,
              recurringIntervalCount: true,
              trialInterval: true,
              trialIntervalCount: true,
              limit: true,
              soldItems: true,
              status: true,
              archivedAt: true,
              warningMessage: true,
              product: { select: { name: true, archivedAt: true } },
            },
          },
        },
      },
    },
  });

type Element = NonNullable<Awaited<ReturnType<typeof loadElement>>>;
type Offer = Element['offers'][number]['offer'];

const offerName = (offer: Offer) => offer.name?.trim() || offer.product.name;

/** "per month", "every 3 months"; empty for a one-time offer. */
function recurrence(offer: Offer): string {
  if (!offer.recurringInterval) return '';
  const count = offer.recurringIntervalCount ?? 1;
  return count === 1 ? `per ${offer.recurringInterval}` : `every ${plural(count, offer.recurringInterval)}`;
}

function trial(offer: Offer): string {
  if (!offer.trialInterval) return '';
  const count = offer.trialIntervalCount ?? 1;
  return `${count}-${offer.trialInterval} free trial`;
}

/** Why an offer cannot be bought now, or null. */
function unavailable(offer: Offer): { reason: 'withdrawn' | 'sold-out'; text: string } | null {
  if (offer.archivedAt || offer.product.archivedAt || offer.status !== 'ACTIVE') {
    return { reason: 'withdrawn', text: `${offerName(offer)} is no longer sold.` };
  }
  if (offer.limit !== null && offer.limit - offer.soldItems <= 0) {
    return { reason: 'sold-out', text: `${offerName(offer)} is sold out.` };
  }
  return null;
}

/** `svc-quantity` when it is a whole number within the API's bounds; otherwise 1. */
function quantityFrom(params: URLSearchParams): number {
  const raw = params.get('svc-quantity')?.trim() ?? '';
  if (!/^\d{1,7}$/.test(raw)) return 1;
  const n = Number(raw);
  return n >= MIN_QUANTITY && n <= MAX_QUANTITY ? n : 1;
}

/** The discount code as given (trimmed, at most the API's 64 characters); the quote says whether it applies. */
const discountCodeFrom = (params: URLSearchParams) => (params.get('svc-discount-code') ?? '').trim().slice(0, 64);

// --- Page frames ----------------------------------------------------------------------------

/** A hosted page's document: the shared stylesheet, the body, the page's script (the payment-method page uses it too). */
export function htmlDocument(title: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
${body}
${script}
</body>
</html>
`;
}

const page = (status: number, html: string, processor: ProcessorName = 'sandbox'): CheckoutPage => ({ status, html, headers: CHECKOUT_PAGE_HEADERS[processor] });

function notFoundPage(): CheckoutPage {
  return page(
    404,
    htmlDocument(
      'Checkout not found',
      `<main>
<div class="card" id="not-found">
<h1>This checkout is not available</h1>
<p>The link does not lead to an active checkout: it may be mistyped, or the seller may have closed it.</p>
<p class="muted">Check the link you were given, or contact the seller.</p>
</div>
</main>`,
    ),
  );
}

/** The test-mode banner with the sandbox's test cards (on every test-mode hosted page). */
export function testBanner(): string {
  const cards = TEST_CARDS.map((c) => `<li><code>${escapeHtml(c.number.replace(/(\d{4})(?=\d)/g, '$1 '))}</code> ${escapeHtml(c.outcome)}</li>`).join('\n');
  return `<div class="test-banner" id="test-mode" role="note">
<strong>Test mode</strong>
No real payment is made and no card is charged. Use a sandbox test card, any future expiry date and any CVC:
<ul>
${cards}
</ul>
</div>`;
}

function heading(element: Element, merchant: string | null): string {
  return `${element.livemode ? '' : testBanner()}
<header class="card">
${merchant ? `<p class="merchant">${escapeHtml(merchant)}</p>` : ''}
<h1 id="element-name">${escapeHtml(element.name?.trim() || 'Checkout')}</h1>
</header>`;
}

function unavailablePage(element: Element, merchant: string | null, problems: { reason: string; text: string }[]): CheckoutPage {
  const soldOut = problems.every((p) => p.reason === 'sold-out');
  const title = soldOut ? 'Sold out' : 'No longer available';
  return page(
    soldOut ? 200 : 410,
    htmlDocument(
      `${title}: ${element.name?.trim() || 'Checkout'}`,
      `<main>
${heading(element, merchant)}
<div class="card" id="unavailable" data-reason="${soldOut ? 'sold-out' : 'withdrawn'}">
<h2>${soldOut ? 'Sold out' : 'This can no longer be bought'}</h2>
${problems.map((p) => `<p>${escapeHtml(p.text)}</p>`).join('\n')}
<p class="muted">Nothing can be bought through this checkout at the moment. Contact the seller for more.</p>
</div>
</main>`,
    ),
  );
}

// --- The checkout ---------------------------------------------------------------------------

function offersList(offers: Offer[]): string {
  return offers
    .map((offer) => {
      const notes = [recurrence(offer), trial(offer), offer.warningMessage?.trim() ?? ''].filter(Boolean);
      return `<li data-offer-id="${escapeHtml(offer.id)}"><span class="offer-name">${escapeHtml(offerName(offer))}${notes.map((n) => `<span class="offer-note">${escapeHtml(n)}</span>`).join('')}</span>
<span class="price">${offer.price === 0 ? 'Free' : escapeHtml(formatMoney(offer.price, offer.currency))}</span></li>`;
    })
    .join('\n');
}

/** The summary before the first quote answers: list prices times the quantity, no discount or tax yet. */
function initialSummary(offers: Offer[], quantity: number, currency: string): string {
  const lines = offers
    .map((o) => `<tr><th>${escapeHtml(offerName(o))}${quantity > 1 ? ` \u00d7 ${quantity}` : ''}</th><td class="amount">${escapeHtml(formatMoney(o.price * quantity, currency))}</td></tr>`)
    .join('\n');
  const total = offers.reduce((sum, o) => sum + o.price * quantity, 0);
  return `<table class="summary" id="summary" aria-live="polite">
<tbody id="summary-lines">
${lines}
</tbody>
<tbody id="summary-totals">
<tr class="tax"><th>Tax</th><td class="amount muted">calculated from your country</td></tr>
<tr class="total"><th>Total</th><td class="amount" id="total">${escapeHtml(formatMoney(total, currency))}</td></tr>
</tbody>
</table>`;
}

function customFieldInputs(offers: Offer[]): string {
  // Offers and products define no custom-field schema (a product's customFields is the merchant's
  // own data), so each cart item takes one optional field id / value pair, as the API stores it.
  const items = offers
    .map((offer, i) => `<div class="row" data-custom-field-offer="${escapeHtml(offer.id)}">
<div><label for="field-id-${i}">Field <span class="hint">for ${escapeHtml(offerName(offer))}</span></label><input id="field-id-${i}" class="field-id" maxlength="200" autocomplete="off"></div>
<div><label for="field-value-${i}">Value</label><input id="field-value-${i}" class="field-value" maxlength="2048" autocomplete="off"></div>
</div>`)
    .join('\n');
  return `<details class="custom-fields"><summary>Additional information for the seller <span class="hint">(optional)</span></summary>
${items}
</details>`;
}

const METHOD_LABELS: Record<PaymentMethodType, string> = { card: 'Card', paypal: 'PayPal', manual: 'Bank transfer' };

function checkoutPage(element: Element, merchant: string | null, params: URLSearchParams, methods: readonly PaymentMethodType[], processor: ProcessorName): CheckoutPage {
  const offers = element.offers.map((o) => o.offer);
  const currency = offers[0]!.currency;
  const quantity = quantityFrom(params);
  const discountCode = discountCodeFrom(params);
  const requiresPayment = offers.some((o) => o.price > 0);
  const cards = browserCards(processor);
  const data = {
    cards,
    checkoutElementId: element.id,
    livemode: element.livemode,
    currency,
    currencyDecimals: currencyDecimals(currency) ?? 2,
    requiresPayment,
    postalCodeRequired: [...POSTAL_CODE_REQUIRED],
  };
  const countryList = countries()
    .map((c) => `<option value="${c.code}">${escapeHtml(c.name)}</option>`)
    .join('');
  const body = `<main>
${heading(element, merchant)}
<noscript><div class="card notice error">This checkout needs JavaScript to calculate the total and to pay.</div></noscript>
<form id="checkout" class="checkout" method="post" autocomplete="on" data-livemode="${element.livemode}">
<section class="card" aria-labelledby="order-heading">
<h2 id="order-heading">Your order</h2>
<ul class="offers" id="offers">
${offersList(offers)}
</ul>
<div class="row">
<div><label for="quantity">Quantity</label><input id="quantity" type="number" inputmode="numeric" min="${MIN_QUANTITY}" max="${MAX_QUANTITY}" step="1" value="${quantity}" required></div>
<div><label for="discount-code">Discount code <span class="hint">(optional)</span></label><input id="discount-code" maxlength="64" autocomplete="off" value="${escapeHtml(discountCode)}"></div>
</div>
<p class="notice warn" id="discount-rejection" role="status" hidden></p>
</section>
<section class="card" aria-labelledby="summary-heading">
<h2 id="summary-heading">Summary</h2>
${initialSummary(offers, quantity, currency)}
<p class="notice error" id="quote-error" role="alert" hidden></p>
</section>
<section class="card" aria-labelledby="buyer-heading">
<h2 id="buyer-heading">Your details</h2>
<label for="email">Email</label><input id="email" type="email" autocomplete="email" maxlength="254" required>
<label for="country">Country</label><select id="country" autocomplete="country" required><option value="">Choose your country</option>${countryList}</select>
<div class="row">
<div><label for="postal-code">Postal code</label><input id="postal-code" autocomplete="postal-code" maxlength="64"></div>
<div><label for="state">State or province <span class="hint">(required in the US and Canada, e.g. WA, QC)</span></label><input id="state" autocomplete="address-level1" maxlength="255"></div>
</div>
<label for="tax-id">VAT number <span class="hint">(optional: a business in the EU or the UK, for the reverse charge)</span></label><input id="tax-id" autocomplete="off" maxlength="32" spellcheck="false">
${customFieldInputs(offers)}
</section>
<section class="card" id="payment" aria-labelledby="payment-heading"${requiresPayment ? '' : ' hidden'}>
<h2 id="payment-heading">Payment</h2>
<fieldset class="methods"><legend>Payment method</legend>
${methods.map((method, index) => `<label><input type="radio" name="method" value="${method}"${index === 0 ? ' checked' : ''}> ${METHOD_LABELS[method]}</label>`).join('\n')}
</fieldset>
${cardInputs(cards)}
</section>
<button type="submit" class="pay" id="pay" disabled>${requiresPayment ? 'Pay' : 'Get it for free'}</button>
<div id="outcome" class="notice" role="status" aria-live="polite" hidden></div>
</form>
</main>`;
  // The card inputs have no `name`: were the form ever submitted natively, they would not be sent.
  const script = `${cardScripts(cards)}<script type="application/json" id="checkout-data">${scriptJson(data)}</script>
<script>${PAGE_SCRIPT}</script>`;
  return page(200, htmlDocument(element.name?.trim() || 'Checkout', body, script), processor);
}

/**
 * The page for GET /checkout/{checkoutElementId}: 200 the checkout; 404 an unknown, archived or
 * inactive element (or one of a workspace that cannot sell: offline, or test mode switched off for
 * a test element); 410 an element with an offer that is no longer sold; 200 a sold-out page.
 * `methods` are the payment methods the processor takes (the sandbox: card, PayPal, bank
 * transfer; Stripe: card), offered in that order; the card is collected as `processor` does it
 * (../payments/browser-cards.ts).
 */
export async function renderCheckoutPage(
  prisma: PrismaClient,
  checkoutElementId: string,
  searchParams: URLSearchParams,
  methods: readonly PaymentMethodType[],
  processor: ProcessorName,
): Promise<CheckoutPage> {
  if (!isUuid(checkoutElementId)) return notFoundPage();
  const element = await loadElement(prisma, checkoutElementId.toLowerCase());
  if (!element || element.archivedAt || element.status !== 'ACTIVE' || element.offers.length === 0) return notFoundPage();
  const workspace = await prisma.workspace.findUnique({ where: { id: element.workspaceId }, select: { name: true, offline: true, testMode: true } });
  if (!workspace || workspace.offline || (!element.livemode && !workspace.testMode)) return notFoundPage();
  const merchant = workspace.name.trim() || null;
  const problems = element.offers.map(({ offer }) => unavailable(offer)).filter((p) => p !== null);
  if (problems.length) return unavailablePage(element, merchant, problems);
  return checkoutPage(element, merchant, searchParams, methods, processor);
}
