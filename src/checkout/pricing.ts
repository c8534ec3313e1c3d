// The price of a hosted checkout, as pure functions: the lines from the element's offers and the
// quantity, which discount applies (a code the buyer typed, or the best automatic sale) and how
// it is spread over the lines, each line's tax (src/tax's calculation on the line after its
// discount) and the totals. No database here: sale-service.ts reads (and locks) the rows and calls
// these, so the quote and the order compute exactly the same numbers. Money is integer minor units
// (docs/decisions.md).
import { ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';
import type { ProductType } from '../generated/prisma/enums.js';
import { calculateTax, requireTaxData, type TaxComponent, type TaxReason, type TaxLocation, type TaxRegistrations } from '../tax/index.js';

/** Units of every offer line a checkout may buy (svc-quantity); docs/decisions.md "Hosted checkout". */
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 1000;

export interface PricingOffer {
  id: string;
  productId: string;
  variantId: string | null;
  /** The offer's name, or its product's when the offer has none. */
  name: string;
  /** Minor units per unit. */
  price: number;
  currency: string;
  /** Decides how the line is taxed. */
  productType: ProductType;
}

/** Where the buyer is taxed, and the workspace's tax settings. */
export interface PricingTax {
  location: TaxLocation;
  /** A business buyer's checked VAT number: reverse charge. */
  taxId: string | null;
  /** The workspace's pricesIncludeTax. */
  pricesIncludeTax: boolean;
  /** The workspace's taxRegistrations. */
  registrations: TaxRegistrations;
  /** The workspace's noTaxData: refuse a sale the rate data does not know the location of (422), or sell it without tax. */
  noTaxData: 'sell_without_tax' | 'refuse';
  /** Rates in force at this time. */
  at: Date;
}

export interface PricingDiscount {
  id: string;
  type: 'code' | 'sale';
  name: string | null;
  /** As the Discount resource shows it: a percentage (up to 4 decimals) or whole minor units. */
  amount: string;
  amountType: 'fixed' | 'percentage';
  discountCode: string | null;
  /** Unix seconds, inclusive. */
  validFrom: number | null;
  /** Unix seconds, inclusive. */
  validUntil: number | null;
  purchaseLimit: number | null;
  timesUsed: number;
  status: 'active' | 'inactive';
  archived: boolean;
  currency: string;
  /** Empty: every offer (includesAllOffers). */
  includedOfferIds: readonly string[];
  excludedOfferIds: readonly string[];
  /** Unix milliseconds; the older of two equally good sales wins. */
  createdAt: number;
}

export interface QuoteLine {
  offerId: string;
  productId: string;
  variantId: string | null;
  name: string;
  quantity: number;
  unitPrice: number;
  /** unitPrice * quantity. */
  subtotal: number;
  discount: number;
  /** The line's tax: within the total when the price includes it, added to it otherwise. */
  tax: number;
  /** subtotal - discount, plus tax unless taxInclusive. */
  total: number;
  taxInclusive: boolean;
  /** Why less tax than the location's, or none, is charged on the line (null: in full, or not calculated yet). */
  taxReason: TaxReason | null;
}

export interface AppliedDiscount {
  id: string;
  type: 'code' | 'sale';
  name: string | null;
  amountType: 'fixed' | 'percentage';
  amount: string;
  discountCode: string | null;
  /** What it takes off this order, minor units (the sum of the lines' discounts). */
  amountOff: number;
}

export interface CheckoutPrice {
  currency: string;
  lines: QuoteLine[];
  subtotal: number;
  discount: AppliedDiscount | null;
  /** Why the discountCode sent was not applied (null when none was sent or it applies). */
  discountRejection: string | null;
  tax: number;
  /** Whether the prices (and so the subtotal) include the tax. */
  taxInclusive: boolean;
  /** False when no location was given (a quote before the buyer chose a country): tax is 0 until then. */
  taxCalculated: boolean;
  /** The taxes of all lines, summed per type, rate and jurisdiction, for the summary. */
  taxes: TaxComponent[];
  /** Why less tax than the location's, or none, is charged on the order (orderTaxReason of the lines). */
  taxReason: TaxReason | null;
  total: number;
  requiresPayment: boolean;
}

/** The quantity sent (absent: 1), checked: a whole number from 1 to 1000. */
export function checkQuantity(quantity: number | null | undefined): number {
  if (quantity === undefined || quantity === null) return MIN_QUANTITY;
  if (!Number.isInteger(quantity) || quantity < MIN_QUANTITY || quantity > MAX_QUANTITY) {
    throw new ValidationFailed(`quantity must be a whole number from ${MIN_QUANTITY} to ${MAX_QUANTITY}`);
  }
  return quantity;
}

/** One line per offer, in the element's order, each with the same quantity; no discount or tax yet. */
export function priceLines(offers: readonly PricingOffer[], quantity: number): QuoteLine[] {
  return offers.map((offer) => {
    const subtotal = offer.price * quantity;
    return { offerId: offer.id, productId: offer.productId, variantId: offer.variantId, name: offer.name, quantity, unitPrice: offer.price, subtotal, discount: 0, tax: 0, total: subtotal, taxInclusive: false, taxReason: null };
  });
}

/** The lines a discount may reduce: its included offers (all when none), less its excluded ones. */
export function eligibleLines(discount: Pick<PricingDiscount, 'includedOfferIds' | 'excludedOfferIds'>, lines: readonly Pick<QuoteLine, 'offerId'>[]): boolean[] {
  const included = new Set(discount.includedOfferIds);
  const excluded = new Set(discount.excludedOfferIds);
  return lines.map((line) => (included.size === 0 || included.has(line.offerId)) && !excluded.has(line.offerId));
}

/**
 * Why the discount cannot be used on these lines now (null: it can). Checked in this order:
 * archived or unknown, inactive, not yet valid, expired, purchase limit reached, currency, offers.
 */
export function discountProblem(discount: PricingDiscount, lines: readonly QuoteLine[], currency: string, nowSeconds: number): string | null {
  const label = discount.type === 'code' && discount.discountCode ? `discount code ${discount.discountCode}` : 'the discount';
  if (discount.archived) return `${label} does not exist`;
  if (discount.status !== 'active') return `${label} is not active`;
  if (discount.validFrom !== null && nowSeconds < discount.validFrom) return `${label} is not valid yet`;
  if (discount.validUntil !== null && nowSeconds > discount.validUntil) return `${label} has expired`;
  if (discount.purchaseLimit !== null && discount.timesUsed >= discount.purchaseLimit) return `${label} has reached its purchase limit`;
  if (discount.currency.toUpperCase() !== currency.toUpperCase()) return `${label} is for ${discount.currency} purchases, not ${currency}`;
  if (!eligibleLines(discount, lines).some(Boolean)) return `${label} does not apply to these offers`;
  return null;
}

/** A percentage as an integer number of ten-thousandths of a percent (12.5 -> 125000); the column keeps 4 decimals. */
function percentageUnits(amount: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,4}))?$/.exec(amount.trim());
  if (!match) throw new Error(`Malformed percentage ${JSON.stringify(amount)}`);
  return BigInt(match[1]!) * 10_000n + BigInt((match[2] ?? '').padEnd(4, '0'));
}

