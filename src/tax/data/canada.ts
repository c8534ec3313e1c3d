// Canada's provinces and territories: the first letter of a postal code per province, and the
// provincial tax on digital goods and services, dated (periods as ./national-rates.ts has them).
// A committed data file. Postal letters: Canada Post, "Addressing guidelines: postal code", the
// forward sortation areas' first letters by province. Rates: CRA, "GST/HST provincial rates
// table" (canada.ca), and the provincial ministries named per row. Checked: 2026-11-27 (see
// ./national-rates.ts for how).
import { TAX_DATA_STARTS, type RatePeriod } from './national-rates.js';

/** Province -> the first letters of its postal codes (X is shared by the Northwest Territories and Nunavut). */
export const CANADA_POSTAL_LETTERS: Readonly<Record<string, string>> = {
  NL: 'A',
  NS: 'B',
  PE: 'C',
  NB: 'E',
  QC: 'GHJ',
  ON: 'KLMNP',
  MB: 'R',
  SK: 'S',
  AB: 'T',
  BC: 'V',
  NT: 'X',
  NU: 'X',
  YT: 'Y',
};

/** The federal GST. */
export const CANADA_GST: readonly RatePeriod[] = [{ from: TAX_DATA_STARTS, type: 'GST', ratePpm: 50_000, source: 'CRA (canada.ca): GST 5%, also on digital products of non-resident vendors (simplified registration)' }];

const CRA = 'CRA, "GST/HST provincial rates table" (canada.ca)';
const period = (type: 'HST' | 'PST' | 'QST', percent: number, source: string, from = TAX_DATA_STARTS): RatePeriod => ({ from, type, ratePpm: Math.round(percent * 10_000), source });

/**
 * A province's own tax: HST is the one harmonized tax (its rate includes the federal 5%); PST and
 * QST come on top of the GST. Provinces not listed (AB, NT, NU, YT) charge the GST alone.
 */
export const CANADA_PROVINCIAL: Readonly<Record<string, readonly RatePeriod[]>> = {
  BC: [period('PST', 7, 'BC Ministry of Finance: PST 7%, on software and digital services')],
  MB: [period('PST', 7, 'Manitoba Finance: retail sales tax 7%, on digital services from 1 December 2021')],
  NB: [period('HST', 15, CRA)],
  NL: [period('HST', 15, CRA)],
  NS: [period('HST', 15, CRA), period('HST', 14, `${CRA}: Nova Scotia HST 14% from 1 April 2025`, '2025-04-01')],
  ON: [period('HST', 13, CRA)],
  PE: [period('HST', 15, CRA)],
  QC: [period('QST', 9.975, 'Revenu Québec: QST 9.975%, also on digital products of non-resident suppliers')],
  SK: [period('PST', 6, 'Saskatchewan Ministry of Finance: PST 6%')],
};
