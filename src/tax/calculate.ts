// The one tax calculation: pure (no database, no clock unless `at` is left out), exported for every
// domain that charges: the tax route, the checkout's quote and order, and subscription renewals.
// Rules and rounding: docs/decisions.md "Tax". Money is integer minor units; rates are integer
// parts per million, so every amount is computed exactly and rounded once, half up, to the
// currency's smallest unit (a cent, a yen, a fils: amounts are already in that unit).
import { ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';
import type { ProductType } from '../generated/prisma/enums.js';
import { isCurrency } from '../reference/currencies.js';
import { US_RATE_CORRECTIONS, US_STATES } from './data/us-states.js';
import { VAT_ID_FORMATS } from './data/vat-id-formats.js';
import { checkTaxLocation, type TaxLocation, type TaxLocationInput } from './location.js';
import { countryRate, EU_MEMBER_STATES, regionRate } from './sources.js';

export type TaxType = 'VAT' | 'GST' | 'HST' | 'PST' | 'QST' | 'SALES_TAX';

export interface TaxInput {
  productType: ProductType;
  /** Minor units: the price as the workspace states it (with the tax in it when priceIncludesTax). */
  amount: number;
  currency: string;
  location: TaxLocationInput;
  /** A business buyer's tax id (EU VAT number, UK VAT number): reverse charge when well formed. */
  taxId?: string | null;
  priceIncludesTax: boolean;
  /** When the sale happens (rates in force then); default now. */
  at?: Date;
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
  /** Why no tax is charged (null when some is). */
  exemption: string | null;
}

const MILLION = 1_000_000n;

/** round(numerator / denominator), half up; both non-negative. */
const divideHalfUp = (numerator: bigint, denominator: bigint) => (2n * numerator + denominator) / (2n * denominator);

interface Rule {
  components: { type: TaxType; ratePpm: number; jurisdiction: string }[];
  jurisdiction: string;
  reverseCharge: boolean;
  exemption: string | null;
}

const SOURCE_TYPE: Readonly<Record<string, TaxType>> = { vat: 'VAT', gst: 'GST', hst: 'HST', pst: 'PST', qst: 'QST' };

/** The well-formed tax id's country (GR for an EL number), or 400. */
export function taxIdCountry(taxId: string): string {
  const compact = taxId.toUpperCase().replace(/[\s.-]/g, '');
  const format = VAT_ID_FORMATS[compact.slice(0, 2)];
  if (!format || !format.pattern.test(compact.slice(2))) throw new ValidationFailed('taxId is not a well-formed EU or UK VAT number (country prefix, then its digits)');
  return format.country;
}

function usRule(state: string, productType: ProductType, at: Date): Rule {
  const jurisdiction = `US-${state}`;
  const taxability = US_STATES[state]!;
  const kind = productType === 'SoftwareKey' || productType === 'Game' ? 'software' : 'digital';
  if (!taxability[kind]) return { components: [], jurisdiction, reverseCharge: false, exemption: `${kind === 'software' ? 'Electronically delivered software' : 'Digital goods'} are not taxable in ${jurisdiction}` };
  const ratePpm = taxability.digitalRatePpm ?? US_RATE_CORRECTIONS[state]?.ratePpm ?? regionRate('US', state, at)?.ratePpm ?? 0;
  return { components: [{ type: 'SALES_TAX', ratePpm, jurisdiction }], jurisdiction, reverseCharge: false, exemption: null };
}

function canadaRule(province: string, national: { ratePpm: number }, at: Date): Rule {
  const jurisdiction = `CA-${province}`;
  const provincial = regionRate('CA', province, at);
  if (!provincial) return { components: [{ type: 'GST', ratePpm: national.ratePpm, jurisdiction: 'CA' }], jurisdiction, reverseCharge: false, exemption: null };
  const type = SOURCE_TYPE[provincial.type]!;
  // HST is one harmonized tax (the federal part included); PST and QST come on top of the GST.
  if (type === 'HST') return { components: [{ type, ratePpm: national.ratePpm + provincial.ratePpm, jurisdiction }], jurisdiction, reverseCharge: false, exemption: null };
  return { components: [{ type: 'GST', ratePpm: national.ratePpm, jurisdiction: 'CA' }, { type, ratePpm: provincial.ratePpm, jurisdiction }], jurisdiction, reverseCharge: false, exemption: null };
}

/** Which taxes apply to this product at this location (rates, no amounts). */
function taxRule(productType: ProductType, location: TaxLocation, taxId: string | null, at: Date): Rule {
  const { country, state } = location;
  const jurisdiction = state ? `${country}-${state}` : country;
  const none = (exemption: string): Rule => ({ components: [], jurisdiction, reverseCharge: false, exemption });
  const businessCountry = taxId === null ? null : taxIdCountry(taxId);
  if (businessCountry !== null && businessCountry !== country) throw new ValidationFailed(`taxId is a VAT number of ${businessCountry}, but the buyer's country is ${country}`);
  // A multi-purpose voucher is taxed when it is redeemed, not when it is sold (EU Directive 2016/1065; likewise elsewhere).
  if (productType === 'GiftCard') return none('Gift cards are taxed when redeemed, not when sold');
  if (businessCountry !== null && (EU_MEMBER_STATES.has(country) || country === 'GB')) {
    return { components: [], jurisdiction, reverseCharge: true, exemption: 'Reverse charge: the business buyer accounts for the VAT' };
  }
  if (country === 'US') return usRule(state!, productType, at);
  const national = countryRate(country, at);
  if (!national || national.ratePpm === 0) return none(`No VAT, GST or sales tax applies in ${country}`);
  if (country === 'CA') return canadaRule(state!, national, at);
  return { components: [{ type: SOURCE_TYPE[national.type] ?? 'VAT', ratePpm: national.ratePpm, jurisdiction: country }], jurisdiction, reverseCharge: false, exemption: null };
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
  const taxId = input.taxId?.trim() || null;
  const rule = taxRule(input.productType, location, taxId, input.at ?? new Date());
  const ratesPpm = rule.components.map((component) => component.ratePpm);
  const { net, amounts } = componentAmounts(input.amount, ratesPpm, input.priceIncludesTax);
  const taxAmount = amounts.reduce((sum, part) => sum + part, 0);
  if (!isMoney(net + taxAmount)) throw new ValidationFailed(`amount with its tax must stay within ${MAX_MONEY} minor units`);
  return {
    productType: input.productType,
    currency,
    location,
    priceIncludesTax: input.priceIncludesTax,
    amount: input.amount,
    netAmount: net,
    taxAmount,
    totalAmount: net + taxAmount,
    rate: ratesPpm.reduce((sum, rate) => sum + rate, 0) / 1_000_000,
    taxType: rule.components[0]?.type ?? null,
    jurisdiction: rule.jurisdiction,
    components: rule.components.map((component, index) => ({ type: component.type, rate: component.ratePpm / 1_000_000, jurisdiction: component.jurisdiction, amount: amounts[index]! })),
    reverseCharge: rule.reverseCharge,
    exemption: rule.components.length ? null : rule.exemption,
  };
}
