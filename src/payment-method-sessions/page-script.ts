// The payment-method page's script (constant text: the page's CSP allows it by its hash). It reads
// the page's data block, makes a payment method of the card in the browser (Stripe.js, or the
// sandbox's tokenizer: ../payments/browser-cards.ts), sends it to the completion route and shows
// the outcome, as text.
import { CARD_FORM_SCRIPT } from '../payments/index.js';

export const PAGE_SCRIPT = `
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('session-data').textContent);
${CARD_FORM_SCRIPT}
  const cards = cardForm(data.cards, data.currency);
  const $ = (id) => document.getElementById(id);
  const form = $('payment-method');
  const saveButton = $('save');
  const outcome = $('outcome');
  const text = (tag, content) => {
    const node = document.createElement(tag);
    node.textContent = content;
    return node;
  };
  const show = (kind, lines) => {
    outcome.className = 'notice ' + (kind === 'saved' ? 'success' : kind);
    outcome.replaceChildren(...lines.map((line, i) => (i === 0 ? text('strong', line) : text('p', line))));
    outcome.hidden = false;
    outcome.dataset.outcome = kind;
  };
  const STILL_OWED = ['past_due', 'unpaid'];
  const post = async (path, body) => {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    let envelope = null;
    try { envelope = await response.json(); } catch { envelope = null; }
    return { status: response.status, envelope };
  };

  // How long the page waits for an authenticated card's outcome: 20 rounds of a second.
  const OUTCOME_POLLS = 20;
  const OUTCOME_POLL_MS = 1000;
  let saved = false;
  let saving = false;
  const save = async () => {
    if (saving || saved || !form.reportValidity()) return;
    saving = true;
    saveButton.disabled = true;
    const label = saveButton.textContent;
    saveButton.textContent = 'Saving\\u2026';
    try {
      const made = await cards.collect();
      if (made.error) {
        show('error', ['The card could not be saved.', made.error]);
        return;
      }
      let response = await post(data.completePath, { paymentMethod: made.paymentMethod });
      const waiting = (answer) => answer.status === 200 && answer.envelope && answer.envelope.data && answer.envelope.data.nextAction;
      const nextAction = waiting(response);
      if (nextAction) {
        // The bank asks the buyer to authenticate the card (3-D Secure); then the completion,
        // without a card, continues that setup: asked again while it still waits, bounded.
        await cards.authenticate(nextAction.clientSecret);
        for (let round = 0; round < OUTCOME_POLLS; round += 1) {
          response = await post(data.completePath, {});
          if (!waiting(response)) break;
          await new Promise((done) => setTimeout(done, OUTCOME_POLL_MS));
        }
      }
      const envelope = response.envelope;
      const result = envelope && envelope.data;
      if (waiting(response)) {
        show('warn', ['Card not confirmed yet', 'Your bank has not confirmed the card. Try again in a moment.']);
      } else if (response.status === 200 && result) {
        saved = true;
        const method = result.paymentMethod || {};
        const name = [method.brand, method.last4 ? 'ending in ' + method.last4 : ''].filter(Boolean).join(' ') || 'Your new card';
        if (data.owed && STILL_OWED.includes(result.status)) {
          show('warn', ['Card saved: ' + name, 'The overdue payment was declined on this card. Ask the seller for a new link to try another card.']);
        } else if (data.owed) {
          show('saved', ['Card saved: ' + name, 'The overdue payment was charged. Your subscription is active again.']);
        } else {
          show('saved', ['Card saved: ' + name, 'Your next payments are charged to this card.']);
        }
      } else if (response.status === 402) {
        show('error', ['Card declined', messageOf(envelope, 'The card was declined.'), 'Check the details or try another card.']);
      } else {
        show('error', ['The card could not be saved.', messageOf(envelope, 'HTTP ' + response.status)]);
      }
    } catch {
      show('error', ['The connection failed.', 'Try again in a moment.']);
    } finally {
      saving = false;
      settleCardForm(form, saveButton, cards, saved, 'Saved', label);
    }
  };
  cards.required(true);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save();
  });
  saveButton.disabled = false;
  document.documentElement.dataset.ready = 'true';
})();
`;
