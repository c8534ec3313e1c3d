// Stripe's published test cards (docs.stripe.com/testing), with the outcome each one has there:
// the sandbox reproduces it, and the Stripe adapter sends the matching test PaymentMethod in test
// mode, where Stripe refuses raw card numbers unless the account may send them.
import { CardDeclined, type CardDetails } from './processor.js';

/** What happens to a charge on the card after its checks pass. */
export type CardBehaviour =
  | 'succeed'
  | 'decline'
  /** Succeeds, then the cardholder disputes it (fraudulent). */
  | 'dispute'
  /** Succeeds; its refunds fail after being accepted (expired_or_canceled_card). */
  | 'refund_fail'
  /** Needs 3D Secure: pending until the cardholder authenticates (settle) or not (fail); off-session it is declined. */
  | 'authenticate'
  /** Can be saved, but every later off-session charge on it is declined (Stripe: attaching succeeds, charges fail). */
  | 'decline_off_session';

export interface TestCard {
  brand: string;
  behaviour: CardBehaviour;
  declineCode?: string;
  /** Stripe's test PaymentMethod for the same card. */
  stripePaymentMethod: string;
}

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  '4242424242424242': { brand: 'visa', behaviour: 'succeed', stripePaymentMethod: 'pm_card_visa' },
  '5555555555554444': { brand: 'mastercard', behaviour: 'succeed', stripePaymentMethod: 'pm_card_mastercard' },
  '378282246310005': { brand: 'amex', behaviour: 'succeed', stripePaymentMethod: 'pm_card_amex' },
  '4000000000000002': { brand: 'visa', behaviour: 'decline', declineCode: 'generic_decline', stripePaymentMethod: 'pm_card_chargeDeclined' },
  '4000000000009995': {
    brand: 'visa',
    behaviour: 'decline',
    declineCode: 'insufficient_funds',
    stripePaymentMethod: 'pm_card_chargeDeclinedInsufficientFunds',
  },
  '4000000000000069': { brand: 'visa', behaviour: 'decline', declineCode: 'expired_card', stripePaymentMethod: 'pm_card_chargeDeclinedExpiredCard' },
  '4000000000000127': { brand: 'visa', behaviour: 'decline', declineCode: 'incorrect_cvc', stripePaymentMethod: 'pm_card_chargeDeclinedIncorrectCvc' },
  '4000000000000259': { brand: 'visa', behaviour: 'dispute', stripePaymentMethod: 'pm_card_createDispute' },
  '4000000000005126': { brand: 'visa', behaviour: 'refund_fail', stripePaymentMethod: 'pm_card_refundFail' },
  '4000002760003184': { brand: 'visa', behaviour: 'authenticate', stripePaymentMethod: 'pm_card_authenticationRequired' },
  '4000000000000341': { brand: 'visa', behaviour: 'decline_off_session', stripePaymentMethod: 'pm_card_chargeCustomerFail' },
};

export const DECLINE_MESSAGES: Readonly<Record<string, string>> = {
  generic_decline: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  authentication_required: 'Your card was declined: this transaction requires authentication.',
  payment_intent_authentication_failure: 'The card could not be authenticated (3-D Secure was not completed).',
  test_mode_live_card: 'Your card was declined: the sandbox accepts only test cards.',
};

/** Spaces and dashes as people type them are allowed; anything else is not a number. */
export function normalizeCardNumber(number: string): string {
  return number.replace(/[\s-]/g, '');
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function brandOf(digits: string): string {
  if (digits.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^6(011|5)/.test(digits)) return 'discover';
  return 'unknown';
}

export interface CheckedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  behaviour: CardBehaviour;
  /** Set when the issuer declines: an expired card, a declining test card, a non-test card. */
  declineCode?: string;
}

/**
 * What a card form and the issuer check, in that order. Malformed details (number, month,
 * year, CVC) throw CardDeclined: no charge exists. An expired card or a declining card is a
 * decline of the issuer: the charge exists and fails. Never echoes the number.
 */
export function checkCard(card: CardDetails, now: Date): CheckedCard {
  const digits = normalizeCardNumber(card.number);
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) throw new CardDeclined('incorrect_number', 'Your card number is incorrect.');
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12) {
    throw new CardDeclined('invalid_expiry_month', "Your card's expiration month is invalid.");
  }
  const expYear = card.expYear < 100 ? 2000 + card.expYear : card.expYear;
  if (!Number.isInteger(expYear) || expYear < 2000 || expYear > now.getUTCFullYear() + 50) {
    throw new CardDeclined('invalid_expiry_year', "Your card's expiration year is invalid.");
  }
  const brand = TEST_CARDS[digits]?.brand ?? brandOf(digits);
  if (!(brand === 'amex' ? /^\d{4}$/ : /^\d{3}$/).test(card.cvc)) throw new CardDeclined('invalid_cvc', "Your card's security code is invalid.");

  const testCard = TEST_CARDS[digits];
  const checked = { brand, last4: digits.slice(-4), expMonth: card.expMonth, expYear, behaviour: testCard?.behaviour ?? 'decline' } as const;
  if (isExpired(card.expMonth, expYear, now)) return { ...checked, declineCode: 'expired_card' };
  // A number that is not a test card may be a real one: a simulator must never accept it.
  if (!testCard) return { ...checked, declineCode: 'test_mode_live_card' };
  return testCard.declineCode ? { ...checked, declineCode: testCard.declineCode } : checked;
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(expMonth: number, expYear: number, now: Date): boolean {
  return Date.UTC(expYear, expMonth, 1) <= now.getTime();
}
