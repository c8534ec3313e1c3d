// How the hosted pages collect a card in the buyer's browser, so that its details never reach
// this server with Stripe: Stripe.js's Payment Element turns it into a payment method (pm_…) at
// Stripe; with the sandbox, its tokenizing route does the same. Either way the page then sends
// only `paymentMethod`. The pages embed CARD_FORM_SCRIPT in their own (constant) script.
import type { ProcessorName } from './processors/processor.js';
import { SANDBOX_AUTHENTICATE_PATH, SANDBOX_TOKENIZE_PATH } from './card-source.js';

/** Stripe.js, as @stripe/stripe-js's loadStripe injects it: it must come from Stripe's host. */
export const STRIPE_JS_URL = 'https://js.stripe.com/v3/';

/** What a page's script needs to collect a card (in its JSON data block). */
export type BrowserCards = { processor: 'sandbox'; tokenizePath: string; authenticatePath: string } | { processor: 'stripe'; publishableKey: string | null };

/** STRIPE_PUBLISHABLE_KEY (pk_test_… or pk_live_…) for Stripe.js; unset, the pages say card entry is not configured. */
export function browserCards(processor: ProcessorName, env: NodeJS.ProcessEnv = process.env): BrowserCards {
  if (processor === 'sandbox') return { processor, tokenizePath: SANDBOX_TOKENIZE_PATH, authenticatePath: SANDBOX_AUTHENTICATE_PATH };
  const key = env.STRIPE_PUBLISHABLE_KEY;
  return { processor, publishableKey: key && /^pk_(test|live)_\w+$/.test(key) ? key : null };
}

/** The card inputs: the sandbox's own fields, or the Payment Element's mount point (no card input of ours at all). */
export function cardInputs(cards: BrowserCards): string {
  if (cards.processor === 'stripe') return '<div id="card-fields"><div id="payment-element"></div></div>';
  const year = new Date().getUTCFullYear();
  const monthList = Array.from({ length: 12 }, (_, i) => `<option value="${i + 1}">${String(i + 1).padStart(2, '0')}</option>`).join('');
  const yearList = Array.from({ length: 20 }, (_, i) => `<option value="${year + i}">${year + i}</option>`).join('');
  return `<div id="card-fields">
<label for="card-number">Card number</label><input id="card-number" inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234">
<div class="row">
<div><label for="card-exp-month">Expiry month</label><select id="card-exp-month" autocomplete="cc-exp-month"><option value="">MM</option>${monthList}</select></div>
<div><label for="card-exp-year">Expiry year</label><select id="card-exp-year" autocomplete="cc-exp-year"><option value="">YYYY</option>${yearList}</select></div>
<div><label for="card-cvc">CVC</label><input id="card-cvc" inputmode="numeric" autocomplete="cc-csc" maxlength="4" pattern="[0-9]{3,4}"></div>
</div>
</div>`;
}

/** The script tags a page loads before its own: Stripe.js with Stripe, nothing with the sandbox. */
export const cardScripts = (cards: BrowserCards) => (cards.processor === 'stripe' ? `<script src="${STRIPE_JS_URL}"></script>\n` : '');

/**
 * Browser JavaScript defining `cardForm(config, currency)`: `{ required(on), collect(), clear(),
 * authenticate(clientSecret) }`, where collect() answers `{ paymentMethod }` or `{ error }`, and
 * authenticate, the buyer's 3-D Secure step of a pending payment (the answer's nextAction),
 * `{}` or `{ error }` once it is over: Stripe's `stripe.handleNextAction`, or the sandbox's
 * visible Authenticate / Fail choice sent to its authentication route. Stripe: the Payment Element (card
 * only, payment methods created by the page: `paymentMethodCreation: 'manual'`) mounted on
 * #payment-element, then `elements.submit()` and `stripe.createPaymentMethod`; the server
 * confirms the PaymentIntent or SetupIntent. Sandbox: the card fields, sent to the tokenizer.
 * Also `messageOf(envelope, fallback)` and `settleCardForm(...)`, which both pages use.
 */
