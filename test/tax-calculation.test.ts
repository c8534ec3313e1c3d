import fc from 'fast-check';
import { ValidationFailed } from '../src/core/errors.js';
import type { ProductType } from '../src/generated/prisma/enums.js';
import { calculateTax, type TaxInput } from '../src/tax/calculate.js';
import { US_STATES } from '../src/tax/data/us-states.js';
import { TaxUndetermined } from '../src/tax/location.js';

// The tax calculation as a pure function: every expected rate is a published one, named with its
// source next to it. No server, no database.

const tax = (location: TaxInput['location'], fields: Partial<TaxInput> = {}) =>
  calculateTax({ productType: 'DigitalDownload', amount: 10_000, currency: 'EUR', location, priceIncludesTax: false, at: new Date('2026-11-25T12:00:00Z'), ...fields });

describe('published national rates (exclusive prices: 100.00 plus tax)', () => {
  // [country, rate, tax type, source]
  const published: [string, number, string, string][] = [
    ['DE', 0.19, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: Germany 19%'],
    ['FR', 0.2, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: France 20%'],
    ['IT', 0.22, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: Italy 22%'],
    ['IE', 0.23, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: Ireland 23%'],
    ['HU', 0.27, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: Hungary 27%'],
    ['FI', 0.255, 'VAT', 'Finnish Tax Administration (vero.fi): general VAT rate 25.5% from 1 September 2024'],
    ['LU', 0.17, 'VAT', 'European Commission, "VAT rates applied in the Member States", 1 January 2025: Luxembourg 17%'],
    ['SK', 0.23, 'VAT', 'Slovak Financial Administration: standard VAT rate 23% from 1 January 2025'],
    ['GB', 0.2, 'VAT', 'GOV.UK, "VAT rates": standard rate 20%'],
    ['NO', 0.25, 'VAT', 'Skatteetaten, "Value added tax (VAT) rates": general rate 25% (VOEC for digital services)'],
    ['CH', 0.081, 'VAT', 'Swiss Federal Tax Administration (ESTV), "VAT rates Switzerland": standard rate 8.1% from 1 January 2024'],
    ['AU', 0.1, 'GST', 'Australian Taxation Office, "Goods and services tax": 10%, also on imported digital products'],
    ['NZ', 0.15, 'GST', 'Inland Revenue (ird.govt.nz), "GST": 15%, also on remote services'],
    ['JP', 0.1, 'VAT', 'National Tax Agency Japan, consumption tax: standard rate 10%'],
    ['BH', 0.1, 'VAT', 'Bahrain National Bureau for Revenue: VAT 10% from 1 January 2022'],
  ];
  test.each(published)('%s: %s %s (%s)', (country, rate, type) => {
    const result = tax({ country });
    expect(result.rate).toBe(rate);
    expect(result.taxType).toBe(type);
    expect(result.jurisdiction).toBe(country);
    expect(result.taxAmount).toBe(Math.round(10_000 * rate));
    expect(result.totalAmount).toBe(10_000 + result.taxAmount);
    expect(result.exemption).toBeNull();
    expect(result.taxReason).toBeNull();
  });

  test('a rate in force at the time of the sale: Germany 16% from July to December 2020 (Bundesfinanzministerium, Corona-Steuerhilfegesetz II)', () => {
    expect(tax({ country: 'DE' }, { at: new Date('2020-09-01T00:00:00Z') }).rate).toBe(0.16);
    expect(tax({ country: 'DE' }, { at: new Date('2020-01-15T00:00:00Z') }).rate).toBe(0.19);
  });

  test('no VAT, GST or sales tax: 0 with the reason (Hong Kong levies none, Inland Revenue Department HK)', () => {
    const result = tax({ country: 'HK' });
    expect(result).toMatchObject({ taxAmount: 0, rate: 0, taxType: null, components: [], totalAmount: 10_000 });
    expect(result.exemption).toMatch(/No VAT/);
    expect(result.taxReason).toBe('no_tax');
  });
});

describe('Canada: GST, HST and the provinces (CRA "GST/HST provincial rates table"; provincial ministries)', () => {
  const provinces: [string, string, number, [string, number][], string][] = [
    ['AB', 'T5J 0N3', 0.05, [['GST', 500]], 'CRA: Alberta GST 5%, no provincial sales tax'],
    ['ON', 'M5V 3L9', 0.13, [['HST', 1300]], 'CRA: Ontario HST 13%'],
    ['NS', 'B3H 1A1', 0.14, [['HST', 1400]], 'CRA: Nova Scotia HST 14% from 1 April 2025'],
    ['NB', 'E1C 4M3', 0.15, [['HST', 1500]], 'CRA: New Brunswick HST 15%'],
    ['BC', 'V6B 1A1', 0.12, [['GST', 500], ['PST', 700]], 'CRA GST 5% + BC Ministry of Finance, PST 7% on software and digital services'],
    ['SK', 'S4P 3Y2', 0.11, [['GST', 500], ['PST', 600]], 'CRA GST 5% + Saskatchewan PST 6%'],
    ['QC', 'H2X 1Y4', 0.14975, [['GST', 500], ['QST', 998]], 'CRA GST 5% + Revenu Québec, QST 9.975%'],
  ];
  test.each(provinces)('%s (%s): %s (%s)', (state, postalCode, rate, components) => {
    const result = tax({ country: 'CA', state, postalCode }, { currency: 'CAD' });
    expect(result.rate).toBeCloseTo(rate, 10);
    expect(result.components.map((c) => [c.type, c.amount])).toEqual(components);
    expect(result.jurisdiction).toBe(`CA-${state}`);
    expect(result.taxAmount).toBe(components.reduce((sum, [, amount]) => sum + amount, 0));
  });
});

describe('US sales tax on digital goods, per state (statewide rate)', () => {
  // [state, ZIP, product type, expected rate (0: not taxable), source]
  const states: [string, string, ProductType, number, string][] = [
    ['WA', '98101', 'DigitalDownload', 0.065, 'Washington DOR, "Digital products": taxable, state rate 6.5%'],
    ['TX', '73301', 'DigitalDownload', 0.0625, 'Texas Comptroller, "Sales and use tax": digital products taxable, 6.25%'],
    ['PA', '19103', 'DigitalDownload', 0.06, 'Pennsylvania DOR: digital downloads taxable since 1 August 2016, 6%'],
    ['NJ', '07030', 'DigitalDownload', 0.06625, 'NJ Division of Taxation, "Sales and use tax": 6.625%; digital products taxable (package says 7%: corrected)'],
    ['OH', '43215', 'DigitalDownload', 0.0575, 'Ohio Department of Taxation: state rate 5.75%; specified digital products taxable (package says 5.5%: corrected)'],
    ['CT', '06103', 'DigitalDownload', 0.01, 'Connecticut DRS: digital goods and canned software 1% since 1 October 2019'],
    ['CA', '90210', 'DigitalDownload', 0, 'California CDTFA, Regulation 1502: electronically delivered goods are not taxable'],
    ['FL', '33101', 'DigitalDownload', 0, 'Florida DOR: digital downloads are not taxable'],
    ['NY', '10001', 'DigitalDownload', 0, 'New York DTF, TB-ST-128: e-books, music and video downloads are not taxable'],
    ['NY', '10001', 'SoftwareKey', 0.04, 'New York DTF, TB-ST-128: prewritten software, however delivered, is taxable at the state rate 4%'],
    ['OR', '97201', 'DigitalDownload', 0, 'Oregon Department of Revenue: Oregon has no sales tax'],
  ];
  test.each(states)('%s %s %s: %s (%s)', (state, zip, productType, rate) => {
    const result = tax({ country: 'US', state, postalCode: zip }, { productType, currency: 'USD' });
    expect(result.rate).toBe(rate);
    expect(result.jurisdiction).toBe(`US-${state}`);
    expect(result.taxAmount).toBe(Math.round(10_000 * rate));
    // A state without the tax says why; one with it names the component.
    const taxed = rate !== 0;
    expect({ exempt: (state === 'OR' ? /no sales tax/ : /not taxable/).test(result.exemption ?? ''), components: taxed ? result.components : [] }).toEqual({
      exempt: !taxed,
      components: taxed ? [{ type: 'SALES_TAX', rate, jurisdiction: `US-${state}`, amount: Math.round(10_000 * rate) }] : [],
    });
  });

  test('the table covers the 50 states and DC', () => {
    expect(Object.keys(US_STATES)).toHaveLength(51);
  });
});

describe('what cannot be determined (422) and what is malformed (400)', () => {
  const undetermined: [string, TaxInput['location'], RegExp][] = [
    ['a US address without a state', { country: 'US', postalCode: '98101' }, /without a state/],
    ['a Canadian address without a province', { country: 'CA' }, /without a province/],
    ['an unknown US state', { country: 'US', state: 'ZZ' }, /ZZ is not a state/],
    ['an unknown province', { country: 'CA', state: 'XX' }, /not a province/],
    ['a ZIP code of another state', { country: 'US', state: 'WA', postalCode: '10001' }, /not in state WA/],
    ['a ZIP code no state has', { country: 'US', state: 'WA', postalCode: '00000' }, /not in state WA/],
    ['a postal code of another province', { country: 'CA', state: 'QC', postalCode: 'M5V 3L9' }, /not in province QC/],
  ];
  test.each(undetermined)('%s: 422', (_name, location, message) => {
    expect(() => tax(location)).toThrow(TaxUndetermined);
    expect(() => tax(location)).toThrow(message);
  });

  const malformed: [string, TaxInput['location'], Partial<TaxInput>][] = [
    ['an unknown country', { country: 'QQ' }, {}],
    ['a US postal code of letters', { country: 'US', state: 'WA', postalCode: 'ABCDE' }, {}],
    ['a German postal code of 3 digits', { country: 'DE', postalCode: '101' }, {}],
    ['a state that is not a code', { country: 'US', state: 'Washington State' }, {}],
    ['a negative amount', { country: 'DE' }, { amount: -1 }],
    ['a fractional amount', { country: 'DE' }, { amount: 10.5 }],
    ['an unknown currency', { country: 'DE' }, { currency: 'XXX' }],
    ['a malformed VAT number', { country: 'DE' }, { taxId: 'DE12' }],
    ['a VAT number whose check digits are wrong', { country: 'DE' }, { taxId: 'DE123456789' }],
    ['a VAT number of another country', { country: 'DE' }, { taxId: 'FR40303265045' }],
  ];
  test.each(malformed)('%s: 400', (_name, location, fields) => {
    expect(() => tax(location, fields)).toThrow(ValidationFailed);
  });
});

describe('EU and UK reverse charge for a valid VAT number (jsvat: each country\'s format and check digits, offline)', () => {
  // Numbers whose check digits are right (published numbers of companies: SAP, Google Ireland, ...).
  test.each([
    ['DE', 'DE143454214', 'DE143454214'],
    ['FR', 'FR 40 303265045', 'FR40303265045'],
    ['GR', 'EL094259216', 'EL094259216'],
    ['NL', 'NL004495445B01', 'NL004495445B01'],
    ['AT', 'ATU13585627', 'ATU13585627'],
    ['IE', 'IE6388047V', 'IE6388047V'],
    ['GB', 'GB 980 7806 84', 'GB980780684'],
  ])('%s with %s: no VAT charged, reverse charge', (country, taxId, kept) => {
    const result = tax({ country }, { taxId });
    expect(result).toMatchObject({ reverseCharge: true, taxReason: 'reverse_charge', taxId: kept, taxAmount: 0, taxType: null, totalAmount: 10_000 });
    expect(result.exemption).toMatch(/Reverse charge/);
  });

  test('a well-formed number whose check digits are wrong is 400, as the regex table it replaces let through', () => {
    for (const taxId of ['DE123456789', 'ATU12345678', 'GB123456789', 'EL123456789']) {
      expect(() => tax({ country: taxId.startsWith('EL') ? 'GR' : taxId.slice(0, 2) }, { taxId })).toThrow(/fails its check digits/);
    }
  });

  test('a VAT number of another country than the buyer\'s is 400; an empty one is none', () => {
    expect(() => tax({ country: 'US', state: 'WA' }, { taxId: 'DE143454214' })).toThrow(ValidationFailed);
    expect(tax({ country: 'NO' }, { taxId: '' }).taxAmount).toBe(2_500);
  });

  test('gift cards are taxed when redeemed, not when sold (EU Directive 2016/1065)', () => {
    expect(tax({ country: 'DE' }, { productType: 'GiftCard' })).toMatchObject({ taxAmount: 0, taxReason: 'not_taxable', exemption: expect.stringMatching(/Gift cards/) });
  });
});

describe('inclusive and exclusive prices, computed exactly', () => {
  test('Germany 19%: 119.00 inclusive is 100.00 net and 19.00 VAT; 100.00 exclusive is 19.00 on top', () => {
    expect(tax({ country: 'DE' }, { amount: 11_900, priceIncludesTax: true })).toMatchObject({ netAmount: 10_000, taxAmount: 1_900, totalAmount: 11_900, priceIncludesTax: true });
    expect(tax({ country: 'DE' }, { amount: 10_000 })).toMatchObject({ netAmount: 10_000, taxAmount: 1_900, totalAmount: 11_900, priceIncludesTax: false });
  });

  test('Quebec inclusive: the components add up to the tax exactly', () => {
    const result = tax({ country: 'CA', state: 'QC' }, { amount: 999, priceIncludesTax: true, currency: 'CAD' });
    // 999 / 1.14975 = 868.88 -> 869 net, 130 tax: GST round(869 * 5%) = 43, QST the rest 87.
    expect(result).toMatchObject({ netAmount: 869, taxAmount: 130, totalAmount: 999 });
    expect(result.components.map((c) => c.amount)).toEqual([43, 87]);
  });

  test('rounding half up to the smallest unit of the currency: a cent (EUR), a yen (JPY), a fils (BHD, 3 decimals)', () => {
    // 0.19 * 50 = 9.5 cents -> 10; 10% of 1,235 yen = 123.5 -> 124; 10% of 1.005 BHD (1,005 fils) = 100.5 -> 101 fils.
    expect(tax({ country: 'DE' }, { amount: 50 }).taxAmount).toBe(10);
    expect(tax({ country: 'JP' }, { amount: 1_235, currency: 'JPY' }).taxAmount).toBe(124);
    expect(tax({ country: 'BH' }, { amount: 1_005, currency: 'BHD' }).taxAmount).toBe(101);
  });

  const countries = ['DE', 'HU', 'FI', 'CH', 'GB', 'AU', 'NZ', 'JP'];
  const location = fc.oneof(
    fc.constantFrom(...countries).map((country) => ({ country })),
    fc.constantFrom('ON', 'QC', 'BC', 'AB').map((state) => ({ country: 'CA', state })),
    fc.constantFrom('WA', 'NJ', 'CT', 'CA').map((state) => ({ country: 'US', state })),
  );

  test('exclusive: the tax is round-half-up(amount * rate) per component, and total = amount + tax', () => {
    fc.assert(
      fc.property(location, fc.integer({ min: 0, max: 1_000_000_000 }), (where, amount) => {
        const result = tax(where, { amount });
        expect(result.netAmount).toBe(amount);
        expect(result.totalAmount).toBe(amount + result.taxAmount);
        for (const component of result.components) {
          const ppm = BigInt(Math.round(component.rate * 1e6));
          expect(BigInt(component.amount)).toBe((2n * BigInt(amount) * ppm + 1_000_000n) / 2_000_000n);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('inclusive: net + tax = amount, and net is the nearest whole unit to amount / (1 + rate)', () => {
    fc.assert(
      fc.property(location, fc.integer({ min: 0, max: 1_000_000_000 }), (where, amount) => {
        const result = tax(where, { amount, priceIncludesTax: true });
        expect(result.netAmount + result.taxAmount).toBe(amount);
        expect(result.components.reduce((sum, c) => sum + c.amount, 0)).toBe(result.taxAmount);
        const divisor = 1_000_000n + BigInt(Math.round(result.rate * 1e6));
        const error = BigInt(result.netAmount) * divisor - BigInt(amount) * 1_000_000n;
        expect(2n * (error < 0n ? -error : error) <= divisor).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
