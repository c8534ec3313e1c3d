import { ValidationFailed } from '../src/core/errors.js';
import {
  applyDiscount,
  bestSale,
  checkQuantity,
  discountProblem,
  discountShares,
  normalizeDiscountCode,
  orderTaxReason,
  priceCheckout,
  priceLines,
  type PricingDiscount,
  type PricingOffer,
} from '../src/checkout/pricing.js';

// The checkout's pricing as pure functions: no server, no database.

const offer = (id: string, price: number, currency = 'USD', productType: PricingOffer['productType'] = 'DigitalDownload'): PricingOffer => ({
  id, productId: `p-${id}`, variantId: null, name: `Offer ${id}`, price, currency, productType,
});

const discount = (fields: Partial<PricingDiscount> = {}): PricingDiscount => ({
  id: 'd1',
  type: 'code',
  name: 'Ten off',
  amount: '10',
  amountType: 'percentage',
  discountCode: 'TEN',
  validFrom: null,
  validUntil: null,
  purchaseLimit: null,
  timesUsed: 0,
  status: 'active',
  archived: false,
  currency: 'USD',
  includedOfferIds: [],
  excludedOfferIds: [],
  createdAt: 1_000,
  ...fields,
});

const NOW = 1_800_000_000;

describe('quantity', () => {
  test('absent is 1; 1..1000 whole numbers are taken', () => {
    expect(checkQuantity(undefined)).toBe(1);
    expect(checkQuantity(null)).toBe(1);
    expect(checkQuantity(1)).toBe(1);
    expect(checkQuantity(1000)).toBe(1000);
  });
  test.each([0, -1, 1001, 1.5, Number.NaN])('%p is refused', (quantity) => {
    expect(() => checkQuantity(quantity)).toThrow(ValidationFailed);
  });
});

test('lines: one per offer in the given order, each with the quantity', () => {
  const lines = priceLines([offer('a', 1000), offer('b', 250)], 3);
  expect(lines.map((l) => [l.offerId, l.quantity, l.unitPrice, l.subtotal, l.discount, l.tax, l.total])).toEqual([
    ['a', 3, 1000, 3000, 0, 0, 3000],
    ['b', 3, 250, 750, 0, 0, 750],
  ]);
});

describe('percentage discounts', () => {
  test('per eligible line, rounded half up to minor units', () => {
    // 12.5% of 999 = 124.875 -> 125; of 4 = 0.5 -> 1; of 3 = 0.375 -> 0.
    const lines = priceLines([offer('a', 999), offer('b', 4), offer('c', 3)], 1);
    expect(discountShares(discount({ amount: '12.5' }), lines)).toEqual([125, 1, 0]);
  });
  test('four decimals are exact', () => {
    const lines = priceLines([offer('a', 10_000)], 1);
    expect(discountShares(discount({ amount: '33.3333' }), lines)).toEqual([3333]);
  });
  test('100% takes the whole line, no more', () => {
    const lines = priceLines([offer('a', 2_147_483_647)], 1);
    expect(discountShares(discount({ amount: '100' }), lines)).toEqual([2_147_483_647]);
  });
  test('only included offers, never excluded ones', () => {
    const lines = priceLines([offer('a', 1000), offer('b', 1000), offer('c', 1000)], 1);
    expect(discountShares(discount({ includedOfferIds: ['a', 'b'], excludedOfferIds: ['b'] }), lines)).toEqual([100, 0, 0]);
    expect(discountShares(discount({ excludedOfferIds: ['c'] }), lines)).toEqual([100, 100, 0]);
  });
});

describe('fixed discounts', () => {
  test('once per order, spread in proportion to the eligible subtotals, summing exactly', () => {
    const lines = priceLines([offer('a', 1000), offer('b', 1000), offer('c', 1000)], 1);
    const shares = discountShares(discount({ amountType: 'fixed', amount: '100' }), lines);
    expect(shares).toEqual([34, 33, 33]);
    expect(shares.reduce((a, b) => a + b)).toBe(100);
  });
  test('largest remainder first, ties to the earlier line', () => {
    const lines = priceLines([offer('a', 100), offer('b', 200), offer('c', 700)], 1);
    // 7 off 1000: 0.7, 1.4, 4.9 -> floors 0, 1, 4 (5); remainders .7, .4, .9 -> c, then a.
    expect(discountShares(discount({ amountType: 'fixed', amount: '7' }), lines)).toEqual([1, 1, 5]);
  });
  test('capped at the eligible subtotal, excluded lines untouched', () => {
    const lines = priceLines([offer('a', 300), offer('b', 500)], 2);
    expect(discountShares(discount({ amountType: 'fixed', amount: '5000', excludedOfferIds: ['b'] }), lines)).toEqual([600, 0]);
  });
  test('large amounts do not lose precision', () => {
    const lines = priceLines([offer('a', 1_000_000_000), offer('b', 1_000_000_001)], 1);
    const shares = discountShares(discount({ amountType: 'fixed', amount: '2000000001' }), lines);
    expect(shares).toEqual([1_000_000_000, 1_000_000_001]);
  });
  test('every line stays at or above 0 and the shares always sum to the amount off', () => {
    for (let seed = 1; seed < 200; seed += 1) {
      const prices = [seed * 7 % 113, seed * 13 % 997, seed % 5, 1 + seed * 31 % 4099];
      const lines = priceLines(prices.map((p, i) => offer(String(i), p)), 1 + (seed % 3));
      const amount = 1 + ((seed * 101) % 3000);
      const shares = discountShares(discount({ amountType: 'fixed', amount: String(amount) }), lines);
      const eligible = lines.reduce((s, l) => s + l.subtotal, 0);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.min(amount, eligible));
      shares.forEach((share, i) => expect(share).toBeLessThanOrEqual(lines[i]!.subtotal));
    }
  });
});