/** round(numerator / denominator), a half rounding up; both positive. */
const divideHalfUp = (numerator: bigint, denominator: bigint) => (2n * numerator + denominator) / (2n * denominator);

/**
 * Each line's share of the discount, minor units, never more than the line's subtotal.
 * Percentage: per eligible line, `subtotal * percentage / 100` rounded half up.
 * Fixed: once per order, capped at the eligible subtotal, spread over the eligible lines in
 * proportion to their subtotals (largest remainder; ties to the earlier line), so the shares sum
 * to exactly the amount off.
 */
export function discountShares(discount: Pick<PricingDiscount, 'amount' | 'amountType' | 'includedOfferIds' | 'excludedOfferIds'>, lines: readonly Pick<QuoteLine, 'offerId' | 'subtotal'>[]): number[] {
  const eligible = eligibleLines(discount, lines);
  if (discount.amountType === 'percentage') {
    const units = percentageUnits(discount.amount);
    return lines.map((line, index) => {
      if (!eligible[index]) return 0;
      return Math.min(line.subtotal, Number(divideHalfUp(BigInt(line.subtotal) * units, 1_000_000n)));
    });
  }
  const eligibleSubtotal = lines.reduce((sum, line, index) => sum + (eligible[index] ? line.subtotal : 0), 0);
  const fixed = Number(discount.amount);
  if (!Number.isInteger(fixed) || fixed < 0) throw new Error(`Malformed fixed amount ${JSON.stringify(discount.amount)}`);
  const off = BigInt(Math.min(fixed, eligibleSubtotal));
  if (off === 0n) return lines.map(() => 0);
  const total = BigInt(eligibleSubtotal);
  const shares = lines.map((line, index) => (eligible[index] ? (off * BigInt(line.subtotal)) / total : 0n));
  const remainders = lines.map((line, index) => (eligible[index] ? (off * BigInt(line.subtotal)) % total : -1n));
  let left = Number(off - shares.reduce((sum, share) => sum + share, 0n));
  const byRemainder = lines.map((_, index) => index).sort((a, b) => (remainders[b]! > remainders[a]! ? 1 : remainders[b]! < remainders[a]! ? -1 : a - b));
  for (const index of byRemainder) {
    if (left === 0) break;
    if (remainders[index]! <= 0n) continue;
    shares[index]! += 1n;
    left -= 1;
  }
  return shares.map(Number);
}

