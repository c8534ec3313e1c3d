// The maintained sources the calculation reads: the `sales-tax` package's rate table (VAT and GST
// per country, Canada's provinces, dated past rates) and `postcode-validator`'s postal code
// formats. Rates become integers (parts per million) here, so the arithmetic after this module is
// exact. Why these and not `vatrates`: docs/decisions.md "Tax".
import { createRequire } from 'node:module';
import { postcodeValidator, postcodeValidatorExistsForCountry } from 'postcode-validator';
import { COUNTRY_RATE_CORRECTIONS } from './data/country-corrections.js';

const require = createRequire(import.meta.url);

interface SourceRate {
  type: string;
  rate: number;
  currency?: string;
  before?: Record<string, Omit<SourceRate, 'before' | 'states'>>;
  states?: Record<string, SourceRate>;
}

const RATES = require('sales-tax/res/sales_tax_rates.json') as Record<string, SourceRate>;
const REGIONS = require('sales-tax/res/region_countries.json') as { EU: string[] };

export const EU_MEMBER_STATES: ReadonlySet<string> = new Set(REGIONS.EU);

/** 0.09975 -> 99750. */
export const toPpm = (rate: number) => Math.round(rate * 1_000_000);

/** The entry in force at `at`: `before[date]` holds what applied before that date (the earliest such date after `at` wins). */
function inForce(entry: SourceRate, at: Date): { type: string; ratePpm: number } {
  const later = Object.keys(entry.before ?? {})
    .filter((date) => new Date(date).getTime() > at.getTime())
    .sort();
  const chosen = later.length ? entry.before![later[0]!]! : entry;
  return { type: chosen.type, ratePpm: toPpm(chosen.rate) };
}

/** The package's own current national rate (for the test that keeps the corrections honest). */
export const packageRate = (country: string, region?: string) => (region ? RATES[country]?.states?.[region]?.rate : RATES[country]?.rate);

/** The country's national rate at `at` (null: the source has no rate for it); a committed correction wins. */
export function countryRate(country: string, at: Date): { type: string; ratePpm: number } | null {
  const correction = COUNTRY_RATE_CORRECTIONS[country];
  if (correction) return { type: correction.type, ratePpm: correction.ratePpm };
  const entry = RATES[country];
  return entry ? inForce(entry, at) : null;
}

/** A state's or province's rate as the source has it, added to the national one (null: none). */
export function regionRate(country: string, region: string, at: Date): { type: string; ratePpm: number } | null {
  const entry = RATES[country]?.states?.[region];
  return entry ? inForce(entry, at) : null;
}

/** Whether the postal code has the country's format (true where the package knows no format). */
export function postalCodeWellFormed(postalCode: string, country: string): boolean {
  return !postcodeValidatorExistsForCountry(country) || postcodeValidator(postalCode, country);
}