export const CARD_FORM_SCRIPT = `
  const cardForm = (config, currency) => {
    const field = (id) => document.getElementById(id);
    if (config.processor === 'stripe') {
      if (!config.publishableKey || typeof Stripe !== 'function') {
        const unavailable = async () => ({ error: 'Card payments are not available on this page right now.' });
        return { required() {}, clear() {}, collect: unavailable, authenticate: unavailable };
      }
      const stripe = Stripe(config.publishableKey);
      const elements = stripe.elements({ mode: 'setup', currency: currency.toLowerCase(), paymentMethodCreation: 'manual', paymentMethodTypes: ['card'] });
      const element = elements.create('payment');
      element.mount('#payment-element');
      return {
        required() {},
        clear() { element.clear(); },
        collect: async () => {
          const submitted = await elements.submit();
          if (submitted.error) return { error: submitted.error.message };
          const created = await stripe.createPaymentMethod({ elements });
          return created.error ? { error: created.error.message } : { paymentMethod: created.paymentMethod.id };
        },
        authenticate: async (clientSecret) => {
          const handled = await stripe.handleNextAction({ clientSecret });
          return handled.error ? { error: handled.error.message } : {};
        },
      };
    }
    const ids = ['card-number', 'card-exp-month', 'card-exp-year', 'card-cvc'];
    return {
      required(on) { for (const id of ids) field(id).required = on; },
      clear() { field('card-number').value = ''; field('card-cvc').value = ''; },
      collect: async () => {
        const card = {
          number: field('card-number').value.trim().replace(/[\\s-]/g, ''),
          expMonth: Number(field('card-exp-month').value),
          expYear: Number(field('card-exp-year').value),
          cvc: field('card-cvc').value.trim(),
        };
        const response = await fetch(config.tokenizePath, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ card }),
          credentials: 'omit',
          cache: 'no-store',
        });
        let envelope = null;
        try { envelope = await response.json(); } catch { envelope = null; }
        if (response.status === 200 && envelope && envelope.data) return { paymentMethod: envelope.data.paymentMethod };
        return { error: messageOf(envelope, 'HTTP ' + response.status) };
      },
      // The sandbox's stand-in for the bank's 3-D Secure page (Stripe's test modal has the same two choices).
      authenticate: (clientSecret) => new Promise((resolve) => {
        const box = document.createElement('div');
        box.id = 'sandbox-authentication';
        box.className = 'notice';
        const title = document.createElement('strong');
        title.textContent = 'Test mode: 3-D Secure';
        const note = document.createElement('p');
        note.textContent = 'Your bank asks to confirm this payment. The sandbox lets you choose the outcome.';
        const button = (id, label, completed) => {
          const node = document.createElement('button');
          node.type = 'button';
          node.id = id;
          node.textContent = label;
          node.addEventListener('click', () => void choose(completed));
          return node;
        };
        const choose = async (completed) => {
          for (const node of box.querySelectorAll('button')) node.disabled = true;
          try {
            const response = await fetch(config.authenticatePath, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ clientSecret, completed }),
              credentials: 'omit',
              cache: 'no-store',
            });
            let envelope = null;
            try { envelope = await response.json(); } catch { envelope = null; }
            resolve(response.status === 200 ? {} : { error: messageOf(envelope, 'HTTP ' + response.status) });
          } catch {
            resolve({ error: 'The connection failed.' });
          } finally {
            box.remove();
          }
        };
        box.append(title, note, button('sandbox-authenticate', 'Authenticate', true), button('sandbox-fail-authentication', 'Fail authentication', false));
        field('card-fields').after(box);
      }),
    };
  };
  const messageOf = (envelope, fallback) =>
    (envelope && envelope.error && typeof envelope.error.message === 'string' && envelope.error.message) || fallback;
  // After a submission: a completed form keeps no card on the screen and takes no more input.
  const settleCardForm = (form, button, cards, completed, doneLabel, label) => {
    if (completed) {
      cards.clear();
      button.textContent = doneLabel;
      for (const control of form.elements) control.disabled = true;
    } else {
      button.disabled = false;
      button.textContent = label;
    }
  };
`;