describe('eligibility', () => {
  const lines = priceLines([offer('a', 1000)], 1);
  test.each([
    [{ archived: true }, 'does not exist'],
    [{ status: 'inactive' as const }, 'is not active'],
    [{ validFrom: NOW + 1 }, 'is not valid yet'],
    [{ validUntil: NOW - 1 }, 'has expired'],
    [{ purchaseLimit: 2, timesUsed: 2 }, 'reached its purchase limit'],
    [{ currency: 'EUR' }, 'is for EUR purchases, not USD'],
    [{ includedOfferIds: ['x'] }, 'does not apply to these offers'],
    [{ excludedOfferIds: ['a'] }, 'does not apply to these offers'],
  ])('%p: %s', (fields, reason) => {
    expect(discountProblem(discount(fields), lines, 'USD', NOW)).toContain(reason);
  });
  test('validFrom and validUntil are inclusive Unix seconds', () => {
    expect(discountProblem(discount({ validFrom: NOW, validUntil: NOW }), lines, 'USD', NOW)).toBeNull();
    expect(discountProblem(discount({ purchaseLimit: 2, timesUsed: 1 }), lines, 'USD', NOW)).toBeNull();
  });
});

describe('sales', () => {
  const lines = priceLines([offer('a', 1000), offer('b', 500)], 1);
  const sale = (id: string, fields: Partial<PricingDiscount>) => discount({ id, type: 'sale', discountCode: null, ...fields });
  test('the one saving the buyer most wins', () => {
    const sales = [sale('s1', { amount: '10' }), sale('s2', { amountType: 'fixed', amount: '200' }), sale('s3', { amount: '50', includedOfferIds: ['b'] })];
    expect(bestSale(sales, lines, 'USD', NOW)?.id).toBe('s3');
  });
  test('unusable sales are skipped; equal savings go to the oldest', () => {
    const sales = [sale('s1', { amount: '90', status: 'inactive' }), sale('s2', { amount: '10', createdAt: 5 }), sale('s3', { amountType: 'fixed', amount: '150', createdAt: 1 })];
    expect(bestSale(sales, lines, 'USD', NOW)?.id).toBe('s3');
    expect(bestSale([sale('s1', { validUntil: NOW - 1 })], lines, 'USD', NOW)).toBeNull();
  });
});