/** The lines with the discount's shares applied (and their totals updated). */
export function applyDiscount(lines: readonly QuoteLine[], discount: PricingDiscount | null): QuoteLine[] {
  const shares = discount ? discountShares(discount, lines) : lines.map(() => 0);
  return lines.map((line, index) => {
    const share = shares[index]!;
    return { ...line, discount: share, total: line.subtotal - share + (line.taxInclusive ? 0 : line.tax) };
  });
}

/**
 * Each line taxed on what it costs after its discount, by its product's type, with the same
 * calculation as everywhere (src/tax); per line, so refunds can give back each line's tax exactly.
 */
export function applyTax(lines: readonly QuoteLine[], offers: readonly PricingOffer[], currency: string, tax: PricingTax): { lines: QuoteLine[]; taxes: TaxComponent[] } {
  const taxes = new Map<string, TaxComponent>();
  const taxed = lines.map((line, index) => {
    const base = line.subtotal - line.discount;
    const { location, taxId, registrations, at } = tax;
    const calculated = calculateTax({ productType: offers[index]!.productType, amount: base, currency, location, taxId, priceIncludesTax: tax.pricesIncludeTax, registrations, at });
    const calculation = tax.noTaxData === 'refuse' ? requireTaxData(calculated) : calculated;
    for (const component of calculation.components) {
      const key = `${component.type}|${component.jurisdiction}|${component.rate}`;
      const sum = taxes.get(key);
      taxes.set(key, sum ? { ...sum, amount: sum.amount + component.amount } : { ...component });
    }
    const total = tax.pricesIncludeTax ? base : base + calculation.taxAmount;
    return { ...line, tax: calculation.taxAmount, total, taxInclusive: tax.pricesIncludeTax, taxReason: calculation.taxReason };
  });
  return { lines: taxed, taxes: [...taxes.values()] };
}

// Reasons that hold for the buyer or the location, so for every taxable line: any line's names the order.
const ORDER_REASONS: readonly TaxReason[] = ['reverse_charge', 'not_registered', 'no_data'];

/**
 * The order's reason from its lines': the first of reverse_charge, not_registered and no_data that
 * a line gives (a gift card line beside them says not_taxable); else the reason every line gives
 * (no_tax, not_taxable), or null when the lines differ or any is taxed in full.
 */
export function orderTaxReason(reasons: readonly (TaxReason | null)[]): TaxReason | null {
  const located = ORDER_REASONS.find((reason) => reasons.includes(reason));
  if (located) return located;
  return reasons.length > 0 && reasons.every((reason) => reason === reasons[0]) ? (reasons[0] ?? null) : null;
}

