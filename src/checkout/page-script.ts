// The hosted checkout page's script (constant text: ./page-assets.ts allows it by its hash). It
// reads the page's data block, refreshes the quote and sends the order with an Idempotency-Key,
// paying with a payment method the card form made in the browser (../payments/browser-cards.ts).
import { CARD_FORM_SCRIPT } from '../payments/index.js';

export const PAGE_SCRIPT = `
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('checkout-data').textContent);
${CARD_FORM_SCRIPT}
  const cards = cardForm(data.cards, data.currency);
  const $ = (id) => document.getElementById(id);
  const form = $('checkout');
  const payButton = $('pay');
  const outcome = $('outcome');
  const base = '/checkout/' + encodeURIComponent(data.checkoutElementId);

  // One key per attempt at paying: a double click or a retry after a lost answer sends the same
  // key, so the server answers the first order instead of charging twice. It changes only when
  // the server has said no (the buyer then changes the body: another card, a fixed email).
  const newKey = () => {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  };
  let idempotencyKey = newKey();
  // The payment method made for the current key: a retry with the key sends the same request.
  let collected = null;

  const money = (minor, currency, decimals) => {
    const negative = minor < 0;
    const digits = String(Math.abs(Math.trunc(minor)));
    let text;
    if (decimals > 0) {
      const padded = digits.padStart(decimals + 1, '0');
      text = padded.slice(0, padded.length - decimals) + '.' + padded.slice(padded.length - decimals);
    } else {
      text = digits;
    }
    let formatted;
    try {
      formatted = new Intl.NumberFormat('en', { style: 'currency', currency, minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(text);
    } catch {
      formatted = text + ' ' + currency;
    }
    return negative ? '\\u2212' + formatted : formatted;
  };
  const fmt = (minor) => money(minor, data.currency, data.currencyDecimals);

  const text = (tag, content, className) => {
    const node = document.createElement(tag);
    node.textContent = content;
    if (className) node.className = className;
    return node;
  };
  const row = (label, amount, className) => {
    const tr = document.createElement('tr');
    if (className) tr.className = className;
    tr.append(text('th', label), text('td', amount, 'amount'));
    return tr;
  };

  const value = (id) => $(id).value.trim();
  const quantity = () => {
    const n = Number(value('quantity'));
    return Number.isInteger(n) && n >= 1 ? n : 1;
  };
  const method = () => {
    const checked = form.querySelector('input[name="method"]:checked');
    return checked ? checked.value : 'card';
  };

  /**
   * The body both calls share. The quote gets only what is filled in: no billing details until
   * they are complete enough to check (a country, and its postal code where one is required).
   */
  const commonBody = (forQuote) => {
    const body = { quantity: quantity() };
    const code = value('discount-code');
    if (code) body.discountCode = code;
    const country = value('country');
    const incomplete = forQuote && data.postalCodeRequired.includes(country) && !value('postal-code');
    if (country && !incomplete) {
      const billing = { countryCode: country };
      const postal = value('postal-code');
      if (postal) billing.postalCode = postal;
      const state = value('state');
      if (state) billing.state = state;
      const taxId = value('tax-id');
      if (taxId) billing.taxId = taxId;
      body.billingDetails = billing;
    }
    body.method = method();
    return body;
  };

  const post = async (path, body, headers) => {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: Object.assign({ 'content-type': 'application/json' }, headers || {}),
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    let envelope = null;
    try { envelope = await response.json(); } catch { envelope = null; }
    return { status: response.status, envelope };
  };

  // --- The summary -------------------------------------------------------------------------
  let requiresPayment = data.requiresPayment;
  let quoteSequence = 0;
  let quoteTimer;

  const showPaymentSection = () => {
    $('payment').hidden = !requiresPayment;
    const card = method() === 'card' && requiresPayment;
    $('card-fields').hidden = !card;
    cards.required(card);
  };

  const renderQuote = (quote) => {
    const body = $('summary-lines');
    body.replaceChildren();
    for (const line of quote.lines) {
      const label = line.quantity > 1 ? line.name + ' \\u00d7 ' + line.quantity : line.name;
      body.append(row(label, fmt(line.subtotal)));
    }
    const totals = $('summary-totals');
    totals.replaceChildren();
    if (quote.discount) {
      const d = quote.discount;
      const name = d.discountCode ? 'Discount (' + d.discountCode + ')' : 'Discount' + (d.name ? ' (' + d.name + ')' : '');
      totals.append(row(name, '\\u2212' + fmt(d.amountOff), 'discount'));
    }
    for (const tax of taxRows(quote)) totals.append(tax);
    totals.append(row('Total', fmt(quote.total), 'total'));
    const rejection = $('discount-rejection');
    rejection.textContent = quote.discountRejection ? 'Discount code not applied: ' + quote.discountRejection : '';
    rejection.hidden = !quote.discountRejection;
    requiresPayment = quote.requiresPayment;
    payButton.textContent = requiresPayment ? 'Pay ' + fmt(quote.total) : 'Get it for free';
    showPaymentSection();
  };

  const TAX_NAMES = { VAT: 'VAT', GST: 'GST', HST: 'HST', PST: 'PST', QST: 'QST', SALES_TAX: 'Sales tax', SERVICE_TAX: 'Service tax' };
  /** One row per tax ("VAT 19% (DE)"), "Includes ..." when the prices include it; "VAT (reverse charge)" for a business; before a country is chosen, a hint. */
  const taxRows = (quote) => {
    if (!quote.taxCalculated) {
      const hint = row('Tax', '', 'tax');
      hint.lastChild.textContent = 'calculated from your country';
      hint.lastChild.className = 'amount muted';
      return [hint];
    }
    if (quote.taxes.length === 0) return [row(quote.taxReason === 'reverse_charge' ? 'VAT (reverse charge)' : 'Tax', fmt(0), 'tax')];
    return quote.taxes.map((tax) => {
      const label = (TAX_NAMES[tax.type] || tax.type) + ' ' + String(Math.round(tax.rate * 100000) / 1000) + '% (' + tax.jurisdiction + ')';
      return row((quote.taxInclusive ? 'Includes ' : '') + label, fmt(tax.amount), 'tax');
    });
  };

  const refreshQuote = async () => {
    const sequence = ++quoteSequence;
    const error = $('quote-error');
    form.setAttribute('aria-busy', 'true');
    try {
      const { status, envelope } = await post('/quote', commonBody(true));
      if (sequence !== quoteSequence) return;
      if (status === 200 && envelope && envelope.data && envelope.data.quote) {
        renderQuote(envelope.data.quote);
        error.hidden = true;
        error.textContent = '';
      } else {
        error.textContent = messageOf(envelope, 'The total could not be updated (HTTP ' + status + ').');
        error.hidden = false;
      }
    } catch {
      if (sequence !== quoteSequence) return;
      error.textContent = 'The total could not be updated: the connection failed. It is retried when you change an input.';
      error.hidden = false;
    } finally {
      if (sequence === quoteSequence) {
        form.removeAttribute('aria-busy');
        $('summary').dataset.quoted = String(sequence);
      }
    }
  };
  const scheduleQuote = () => {
    clearTimeout(quoteTimer);
    quoteTimer = setTimeout(refreshQuote, 250);
  };

  for (const id of ['quantity', 'discount-code', 'postal-code', 'state', 'tax-id']) $(id).addEventListener('input', scheduleQuote);
  $('country').addEventListener('change', () => {
    $('postal-code').required = data.postalCodeRequired.includes(value('country'));
    scheduleQuote();
  });
  for (const radio of form.querySelectorAll('input[name="method"]')) {
    radio.addEventListener('change', () => { showPaymentSection(); scheduleQuote(); });
  }

  // --- Paying ------------------------------------------------------------------------------
  const show = (kind, lines) => {
    outcome.className = 'notice ' + kind;
    outcome.replaceChildren(...lines.map((line, i) => (i === 0 ? text('strong', line) : text('p', line))));
    outcome.hidden = false;
    outcome.dataset.outcome = kind === 'success' ? 'paid' : kind;
  };

  const customFields = () => {
    const fields = {};
    for (const item of form.querySelectorAll('[data-custom-field-offer]')) {
      const offerId = item.dataset.customFieldOffer;
      const fieldId = item.querySelector('.field-id').value.trim();
      const fieldValue = item.querySelector('.field-value').value.trim();
      if (fieldId && fieldValue) fields[offerId] = { [fieldId]: fieldValue };
    }
    return fields;
  };

  const pendingText = (payment) => {
    switch (payment && payment.methodType) {
      case 'paypal': return 'Complete the payment with PayPal. Your order is confirmed as soon as PayPal confirms it.';
      case 'manual': return 'Your order is reserved until the bank transfer arrives; it is confirmed as soon as the payment is received.';
      default: return 'Your bank asks to confirm this payment (3-D Secure). Your order is confirmed as soon as it does.';
    }
  };

  // How long the page waits for an authenticated payment's outcome: 20 rounds of a second.
  const OUTCOME_POLLS = 20;
  const OUTCOME_POLL_MS = 1000;
  let paid = false;
  let paying = false;
  const pay = async () => {
    if (paying || paid) return;
    if (!form.reportValidity()) return;
    paying = true;
    payButton.disabled = true;
    const label = payButton.textContent;
    payButton.textContent = 'Processing\\u2026';
    const body = commonBody(false);
    body.email = value('email');
    const fields = customFields();
    if (Object.keys(fields).length) body.customFields = fields;
    try {
      if (requiresPayment && body.method === 'card') {
        if (!collected || collected.key !== idempotencyKey) {
          const made = await cards.collect();
          if (made.error) {
            show('error', ['The card could not be used.', made.error]);
            return;
          }
          collected = { key: idempotencyKey, paymentMethod: made.paymentMethod };
        }
        body.paymentMethod = collected.paymentMethod;
      }
      let { status, envelope } = await post('/orders', body, { 'Idempotency-Key': idempotencyKey });
      const nextAction = status === 200 && envelope && envelope.data && envelope.data.nextAction;
      if (nextAction) {
        // The bank asks the buyer to authenticate (3-D Secure); then the same request, with the
        // same key, answers the order as it is now: asked again until it is no longer pending.
        await cards.authenticate(nextAction.clientSecret);
        for (let round = 0; round < OUTCOME_POLLS; round += 1) {
          ({ status, envelope } = await post('/orders', body, { 'Idempotency-Key': idempotencyKey }));
          const now = status === 200 && envelope && envelope.data;
          if (!now || !now.payment || now.payment.status !== 'PENDING') break;
          await new Promise((done) => setTimeout(done, OUTCOME_POLL_MS));
        }
      }
      const result = envelope && envelope.data;
      if (status === 200 && result && result.order) {
        const order = result.order;
        const payment = result.payment;
        const state = payment ? payment.status : order.status;
        if (state === 'PAID' || order.status === 'PAID') {
          paid = true;
          show('success', [order.value > 0 ? 'Payment received. Thank you!' : 'Your order is confirmed. Thank you!', 'Order number: ' + order.number]);
        } else if (state === 'PENDING') {
          paid = true;
          show('pending', ['Payment pending', pendingText(payment), 'Order number: ' + order.number]);
        } else {
          // Not paid and not pending (failed): nothing was bought; a new attempt gets a new key.
          idempotencyKey = newKey();
          show('error', ['The payment did not go through.', (payment && payment.failureMessage) || 'Try again or use another payment method.']);
        }
      } else if (status === 402) {
        idempotencyKey = newKey();
        show('error', ['Payment declined', messageOf(envelope, 'The card was declined.'), 'Check the details or try another card.']);
      } else if (status === 429 || status >= 500) {
        // The outcome is unknown: a retry keeps the key, so it cannot pay twice.
        show('error', ['Something went wrong on our side.', messageOf(envelope, 'HTTP ' + status), 'Try again in a moment: you will not be charged twice.']);
      } else {
        idempotencyKey = newKey();
        show('error', ['The order could not be placed.', messageOf(envelope, 'HTTP ' + status)]);
      }
    } catch {
      show('error', ['The connection failed.', 'Try again: you will not be charged twice.']);
    } finally {
      paying = false;
      settleCardForm(form, payButton, cards, paid, 'Paid', label);
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void pay();
  });

  showPaymentSection();
  payButton.disabled = false;
  document.documentElement.dataset.ready = 'true';
  void refreshQuote();
})();
`;
