// What a buyer sends to the hosted checkout (quote and order), and the checks made on it before
// the database is asked: a request refused here (400) writes nothing.
import { ValidationFailed } from '../core/errors.js';
import type { PaymentMethodType } from '../generated/prisma/enums.js';
import { CardDeclined, type CardDetails, type PaymentProcessor, checkCardSource, checkCard } from '../payments/index.js';
import { isCountry, postalCodeRequired } from '../reference/countries.js';
import { checkEmail } from '../users/index.js';
import { checkTaxLocation, checkTaxId } from '../tax/index.js';
import { checkQuantity, normalizeDiscountCode } from './pricing.js';

/** Custom fields per cart item: at most this many, ids of 1..64 of [A-Za-z0-9_.-], values strings of at most 1,000 characters. */
export const CUSTOM_FIELDS = { perItem: 20, idPattern: /^[A-Za-z0-9_.-]{1,64}$/, valueLength: 1000 } as const;

export interface CheckoutBillingDetails {
  countryCode: string;
  postalCode?: string | null;
  state?: string | null;
  /** A business buyer's EU or UK VAT number: the order is reverse charged. */
  taxId?: string | null;
}

/** Billing details as checked: codes upper case; the VAT number as src/tax/vat-id.ts keeps it. */
export interface CheckedBillingDetails {
  countryCode: string;
  postalCode: string | null;
  state: string | null;
  taxId: string | null;
}

export interface QuoteRequest {
  quantity?: number | null;
  discountCode?: string | null;
  /** Optional on a quote (tax will need the country); checked when sent. */
  billingDetails?: CheckoutBillingDetails | null;
}

export interface CheckoutOrderRequest {
  email: string;
  quantity?: number | null;
  discountCode?: string | null;
  billingDetails: CheckoutBillingDetails;
  customFields?: unknown;
  method?: PaymentMethodType | null;
  card?: CardDetails | null;
  paymentMethod?: string | null;
}

export interface CheckedOrderRequest {
  email: string;
  quantity: number;
  discountCode: string | null;
  billingDetails: CheckedBillingDetails;
  customFields: Record<string, Record<string, string>>;
  method: PaymentMethodType;
  card: CardDetails | null;
  /** A tokenized payment method in place of card (../payments/card-source.ts). */
  paymentMethod: string | null;
}

export function checkBillingDetails(details: CheckoutBillingDetails): CheckedBillingDetails {
  const countryCode = details.countryCode.trim().toUpperCase();
  if (!isCountry(countryCode)) throw new ValidationFailed('billingDetails.countryCode must be a two-letter ISO 3166-1 country code');
  const postalCode = details.postalCode?.trim() || null;
  const state = details.state?.trim() || null;
  if (!postalCode && postalCodeRequired(countryCode)) throw new ValidationFailed(`billingDetails.postalCode is required for country ${countryCode}`);
  // The address must be one tax can be determined for (400 malformed, 422 not), before anything is written or charged.
  const location = checkTaxLocation({ country: countryCode, state, postalCode });
  const taxId = details.taxId?.trim() ? checkTaxId(details.taxId, 'billingDetails.taxId') : null;
  if (taxId && taxId.country !== countryCode) throw new ValidationFailed(`billingDetails.taxId is a VAT number of ${taxId.country}, but the billing country is ${countryCode}`);
  return { countryCode, postalCode: location.postalCode, state: location.state, taxId: taxId?.value ?? null };
}

function checkCustomFields(value: unknown): Record<string, Record<string, string>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ValidationFailed('customFields must be an object of offer ids to objects of field values');
  const result: Record<string, Record<string, string>> = {};
  for (const [offerId, fields] of Object.entries(value)) {
    const where = `customFields.${offerId}`;
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) throw new ValidationFailed(`${where} must be an object of field ids to strings`);
    const entries = Object.entries(fields as Record<string, unknown>);
    if (entries.length > CUSTOM_FIELDS.perItem) throw new ValidationFailed(`${where}: at most ${CUSTOM_FIELDS.perItem} fields per cart item`);
    for (const [fieldId, text] of entries) {
      if (!CUSTOM_FIELDS.idPattern.test(fieldId)) throw new ValidationFailed(`${where}: a field id is 1 to 64 letters, digits, _, . or -`);
      if (typeof text !== 'string') throw new ValidationFailed(`${where}.${fieldId} must be a string`);
      if ([...text].length > CUSTOM_FIELDS.valueLength) throw new ValidationFailed(`${where}.${fieldId}: at most ${CUSTOM_FIELDS.valueLength} characters`);
    }
    result[offerId] = Object.fromEntries(entries) as Record<string, string>;
  }
  return result;
}

/** Everything that can be refused before the database is asked (400): nothing is written for these. */
export function checkOrderRequest(request: CheckoutOrderRequest, processor: PaymentProcessor): CheckedOrderRequest {
  const email = checkEmail(request.email);
  const method = request.method ?? 'card';
  if (!processor.capabilities.methods.includes(method)) throw new ValidationFailed(`method ${method} is not available with this payment processor`);
  const card = request.card ?? null;
  const paymentMethod = request.paymentMethod ?? null;
  if ((card || paymentMethod) && method !== 'card') throw new ValidationFailed(`${card ? 'card' : 'paymentMethod'} is taken only with method card, not ${method}`);
  checkCardSource(processor.name, { card, paymentMethod });
  if (card) {
    try {
      checkCard(card, new Date());
    } catch (error) {
      // Malformed details (number, month, year, CVC): refused before any order exists.
      if (error instanceof CardDeclined) throw new ValidationFailed(`card: ${error.message}`);
      throw error;
    }
  }
  return {
    email,
    quantity: checkQuantity(request.quantity),
    discountCode: normalizeDiscountCode(request.discountCode),
    billingDetails: checkBillingDetails(request.billingDetails),
    customFields: checkCustomFields(request.customFields),
    method,
    card,
    paymentMethod,
  };
}
