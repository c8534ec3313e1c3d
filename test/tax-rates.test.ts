import { calculateTax, requireTaxData, type TaxInput } from '../src/tax/calculate.js';
import { CANADA_GST, CANADA_PROVINCIAL, CANADA_POSTAL_LETTERS } from '../src/tax/data/canada.js';
import { EU_MEMBER_STATES, NATIONAL_RATES, TAX_DATA_STARTS, type RatePeriod } from '../src/tax/data/national-rates.js';
import { US_STATES } from '../src/tax/data/us-states.js';
import { TaxUndetermined } from '../src/tax/location.js';
import { isCountry } from '../src/reference/countries.js';

// The committed rate tables (src/tax/data/): every entry dated and sourced, the rates the
// `sales-tax` package had wrong corrected from their dates on, the past kept (a sale is taxed at
// its date's rate), and no data said as such (no_data), never as "no tax applies".

const tax = (country: string, at: string, fields: Partial<TaxInput> = {}) =>
  calculateTax({ productType: 'DigitalDownload', amount: 10_000, currency: 'EUR', location: { country }, priceIncludesTax: false, at: new Date(at), ...fields });

describe('every entry has a date and a source', () => {
  const tables: [string, readonly RatePeriod[]][] = [
    ...Object.entries(NATIONAL_RATES),
    ...Object.entries(US_STATES).map(([state, data]): [string, readonly RatePeriod[]] => [`US-${state}`, data.rates]),
    ['CA', CANADA_GST],
    ...Object.entries(CANADA_PROVINCIAL).map(([province, periods]): [string, readonly RatePeriod[]] => [`CA-${province}`, periods]),
  ];
  test.each(tables)('%s', (where, periods) => {
    expect(periods.length).toBeGreaterThan(0);
    const dates = periods.map((period) => period.from);
    expect(dates).toEqual([...new Set(dates)].sort());
    for (const period of periods) {
      expect(period.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(period.from >= TAX_DATA_STARTS).toBe(true);
      expect(period.source.length).toBeGreaterThan(20);
      expect(period.ratePpm >= 0 && period.ratePpm <= 300_000).toBe(true);
      expect(period.type === 'none').toBe(where.includes('-') ? false : period.ratePpm === 0);
    }
  });

  test('the national table: real country codes, the US and Canada in their own tables, every EU member state', () => {
    for (const country of Object.keys(NATIONAL_RATES)) expect([country, isCountry(country)]).toEqual([country, true]);
    expect(NATIONAL_RATES.US).toBeUndefined();
    expect(NATIONAL_RATES.CA).toBeUndefined();
    for (const member of EU_MEMBER_STATES) expect(NATIONAL_RATES[member]).toBeDefined();
    expect(Object.keys(US_STATES)).toHaveLength(51);
    for (const province of Object.keys(CANADA_PROVINCIAL)) expect(CANADA_POSTAL_LETTERS[province]).toBeDefined();
  });
});

describe('the rates the sales-tax package had wrong, corrected from their date', () => {
  // [country, date, rate, tax type, the published rate]
  const corrected: [string, string, number, string, string][] = [
    ['TH', '2025-06-01', 0.07, 'VAT', 'Thai Revenue Department: 7%, the reduced rate renewed every year (the package: 10% from September 2023)'],
    ['MY', '2025-06-01', 0.08, 'SERVICE_TAX', 'Royal Malaysian Customs: service tax 8% on digital services from 1 March 2024; no VAT (the package: 10% VAT)'],
    ['MY', '2023-06-01', 0.06, 'SERVICE_TAX', 'Royal Malaysian Customs: service tax 6% before March 2024'],
    ['BS', '2025-06-01', 0.1, 'VAT', 'Bahamas Department of Inland Revenue: 10% from 1 January 2022 (the package: 12%)'],
    ['BS', '2021-06-01', 0.12, 'VAT', 'Bahamas: 12% before 2022'],
    ['PK', '2025-06-01', 0.18, 'SALES_TAX', 'Finance (Supplementary) Act 2023: 18% (the package: 17%)'],
    ['SR', '2025-06-01', 0.1, 'VAT', 'Suriname: VAT 10% from 1 January 2023 (the package: 15%)'],
    ['ZW', '2025-06-01', 0.155, 'VAT', 'ZIMRA: 15.5% from 1 January 2025 (the package: 15%)'],
    ['ZW', '2024-06-01', 0.15, 'VAT', 'ZIMRA: 15% in 2023 and 2024'],
    ['RU', '2025-12-31T23:59:59Z', 0.2, 'VAT', 'Russia: 20% until the end of 2025'],
    ['RU', '2026-01-01', 0.22, 'VAT', 'Russia: 22% from 1 January 2026 (the package: 20%)'],
    ['KZ', '2025-12-31T23:59:59Z', 0.12, 'VAT', 'Kazakhstan: 12% until the end of 2025'],
    ['KZ', '2026-01-01', 0.16, 'VAT', 'Kazakhstan: 16% from 1 January 2026 (the package: 12%)'],
    ['EC', '2025-06-01', 0.15, 'VAT', 'Ecuador SRI: 15% from 1 April 2024'],
    ['LI', '2025-06-01', 0.081, 'VAT', 'Liechtenstein: 8.1% from 1 January 2024, as Switzerland'],
    ['LK', '2025-06-01', 0.18, 'VAT', 'Sri Lanka IRD: 18% from 1 January 2024'],
  ];
  test.each(corrected)('%s on %s: %s %s (%s)', (country, at, rate, type) => {
    expect(tax(country, at)).toMatchObject({ rate, taxType: type, taxAmount: Math.round(10_000 * rate), taxReason: null });
  });

  test('Kuwait and Qatar levy no VAT: none charged, for that reason (the package: 5%)', () => {
    for (const country of ['KW', 'QA']) expect(tax(country, '2025-06-01')).toMatchObject({ taxAmount: 0, taxReason: 'no_tax' });
  });
});

describe('a sale is taxed at the rate of its date', () => {
  const history: [string, string, number][] = [
    ['FI', '2023-06-15', 0.24],
    ['FI', '2024-09-01', 0.255],
    ['EE', '2023-06-15', 0.2],
    ['EE', '2024-06-15', 0.22],
    ['EE', '2025-07-01', 0.24],
    ['LU', '2023-06-15', 0.16],
    ['LU', '2024-06-15', 0.17],
    ['SK', '2024-12-31T23:59:59Z', 0.2],
    ['SK', '2025-01-01', 0.23],
    ['SG', '2023-06-15', 0.08],
    ['RO', '2025-07-31T23:59:59Z', 0.19],
    ['RO', '2025-08-01', 0.21],
    ['TR', '2023-07-09', 0.18],
    ['TR', '2023-07-10', 0.2],
  ];
  test.each(history)('%s on %s: %s', (country, at, rate) => {
    expect(tax(country, at).rate).toBe(rate);
  });

  test('US states and Canadian provinces too: Louisiana 4.45% in 2024, 5% in 2025; Nova Scotia HST 15% then 14% from April 2025', () => {
    const us = (at: string) => tax('US', at, { location: { country: 'US', state: 'LA', postalCode: '70112' }, currency: 'USD' }).rate;
    expect([us('2024-06-01'), us('2025-06-01')]).toEqual([0.0445, 0.05]);
    const ns = (at: string) => tax('CA', at, { location: { country: 'CA', state: 'NS', postalCode: 'B3H 1A1' }, currency: 'CAD' }).components;
    expect(ns('2025-03-31T23:59:59Z')).toEqual([{ type: 'HST', rate: 0.15, jurisdiction: 'CA-NS', amount: 1_500 }]);
    expect(ns('2025-04-01')).toEqual([{ type: 'HST', rate: 0.14, jurisdiction: 'CA-NS', amount: 1_400 }]);
  });
});

describe('what the data does not know, it says: no_data, never "no tax applies"', () => {
  test('a country the data has no rate for: 0 with the reason no_data, and 422 from requireTaxData', () => {
    for (const country of ['BR', 'CN', 'VN', 'GH']) {
      const result = tax(country, '2025-06-01');
      expect(result).toMatchObject({ taxAmount: 0, components: [], taxType: null, taxReason: 'no_data', exemption: `No tax rate of ${country} is known for 2025-06-01` });
      expect(() => requireTaxData(result)).toThrow(TaxUndetermined);
      expect(() => requireTaxData(result)).toThrow(/cannot be determined/);
    }
  });

  test('a date before a country\'s first period, or before the table starts: no_data', () => {
    expect(tax('SR', '2022-06-01').taxReason).toBe('no_data');
    expect(tax('AI', '2022-06-30').taxReason).toBe('no_data');
    expect(tax('DE', '2019-12-31T23:59:59Z').taxReason).toBe('no_data');
    expect(tax('US', '2019-06-01', { location: { country: 'US', state: 'WA' }, currency: 'USD' }).taxReason).toBe('no_data');
    expect(tax('OM', '2021-01-01')).toMatchObject({ taxReason: 'no_tax', taxAmount: 0 });
    expect(tax('OM', '2021-04-16').rate).toBe(0.05);
  });

  test('no country answers "no tax applies" but those whose table says none', () => {
    const none = Object.entries(NATIONAL_RATES).filter(([, periods]) => periods.at(-1)!.type === 'none').map(([country]) => country);
    expect(none.sort()).toEqual(['BM', 'BN', 'GG', 'GI', 'HK', 'KW', 'KY', 'MO', 'QA', 'VG']);
  });
});
