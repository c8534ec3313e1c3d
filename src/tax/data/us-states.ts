// US sales tax for electronically delivered goods, per state: whether each kind is taxable, and the
// statewide rate where the `sales-tax` package's rate is wrong. A committed data file: update it
// (and its date) when a state changes its law or its rate.
//
// Source of taxability: each state's department of revenue as summarised by the Streamlined Sales
// Tax Governing Board's taxability matrix ("specified digital products" and "prewritten computer
// software delivered electronically") and by Tax Foundation / Avalara state guides.
// Source of rates: Tax Foundation, "State and Local Sales Tax Rates, 2025" (state rate column),
// https://taxfoundation.org/data/all/state/2025-sales-taxes/, and the state pages named per row.
// Checked: 2026-11-25, against the sales-tax package 2.23.0 (res/sales_tax_rates.json).
//
// Only the statewide rate is charged: county, city and district rates are not in the source.

export const US_TAX_DATA_CHECKED_ON = '2026-11-25';

/** `digital`: e-books, music, video, games and other downloads; `software`: prewritten software delivered electronically (keys, games). */
export interface UsStateTaxability {
  digital: boolean;
  software: boolean;
  /** A rate for digital goods and software lower than the general rate (Connecticut: 1%), parts per million. */
  digitalRatePpm?: number;
}

/** Corrections of `sales-tax`'s statewide rate, parts per million, each with the published page it comes from. */
export const US_RATE_CORRECTIONS: Readonly<Record<string, { ratePpm: number; salesTaxPackage: number; source: string }>> = {
  AR: { ratePpm: 65_000, salesTaxPackage: 0.06, source: 'Arkansas DFA, Sales and Use Tax: state rate 6.5% (https://www.dfa.arkansas.gov/excise-tax/sales-and-use-tax/)' },
  AZ: { ratePpm: 56_000, salesTaxPackage: 0.066, source: 'Arizona DOR, TPT rate table: state rate 5.6% (https://azdor.gov/transaction-privilege-tax/tpt-rates)' },
  CA: { ratePpm: 72_500, salesTaxPackage: 0.0825, source: 'California CDTFA, Sales and Use Tax Rates: statewide 7.25% (https://www.cdtfa.ca.gov/taxes-and-fees/sales-use-tax-rates.htm)' },
  CT: { ratePpm: 63_500, salesTaxPackage: 0.06, source: 'Connecticut DRS, Sales and Use Tax: 6.35%; digital goods and canned software 1% (https://portal.ct.gov/drs/sales-tax/tax-information)' },
  LA: { ratePpm: 50_000, salesTaxPackage: 0.04, source: 'Louisiana LDR, state sales tax 5% from 2025-01-01 (Act 11 of 2024) (https://revenue.louisiana.gov/sales-taxes/)' },
  ME: { ratePpm: 55_000, salesTaxPackage: 0.05, source: 'Maine Revenue Services, Sales Tax: general rate 5.5% (https://www.maine.gov/revenue/taxes/sales-use-service-provider-tax)' },
  NC: { ratePpm: 47_500, salesTaxPackage: 0.0575, source: 'North Carolina DOR, Sales and Use Tax Rates: state rate 4.75% (https://www.ncdor.gov/taxes-forms/sales-and-use-tax/sales-and-use-tax-rates-other-information)' },
  NJ: { ratePpm: 66_250, salesTaxPackage: 0.07, source: 'New Jersey Division of Taxation, Sales and Use Tax: 6.625% since 2018-01-01 (https://www.nj.gov/treasury/taxation/su_over.shtml)' },
  NM: { ratePpm: 48_750, salesTaxPackage: 0.05, source: 'New Mexico TRD, gross receipts tax state rate 4.875% from 2024-07-01 (https://www.tax.newmexico.gov/businesses/gross-receipts-overview/)' },
  OH: { ratePpm: 57_500, salesTaxPackage: 0.055, source: 'Ohio Department of Taxation, Sales and Use Tax: state rate 5.75% (https://tax.ohio.gov/business/ohio-business-taxes/sales-and-use)' },
  SD: { ratePpm: 42_000, salesTaxPackage: 0.04, source: 'South Dakota DOR, Sales Tax: state rate 4.2% from 2023-07-01 (https://dor.sd.gov/businesses/taxes/sales-use-tax/)' },
  UT: { ratePpm: 61_000, salesTaxPackage: 0.0595, source: 'Utah State Tax Commission, combined statewide rate 6.1% (4.85% state + 1.25% uniform local) (https://tax.utah.gov/sales/rates)' },
  VA: { ratePpm: 53_000, salesTaxPackage: 0.05, source: 'Virginia Tax, Sales and Use Tax: general rate 5.3% (4.3% state + 1% local) (https://www.tax.virginia.gov/sales-and-use-tax)' },
};

/** The 50 states and DC. States without a sales tax (AK, DE, MT, NH, OR) tax neither kind. */
export const US_STATES: Readonly<Record<string, UsStateTaxability>> = {
  AL: { digital: true, software: true },
  AK: { digital: false, software: false },
  AZ: { digital: true, software: true },
  AR: { digital: true, software: true },
  CA: { digital: false, software: false },
  CO: { digital: true, software: true },
  CT: { digital: true, software: true, digitalRatePpm: 10_000 },
  DC: { digital: true, software: true },
  DE: { digital: false, software: false },
  FL: { digital: false, software: false },
  GA: { digital: false, software: false },
  HI: { digital: true, software: true },
  ID: { digital: true, software: true },
  IL: { digital: false, software: true },
  IN: { digital: true, software: true },
  IA: { digital: true, software: true },
  KS: { digital: false, software: true },
  KY: { digital: true, software: true },
  LA: { digital: true, software: true },
  ME: { digital: true, software: true },
  MD: { digital: true, software: true },
  MA: { digital: false, software: true },
  MI: { digital: false, software: true },
  MN: { digital: true, software: true },
  MS: { digital: true, software: true },
  MO: { digital: false, software: false },
  MT: { digital: false, software: false },
  NE: { digital: true, software: true },
  NV: { digital: false, software: false },
  NH: { digital: false, software: false },
  NJ: { digital: true, software: true },
  NM: { digital: true, software: true },
  NY: { digital: false, software: true },
  NC: { digital: true, software: true },
  ND: { digital: false, software: false },
  OH: { digital: true, software: true },
  OK: { digital: false, software: false },
  OR: { digital: false, software: false },
  PA: { digital: true, software: true },
  RI: { digital: true, software: true },
  SC: { digital: false, software: false },
  SD: { digital: true, software: true },
  TN: { digital: true, software: true },
  TX: { digital: true, software: true },
  UT: { digital: true, software: true },
  VT: { digital: true, software: true },
  VA: { digital: false, software: false },
  WA: { digital: true, software: true },
  WV: { digital: true, software: true },
  WI: { digital: true, software: true },
  WY: { digital: true, software: true },
};
