// Where a workspace collects tax: the workspace setting `taxRegistrations` (set with the admin CLI),
// either `everywhere` (every jurisdiction the rate data knows: the default, as before the setting
// existed), `none`, or a comma-separated list of the jurisdictions it is registered in:
//   DE, GB, AU, ...  a country (its VAT, GST or sales tax);
//   EU               every EU member state (the EU's One Stop Shop);
//   US-WA, ...       a US state (sales tax is registered per state; there is no federal one);
//   CA               Canada's GST and HST (one federal registration);
//   CA-QC, CA-BC ... a province's own QST or PST, on top of CA.
// Outside them a sale carries no tax, with the reason `not_registered` (docs/decisions.md "Tax").
import { isCountry } from '../reference/countries.js';
import { CANADA_POSTAL_LETTERS } from './data/canada.js';
import { EU_MEMBER_STATES } from './data/national-rates.js';
import { US_STATES } from './data/us-states.js';

export const EVERYWHERE = 'everywhere';
const NOWHERE = 'none';

/** `everywhere`, or the registrations' codes (empty: none). */
export type TaxRegistrations = typeof EVERYWHERE | ReadonlySet<string>;

const SUBDIVISIONS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = { US: US_STATES, CA: CANADA_POSTAL_LETTERS };

/** The setting as the CLI takes it, checked and in its stored form (codes upper case, sorted, deduplicated); throws with what is wrong. */
export function normalizeTaxRegistrations(raw: string): string {
  const text = raw.trim();
  if (text.toLowerCase() === EVERYWHERE) return EVERYWHERE;
  if (text.toLowerCase() === NOWHERE || text === '') return NOWHERE;
  const codes = new Set<string>();
  for (const part of text.split(',')) {
    const code = part.trim().toUpperCase();
    const [country, subdivision, ...rest] = code.split('-');
    const known = rest.length === 0 && (subdivision === undefined ? code === 'EU' || (isCountry(code) && code !== 'US') : SUBDIVISIONS[country!]?.[subdivision] !== undefined);
    if (!known) {
      throw new Error(
        code === 'US'
          ? 'taxRegistrations: US sales tax is registered per state: list the states, e.g. US-WA,US-TX'
          : `taxRegistrations: ${JSON.stringify(part.trim())} is not a jurisdiction: a country (DE), EU, a US state (US-WA) or a Canadian province (CA-QC); or everywhere, or none`,
      );
    }
    codes.add(code);
  }
  return [...codes].sort().join(',');
}

/** The stored setting as the calculation takes it. */
export function taxRegistrations(stored: string): TaxRegistrations {
  if (stored === EVERYWHERE) return EVERYWHERE;
  return new Set(stored === NOWHERE ? [] : stored.split(','));
}

/** Whether the workspace collects the tax that registration `code` (a component's) covers. */
export function registeredFor(registrations: TaxRegistrations, code: string): boolean {
  if (registrations === EVERYWHERE) return true;
  return registrations.has(code) || (EU_MEMBER_STATES.has(code) && registrations.has('EU'));
}
