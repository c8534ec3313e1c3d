// What the calculation reads besides the committed rate tables (./data/): `postcode-validator`'s
// postal code formats (its public API), and the period of a dated table in force at a time.
import { postcodeValidator, postcodeValidatorExistsForCountry } from 'postcode-validator';
import type { RatePeriod } from './data/national-rates.js';

/** Whether the postal code has the country's format (true where the package knows no format). */
export function postalCodeWellFormed(postalCode: string, country: string): boolean {
  return !postcodeValidatorExistsForCountry(country) || postcodeValidator(postalCode, country);
}

/** The period in force at `at` (the last one from on or before its UTC date), or null: no data then. */
export function inForce(periods: readonly RatePeriod[] | undefined, at: Date): RatePeriod | null {
  const day = at.toISOString().slice(0, 10);
  let found: RatePeriod | null = null;
  for (const period of periods ?? []) {
    if (period.from > day) break;
    found = period;
  }
  return found;
}
