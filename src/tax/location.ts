// Where the buyer is, checked before any tax is computed: the country, the state or province
// (required in the US and Canada) and the postal code, which must belong to that state. A
// malformed value is 400; a well-formed address the tax cannot be determined for is 422.
import { DomainError, ValidationFailed } from '../core/errors.js';
import { isCountry } from '../reference/countries.js';
import { CANADA_POSTAL_LETTERS } from './data/canada.js';
import { US_STATES } from './data/us-states.js';
import { postalCodeWellFormed } from './sources.js';
import { statesOfZip } from './us-zip.js';

/** Tax cannot be determined for a well-formed address (422). */
export class TaxUndetermined extends DomainError {
  readonly kind = 'unprocessable';
}

export interface TaxLocationInput {
  country: string;
  state?: string | null;
  postalCode?: string | null;
}

/** A checked location: upper-case codes; state only in the US and Canada. */
export interface TaxLocation {
  country: string;
  state: string | null;
  postalCode: string | null;
}

const STATES: Readonly<Record<string, ReadonlySet<string>>> = {
  US: new Set(Object.keys(US_STATES)),
  CA: new Set(Object.keys(CANADA_POSTAL_LETTERS)),
};

const STATE_NAME: Readonly<Record<string, string>> = { US: 'state', CA: 'province' };

function postalCodeInState(country: string, state: string, postalCode: string): boolean {
  if (country === 'US') return statesOfZip(postalCode).has(state);
  return CANADA_POSTAL_LETTERS[state]!.includes(postalCode[0]!.toUpperCase());
}

/** The location checked (400 malformed, 422 undeterminable); nothing else is read. */
export function checkTaxLocation(input: TaxLocationInput): TaxLocation {
  const country = input.country.trim().toUpperCase();
  if (!isCountry(country)) throw new ValidationFailed('country must be a two-letter ISO 3166-1 country code');
  const postalCode = input.postalCode?.trim() || null;
  if (postalCode !== null && (postalCode.length > 16 || !postalCodeWellFormed(postalCode, country))) {
    throw new ValidationFailed(`postalCode ${JSON.stringify(postalCode.slice(0, 16))} is not a postal code of country ${country}`);
  }
  const rawState = input.state?.trim().toUpperCase() || null;
  if (rawState !== null && !/^[A-Z0-9]{1,3}$/.test(rawState)) throw new ValidationFailed('state must be a state or province code of one to three letters or digits, e.g. WA or QC');
  const states = STATES[country];
  if (!states) return { country, state: null, postalCode };
  const label = STATE_NAME[country]!;
  if (rawState === null) throw new TaxUndetermined(`Tax cannot be determined for country ${country} without a ${label}: send its two-letter code`);
  if (!states.has(rawState)) throw new TaxUndetermined(`${rawState} is not a ${label} of country ${country}: tax cannot be determined`);
  if (postalCode !== null && !postalCodeInState(country, rawState, postalCode)) {
    throw new TaxUndetermined(`postal code ${postalCode} is not in ${label} ${rawState}: tax cannot be determined`);
  }
  return { country, state: rawState, postalCode };
}