describe('the whole price', () => {
  const offers = [offer('a', 1000), offer('b', 500)];
  test('past the money range (2^31 - 1 minor units) it is refused, not computed', () => {
    const price = (input: { offers: PricingOffer[]; quantity: number }) => () => priceCheckout({ ...input, code: null, sales: [], nowSeconds: NOW, tax: null });
    expect(price({ offers: [offer('a', 2_147_483_647)], quantity: 1 })).not.toThrow();
    expect(price({ offers: [offer('a', 2_147_483_647)], quantity: 2 })).toThrow(ValidationFailed);
    expect(price({ offers: [offer('a', 1_073_741_824), offer('b', 1_073_741_824)], quantity: 1 })).toThrow(ValidationFailed);
  });
  test('a code applies; the totals add up', () => {
    const price = priceCheckout({ offers, quantity: 2, code: { sent: 'ten', discount: discount() }, sales: [], nowSeconds: NOW, tax: null });
    expect(price).toMatchObject({ currency: 'USD', subtotal: 3000, tax: 0, total: 2700, requiresPayment: true, discountRejection: null });
    expect(price.discount).toEqual({ id: 'd1', type: 'code', name: 'Ten off', amountType: 'percentage', amount: '10', discountCode: 'TEN', amountOff: 300 });
    expect(price.lines.map((l) => [l.discount, l.total])).toEqual([[200, 1800], [100, 900]]);
  });
  test('an unknown or unusable code is reported, and no sale replaces it', () => {
    const sales = [discount({ id: 's', type: 'sale', discountCode: null })];
    expect(priceCheckout({ offers, quantity: 1, code: { sent: 'NOPE', discount: null }, sales, nowSeconds: NOW, tax: null })).toMatchObject({
      discount: null,
      discountRejection: 'discount code NOPE does not exist',
      total: 1500,
    });
    const expired = priceCheckout({ offers, quantity: 1, code: { sent: 'TEN', discount: discount({ validUntil: NOW - 10 }) }, sales, nowSeconds: NOW, tax: null });
    expect(expired).toMatchObject({ discount: null, discountRejection: 'discount code TEN has expired' });
  });
  test('without a code, the best sale applies', () => {
    const price = priceCheckout({ offers, quantity: 1, code: null, sales: [discount({ id: 's', type: 'sale', discountCode: null, amount: '100' })], nowSeconds: NOW, tax: null });
    expect(price).toMatchObject({ total: 0, requiresPayment: false, discountRejection: null });
    expect(price.discount?.amountOff).toBe(1500);
  });
  test('a free offer needs no payment', () => {
    expect(priceCheckout({ offers: [offer('f', 0)], quantity: 3, code: null, sales: [], nowSeconds: NOW, tax: null })).toMatchObject({ total: 0, requiresPayment: false });
  });
  test('tax per line on what it costs after its discount, exclusive: added to the total', () => {
    const tax = { location: { country: 'DE', state: null, postalCode: null }, taxId: null, pricesIncludeTax: false, registrations: 'everywhere' as const, noTaxData: 'refuse' as const, at: new Date(NOW * 1000) };
    const price = priceCheckout({ offers, quantity: 1, code: { sent: 'ten', discount: discount() }, sales: [], nowSeconds: NOW, tax });
    // 900 and 450 after 10% off; 19% VAT: 171 and 85.5 -> 86.
    expect(price.lines.map((l) => [l.discount, l.tax, l.total, l.taxInclusive])).toEqual([[100, 171, 1071, false], [50, 86, 536, false]]);
    expect(price).toMatchObject({ subtotal: 1500, tax: 257, total: 1607, taxInclusive: false, taxCalculated: true, taxes: [{ type: 'VAT', rate: 0.19, jurisdiction: 'DE', amount: 257 }] });
  });
  test('tax inclusive: within the price, the total unchanged; a gift card line untaxed', () => {
    const tax = { location: { country: 'CA', state: 'QC', postalCode: null }, taxId: null, pricesIncludeTax: true, registrations: 'everywhere' as const, noTaxData: 'refuse' as const, at: new Date(NOW * 1000) };
    const price = priceCheckout({ offers: [offer('a', 114_975), offer('g', 50_000, 'USD', 'GiftCard')], quantity: 1, code: null, sales: [], nowSeconds: NOW, tax });
    expect(price.lines.map((l) => [l.subtotal, l.tax, l.total])).toEqual([[114975, 14975, 114975], [50000, 0, 50000]]);
    expect(price).toMatchObject({ tax: 14975, total: 164975, taxInclusive: true });
    expect(price.taxes).toEqual([{ type: 'GST', rate: 0.05, jurisdiction: 'CA', amount: 5000 }, { type: 'QST', rate: 0.09975, jurisdiction: 'CA-QC', amount: 9975 }]);
  });
  test('no location yet: no tax, and the quote says so', () => {
    expect(priceCheckout({ offers, quantity: 1, code: null, sales: [], nowSeconds: NOW, tax: null })).toMatchObject({ tax: 0, taxCalculated: false, taxes: [], total: 1500, taxReason: null });
  });
  test('the order\'s tax reason: one the buyer or the location gives on any line, else the one every line gives', () => {
    expect(orderTaxReason(['not_taxable', 'reverse_charge'])).toBe('reverse_charge');
    expect(orderTaxReason([null, 'not_registered'])).toBe('not_registered');
    expect(orderTaxReason(['not_taxable', 'no_data'])).toBe('no_data');
    expect(orderTaxReason(['not_taxable', 'not_taxable'])).toBe('not_taxable');
    expect(orderTaxReason(['not_taxable', null])).toBeNull();
    expect(orderTaxReason([])).toBeNull();
  });
  test('no tax data: refused (422) when the workspace says refuse, sold without tax (no_data) otherwise', () => {
    const tax = { location: { country: 'BR', state: null, postalCode: null }, taxId: null, pricesIncludeTax: false, registrations: 'everywhere' as const, at: new Date(NOW * 1000) };
    expect(() => priceCheckout({ offers, quantity: 1, code: null, sales: [], nowSeconds: NOW, tax: { ...tax, noTaxData: 'refuse' } })).toThrow(/BR .*cannot be determined/);
    const sold = priceCheckout({ offers, quantity: 1, code: null, sales: [], nowSeconds: NOW, tax: { ...tax, noTaxData: 'sell_without_tax' } });
    expect(sold).toMatchObject({ tax: 0, total: 1500, taxReason: 'no_data' });
    expect(sold.lines.map((line) => line.taxReason)).toEqual(['no_data', 'no_data']);
  });
  test('applyDiscount without a discount changes nothing', () => {
    const lines = priceLines(offers, 1);
    expect(applyDiscount(lines, null)).toEqual(lines);
  });
  test('codes: trimmed, empty means none', () => {
    expect(normalizeDiscountCode('  Summer ')).toBe('Summer');
    expect(normalizeDiscountCode('   ')).toBeNull();
    expect(normalizeDiscountCode(undefined)).toBeNull();
  });
});
