// US sales tax for electronically delivered goods, per state: whether each kind is taxable, and the
// statewide rate, dated (periods as ./national-rates.ts has them). A committed data file: add a
// period (never edit a past one) when a state changes its rate, and update the taxability when a
// state changes its law.
//
// Source of taxability: each state's department of revenue as summarised by the Streamlined Sales
// Tax Governing Board's taxability matrix ("specified digital products" and "prewritten computer
// software delivered electronically") and by Tax Foundation / Avalara state guides. Taxability has
// no history here: a state's current rule applies to every date.
// Source of rates: Tax Foundation, "State and Local Sales Tax Rates, 2025" (state rate column),
// https://taxfoundation.org/data/all/state/2025-sales-taxes/, and the state pages named per row;
// the changes since 2020 each with their own source. Checked: 2026-11-27 (see ./national-rates.ts
// for how).
//
// Only the statewide rate is charged: county, city and district rates are not in the data.
import { TAX_DATA_STARTS, type RatePeriod } from './national-rates.js';

/** `digital`: e-books, music, video, games and other downloads; `software`: prewritten software delivered electronically (keys, games). */
export interface UsStateTaxability {
  digital: boolean;
  software: boolean;
  /** The statewide rate, dated; 0 where the state has no sales tax. */
  rates: readonly RatePeriod[];
  /** A rate for digital goods and software lower than the general rate (Connecticut: 1%), parts per million. */
  digitalRatePpm?: number;
}

const TF = 'Tax Foundation, "State and Local Sales Tax Rates, 2025", state rate';
const rate = (percent: number, source = TF, from = TAX_DATA_STARTS): RatePeriod => ({ from, type: 'SALES_TAX', ratePpm: Math.round(percent * 10_000), source });
const noSalesTax = (state: string) => [rate(0, `${TF}: ${state} has no statewide sales tax`)];
const both = (rates: RatePeriod[]): UsStateTaxability => ({ digital: true, software: true, rates });
const softwareOnly = (rates: RatePeriod[]): UsStateTaxability => ({ digital: false, software: true, rates });
const neither = (rates: RatePeriod[]): UsStateTaxability => ({ digital: false, software: false, rates });

/** The 50 states and DC. AK, DE, MT, NH and OR have no statewide sales tax. */
export const US_STATES: Readonly<Record<string, UsStateTaxability>> = {
  AL: both([rate(4)]),
  AK: neither(noSalesTax('Alaska')),
  AZ: both([rate(5.6, 'Arizona DOR, TPT rate table: state rate 5.6% (azdor.gov)')]),
  AR: both([rate(6.5, 'Arkansas DFA, Sales and Use Tax: state rate 6.5% (dfa.arkansas.gov)')]),
  CA: neither([rate(7.25, 'California CDTFA, Sales and Use Tax Rates: statewide 7.25% (cdtfa.ca.gov)')]),
  CO: both([rate(2.9)]),
  CT: { digital: true, software: true, digitalRatePpm: 10_000, rates: [rate(6.35, 'Connecticut DRS: 6.35%; digital goods and canned software 1% since 1 October 2019 (portal.ct.gov/drs)')] },
  DC: both([rate(6), rate(6.5, 'DC Office of Tax and Revenue: general sales tax 6.5% from 1 October 2025 (otr.cfo.dc.gov)', '2025-10-01')]),
  DE: neither(noSalesTax('Delaware')),
  FL: neither([rate(6)]),
  GA: neither([rate(4)]),
  HI: both([rate(4, 'Hawaii Department of Taxation: general excise tax 4%')]),
  ID: both([rate(6)]),
  IL: softwareOnly([rate(6.25)]),
  IN: both([rate(7)]),
  IA: both([rate(6)]),
  KS: softwareOnly([rate(6.5)]),
  KY: both([rate(6)]),
  LA: both([rate(4.45, 'Louisiana LDR: state sales tax 4.45% from 1 July 2018'), rate(5, 'Louisiana LDR: state sales tax 5% from 1 January 2025 (Act 11 of 2024) (revenue.louisiana.gov)', '2025-01-01')]),
  ME: both([rate(5.5, 'Maine Revenue Services: general rate 5.5% (maine.gov/revenue)')]),
  MD: both([rate(6)]),
  MA: softwareOnly([rate(6.25)]),
  MI: softwareOnly([rate(6)]),
  MN: both([rate(6.875)]),
  MS: both([rate(7)]),
  MO: neither([rate(4.225)]),
  MT: neither(noSalesTax('Montana')),
  NE: both([rate(5.5)]),
  NV: neither([rate(6.85)]),
  NH: neither(noSalesTax('New Hampshire')),
  NJ: both([rate(6.625, 'New Jersey Division of Taxation: 6.625% since 1 January 2018 (nj.gov/treasury/taxation)')]),
  NM: both([
    rate(5.125, 'New Mexico TRD: gross receipts tax state rate 5.125%'),
    rate(5, 'New Mexico TRD: state rate 5% from 1 July 2022', '2022-07-01'),
    rate(4.875, 'New Mexico TRD: state rate 4.875% from 1 July 2024 (tax.newmexico.gov)', '2024-07-01'),
  ]),
  NY: softwareOnly([rate(4)]),
  NC: both([rate(4.75, 'North Carolina DOR: state rate 4.75% (ncdor.gov)')]),
  ND: neither([rate(5)]),
  OH: both([rate(5.75, 'Ohio Department of Taxation: state rate 5.75% (tax.ohio.gov)')]),
  OK: neither([rate(4.5)]),
  OR: neither(noSalesTax('Oregon')),
  PA: both([rate(6)]),
  RI: both([rate(7)]),
  SC: neither([rate(6)]),
  SD: both([rate(4.5, 'South Dakota DOR: state rate 4.5%'), rate(4.2, 'South Dakota DOR: state rate 4.2% from 1 July 2023 (dor.sd.gov)', '2023-07-01')]),
  TN: both([rate(7)]),
  TX: both([rate(6.25)]),
  UT: both([rate(6.1, 'Utah State Tax Commission: combined statewide rate 6.1% (4.85% state + 1.25% uniform local) (tax.utah.gov)')]),
  VT: both([rate(6)]),
  VA: neither([rate(5.3, 'Virginia Tax: general rate 5.3% (4.3% state + 1% local) (tax.virginia.gov)')]),
  WA: both([rate(6.5)]),
  WV: both([rate(6)]),
  WI: both([rate(5)]),
  WY: both([rate(4)]),
};
