// The one tax calculation: pure (no database, no clock unless `at` is left out), exported for every
// domain that charges: the tax route, the checkout's quote and order, and subscription renewals.
// Rates come from the committed tables of ./data/ (dated: a sale is taxed at its date's rate), and
// only where the workspace is registered (./registrations.ts).
// Rules and rounding: docs/decisions.md "Tax". Money is integer minor units; rates are integer
// parts per million, so every amount is computed exactly and rounded once, half up, to the
// currency's smallest unit (a cent, a yen, a fils: amounts are already in that unit).
import { ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';
import type { ProductType } from '../generated/prisma/enums.js';
import { isCurrency } from '../reference/currencies.js';
import { CANADA_GST, CANADA_PROVINCIAL } from './data/canada.js';
import { NATIONAL_RATES, type TaxType } from './data/national-rates.js';
import { US_STATES } from './data/us-states.js';
import { checkTaxLocation, TaxUndetermined, type TaxLocation, type TaxLocationInput } from './location.js';
import { EVERYWHERE, registeredFor, type TaxRegistrations } from './registrations.js';
import { inForce } from './sources.js';
import { checkTaxId } from './vat-id.js';

export type { TaxType };

/**
 * Why less tax than the location's, or none, is charged: the merchant is not registered there
 * (taxRegistrations), the rate data does not know the location at that date, a business buyer
 * accounts for it, the product is not taxed there, or the jurisdiction levies no such tax.
 */
export type TaxReason = 'not_registered' | 'no_data' | 'reverse_charge' | 'not_taxable' | 'no_tax';

export interface TaxInput {
  productType: ProductType;
  /** Minor units: the price as the workspace states it (with the tax in it when priceIncludesTax). */
  amount: number;
  currency: string;
  location: TaxLocationInput;
  /** A business buyer's EU or UK VAT number: reverse charge when valid (400 otherwise). */
  taxId?: string | null;
  priceIncludesTax: boolean;
  /** When the sale happens (rates in force then); default now. */
  at?: Date;
  /** Where the workspace collects tax (its taxRegistrations); default everywhere. */
  registrations?: TaxRegistrations;
}

/** One tax of the calculation (Canada: GST and the province's PST or QST). */
export interface TaxComponent {
  type: TaxType;
  /** 0.19 for 19%. */
  rate: number;
  /** DE, GB, CA, CA-QC, US-WA. */
  jurisdiction: string;
  /** Minor units. */
  amount: number;
}

export interface TaxCalculation {
  productType: ProductType;
  currency: string;
  location: TaxLocation;
  /** The business buyer's VAT number as checked (upper case, no separators), or null. */
  taxId: string | null;
  priceIncludesTax: boolean;
  /** The amount sent. */
  amount: number;
  /** Without tax. */
  netAmount: number;
  taxAmount: number;
  /** What the buyer pays: netAmount + taxAmount. */
  totalAmount: number;
  /** The sum of the components' rates. */
  rate: number;
  /** The main tax (the national one), null when none is charged. */
  taxType: TaxType | null;
  /** Where the tax is owed: the most specific jurisdiction of the location. */
  jurisdiction: string;
  components: TaxComponent[];
  reverseCharge: boolean;
  /** Null when the location's tax is charged in full. */
  taxReason: TaxReason | null;
  /** The reason in words (null with it). */
  exemption: string | null;
}

const MILLION = 1_000_000n;

/** round(numerator / denominator), half up; both non-negative. */
const divideHalfUp = (numerator: bigint, denominator: bigint) => (2n * numerator + denominator) / (2n * denominator);

interface Rule {
  /** `registration`: the taxRegistrations code that collects it. */
  components: { type: TaxType; ratePpm: number; jurisdiction: string; registration: string }[];
  jurisdiction: string;
  reason: TaxReason | null;
  exemption: string | null;
}

const untaxed = (jurisdiction: string, reason: TaxReason, exemption: string): Rule => ({ components: [], jurisdiction, reason, exemption });
const day = (at: Date) => at.toISOString().slice(0, 10);
const noData = (jurisdiction: string, at: Date) => untaxed(jurisdiction, 'no_data', `No tax rate of ${jurisdiction} is known for ${day(at)}`);

function usRule(state: string, productType: ProductType, at: Date): Rule {
  const jurisdiction = `US-${state}`;
  const taxability = US_STATES[state]!;
  const period = inForce(taxability.rates, at);
  if (!period) return noData(jurisdiction, at);
  if (period.ratePpm === 0) return untaxed(jurisdiction, 'no_tax', `${jurisdiction} has no sales tax`);
  const kind = productType === 'SoftwareKey' || productType === 'Game' ? 'software' : 'digital';
  if (!taxability[kind]) return untaxed(jurisdiction, 'not_taxable', `${kind === 'software' ? 'Electronically delivered software' : 'Digital goods'} are not taxable in ${jurisdiction}`);
  const ratePpm = taxability.digitalRatePpm ?? period.ratePpm;
  return { components: [{ type: 'SALES_TAX', ratePpm, jurisdiction, registration: jurisdiction }], jurisdiction, reason: null, exemption: null };
}

/** The GST, and the province's HST (instead of it: its rate includes the federal part) or PST or QST (on top). GST and HST are one federal registration. */
function canadaRule(province: string, at: Date): Rule {
  const jurisdiction = `CA-${province}`;
  const gst = inForce(CANADA_GST, at);
  const provincialRates = CANADA_PROVINCIAL[province];
  const provincial = provincialRates ? inForce(provincialRates, at) : null;
  if (!gst || (provincialRates && !provincial)) return noData(jurisdiction, at);
  const federal = { type: 'GST' as const, ratePpm: gst.ratePpm, jurisdiction: 'CA', registration: 'CA' };
  if (!provincial || provincial.type === 'none') return { components: [federal], jurisdiction, reason: null, exemption: null };
  const own = { type: provincial.type, ratePpm: provincial.ratePpm, jurisdiction };
  const components = provincial.type === 'HST' ? [{ ...own, registration: 'CA' }] : [federal, { ...own, registration: jurisdiction }];
  return { components, jurisdiction, reason: null, exemption: null };
}

function nationalRule(country: string, at: Date): Rule {
  const period = inForce(NATIONAL_RATES[country], at);
  if (!period) return noData(country, at);
  if (period.type === 'none') return untaxed(country, 'no_tax', `No VAT, GST or sales tax applies in ${country}`);
  return { components: [{ type: period.type, ratePpm: period.ratePpm, jurisdiction: country, registration: country }], jurisdiction: country, reason: null, exemption: null };
}

/** The registrations any of which makes the workspace collect some tax at the location. */
const registrationsOf = ({ country, state }: TaxLocation) => (country === 'US' ? [`US-${state}`] : country === 'CA' ? ['CA', `CA-${state}`] : [country]);

/** Which taxes apply to this product at this location, of those the workspace collects (rates, no amounts). */
function taxRule(productType: ProductType, location: TaxLocation, businessCountry: string | null, registrations: TaxRegistrations, at: Date): Rule {
  const { country, state } = location;
  const jurisdiction = state ? `${country}-${state}` : country;
  if (businessCountry !== null && businessCountry !== country) throw new ValidationFailed(`taxId is a VAT number of ${businessCountry}, but the buyer's country is ${country}`);
  // A multi-purpose voucher is taxed when it is redeemed, not when it is sold (EU Directive 2016/1065; likewise elsewhere).
  if (productType === 'GiftCard') return untaxed(jurisdiction, 'not_taxable', 'Gift cards are taxed when redeemed, not when sold');
  if (businessCountry !== null) return untaxed(jurisdiction, 'reverse_charge', 'Reverse charge: the business buyer accounts for the VAT');
  if (!registrationsOf(location).some((code) => registeredFor(registrations, code))) {
    return untaxed(jurisdiction, 'not_registered', `Not registered for tax in ${jurisdiction}: no tax collected`);
  }
  const rule = country === 'US' ? usRule(state!, productType, at) : country === 'CA' ? canadaRule(state!, at) : nationalRule(country, at);
  const left = rule.components.filter((component) => !registeredFor(registrations, component.registration));
  if (!left.length) return rule;
  const collected = rule.components.filter((component) => registeredFor(registrations, component.registration));
  const exemption = `Not registered for tax in ${left.map((component) => component.registration).join(', ')}: its ${left.map((component) => component.type).join(', ')} not collected`;
  return { ...rule, components: collected, reason: 'not_registered', exemption };
}

/**
 * Each component's amount. Exclusive: each is round(net * rate), and the total adds up. Inclusive:
 * net = round(amount / (1 + rate)) and tax = amount - net; the components but the last are
 * round(net * rate) and the last takes the rest, so they sum to the tax exactly.
 */
function componentAmounts(amount: number, ratesPpm: number[], inclusive: boolean): { net: number; amounts: number[] } {
  const total = BigInt(amount);
  const sumPpm = BigInt(ratesPpm.reduce((sum, rate) => sum + rate, 0));
  if (!inclusive) return { net: amount, amounts: ratesPpm.map((rate) => Number(divideHalfUp(total * BigInt(rate), MILLION))) };
  const net = divideHalfUp(total * MILLION, MILLION + sumPpm);
  const tax = total - net;
  const amounts = ratesPpm.map((rate) => divideHalfUp(net * BigInt(rate), MILLION));
  if (amounts.length) amounts[amounts.length - 1] = tax - amounts.slice(0, -1).reduce((sum, part) => sum + part, 0n);
  return { net: Number(net), amounts: amounts.map(Number) };
}

/** The tax on one amount (one line) for a product type at a location. 400 malformed, 422 undeterminable location. */
export function calculateTax(input: TaxInput): TaxCalculation {
  if (!isMoney(input.amount)) throw new ValidationFailed(`amount must be whole minor units from 0 to ${MAX_MONEY}`);
  const currency = input.currency.trim().toUpperCase();
  if (!isCurrency(currency)) throw new ValidationFailed('currency must be a three-letter currency code of the list');
  const location = checkTaxLocation(input.location);
  const taxId = input.taxId?.trim() ? checkTaxId(input.taxId) : null;
  const rule = taxRule(input.productType, location, taxId?.country ?? null, input.registrations ?? EVERYWHERE, input.at ?? new Date());
  const ratesPpm = rule.components.map((component) => component.ratePpm);
  const { net, amounts } = componentAmounts(input.amount, ratesPpm, input.priceIncludesTax);
  const taxAmount = amounts.reduce((sum, part) => sum + part, 0);
  if (!isMoney(net + taxAmount)) throw new ValidationFailed(`amount with its tax must stay within ${MAX_MONEY} minor units`);
  return {
    productType: input.productType,
    currency,
    location,
    taxId: taxId?.value ?? null,
    priceIncludesTax: input.priceIncludesTax,
    amount: input.amount,
    netAmount: net,
    taxAmount,
    totalAmount: net + taxAmount,
    rate: ratesPpm.reduce((sum, rate) => sum + rate, 0) / 1_000_000,
    taxType: rule.components[0]?.type ?? null,
    jurisdiction: rule.jurisdiction,
    components: rule.components.map((component, index) => ({ type: component.type, rate: component.ratePpm / 1_000_000, jurisdiction: component.jurisdiction, amount: amounts[index]! })),
    reverseCharge: rule.reason === 'reverse_charge',
    taxReason: rule.reason,
    exemption: rule.exemption,
  };
}

/** The calculation, or 422 when the rate data does not know its location at its date (the tax route; a checkout that refuses such sales). */
export function requireTaxData<T extends Pick<TaxCalculation, 'taxReason' | 'exemption'>>(calculation: T): T {
  if (calculation.taxReason === 'no_data') throw new TaxUndetermined(`${calculation.exemption}: tax cannot be determined`);
  return calculation;
}
