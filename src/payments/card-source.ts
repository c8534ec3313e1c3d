// How a buyer's card reaches us: its details (`card`), or a payment method their browser
// tokenized (`paymentMethod`: Stripe.js's pm_…, the sandbox's pm_sbx_tok_…). With Stripe, card
// details crossing this server put the deployment in full PCI scope and need Stripe's permission
// for raw card data, so `card` is refused there unless the operator opts in (ALLOW_RAW_CARD_DATA).
import { ValidationFailed } from '../core/errors.js';
import type { CardDetails, ProcessorName } from './processors/processor.js';

export interface CardSource {
  card?: CardDetails | null;
  paymentMethod?: string | null;
}

/** ALLOW_RAW_CARD_DATA=true: the operator's Stripe account may take raw card numbers and they accept the PCI scope. */
export const rawCardDataAllowed = (env: NodeJS.ProcessEnv = process.env) => env.ALLOW_RAW_CARD_DATA === 'true';

/** The sandbox's tokenizing endpoint (./card-types.ts), which the hosted pages call from the browser. */
export const SANDBOX_TOKENIZE_PATH = '/sandbox/payment-methods';
/** The sandbox's 3-D Secure step (./card-types.ts), which the hosted pages call with a pending charge's client secret. */
export const SANDBOX_AUTHENTICATE_PATH = '/sandbox/authentications';

const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{1,250}$/;

/** 400 for both at once, a malformed paymentMethod, or card details with Stripe without the opt-in. */
export function checkCardSource(processor: ProcessorName, source: CardSource, allowRawCards = rawCardDataAllowed()): void {
  if (source.card && source.paymentMethod) throw new ValidationFailed('Send card or paymentMethod, not both');
  if (source.paymentMethod != null && !PAYMENT_METHOD_ID.test(source.paymentMethod)) throw new ValidationFailed('paymentMethod must be a payment method id (pm_…)');
  if (source.card && processor === 'stripe' && !allowRawCards) {
    throw new ValidationFailed(
      'card: card numbers are not accepted by this deployment (Stripe): collect the card with Stripe.js and send its paymentMethod id (pm_…) instead',
    );
  }
}