const amountOff = (discount: PricingDiscount, lines: readonly QuoteLine[]) => discountShares(discount, lines).reduce((sum, share) => sum + share, 0);

/**
 * The automatic sale that saves the buyer the most on these lines, among those usable now; of
 * equally good ones the oldest (then the smaller id). Null when none applies or none saves anything.
 */
export function bestSale(sales: readonly PricingDiscount[], lines: readonly QuoteLine[], currency: string, nowSeconds: number): PricingDiscount | null {
  let best: { sale: PricingDiscount; off: number } | null = null;
  for (const sale of sales) {
    if (sale.type !== 'sale' || discountProblem(sale, lines, currency, nowSeconds) !== null) continue;
    const off = amountOff(sale, lines);
    if (off === 0) continue;
    const better = !best || off > best.off || (off === best.off && (sale.createdAt < best.sale.createdAt || (sale.createdAt === best.sale.createdAt && sale.id < best.sale.id)));
    if (better) best = { sale, off };
  }
  return best?.sale ?? null;
}

/** The code as the buyer typed it, trimmed; empty means no code (an empty svc-discount-code). */
export function normalizeDiscountCode(code: string | null | undefined): string | null {
  const trimmed = code?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export interface PriceInput {
  offers: readonly PricingOffer[];
  quantity: number;
  /** The code sent (normalized), and the discount it names (null when none matches: unknown). */
  code: { sent: string; discount: PricingDiscount | null } | null;
  /** The scope's automatic sales; used only when no code is sent. */
  sales: readonly PricingDiscount[];
  nowSeconds: number;
  /** Null: no location yet (a quote), no tax. */
  tax: PricingTax | null;
}

/** The whole price: lines, the discount applied (or why the code was not), tax and totals. */
export function priceCheckout(input: PriceInput): CheckoutPrice {
  const currency = input.offers[0]?.currency ?? '';
  const lines = priceLines(input.offers, input.quantity);
  let discount: PricingDiscount | null = null;
  let discountRejection: string | null = null;
  if (input.code) {
    const found = input.code.discount;
    const problem = !found || found.type !== 'code' ? `discount code ${input.code.sent} does not exist` : discountProblem(found, lines, currency, input.nowSeconds);
    if (problem) discountRejection = problem;
    else discount = found;
  } else {
    discount = bestSale(input.sales, lines, currency, input.nowSeconds);
  }
  // Past the money range the order could not be stored nor its answer written: refused (400).
  if (!isMoney(lines.reduce((sum, line) => sum + line.subtotal, 0))) throw new ValidationFailed(`an order's value is at most ${MAX_MONEY} minor units`);
  const discounted = applyDiscount(lines, discount);
  const taxed = input.tax ? applyTax(discounted, input.offers, currency, input.tax) : { lines: discounted, taxes: [] };
  const priced = taxed.lines;
  if (!isMoney(priced.reduce((sum, line) => sum + line.total, 0))) throw new ValidationFailed(`an order's value with its tax is at most ${MAX_MONEY} minor units`);
  const subtotal = priced.reduce((sum, line) => sum + line.subtotal, 0);
  const off = priced.reduce((sum, line) => sum + line.discount, 0);
  const tax = priced.reduce((sum, line) => sum + line.tax, 0);
  const total = priced.reduce((sum, line) => sum + line.total, 0);
  return {
    currency,
    lines: priced,
    subtotal,
    discount: discount && {
      id: discount.id,
      type: discount.type,
      name: discount.name,
      amountType: discount.amountType,
      amount: discount.amount,
      discountCode: discount.discountCode,
      amountOff: off,
    },
    discountRejection,
    tax,
    taxInclusive: input.tax?.pricesIncludeTax ?? false,
    taxCalculated: input.tax !== null,
    taxes: taxed.taxes,
    taxReason: orderTaxReason(priced.map((line) => line.taxReason)),
    total,
    requiresPayment: total > 0,
  };
}
