// A business buyer's VAT identification number, checked offline with `jsvat` (each country's
// format and check digits): a valid one is taken as a business buyer's (reverse charge). Whether
// it is registered is not checked (that needs VIES online; docs/decisions.md "Tax").
import {
  austria, belgium, bulgaria, checkVAT, croatia, cyprus, czechRepublic, denmark, estonia, finland, france, germany, greece, hungary, ireland, italy,
  latvia, lithuania, luxembourg, malta, netherlands, poland, portugal, romania, slovakiaRepublic, slovenia, spain, sweden, unitedKingdom,
} from 'jsvat';
import { ValidationFailed } from '../core/errors.js';

// The 27 EU member states and the UK: where a business buyer accounts for the VAT (reverse charge).
const REVERSE_CHARGE_COUNTRIES = [
  austria, belgium, bulgaria, croatia, cyprus, czechRepublic, denmark, estonia, finland, france, germany, greece, hungary, ireland, italy,
  latvia, lithuania, luxembourg, malta, netherlands, poland, portugal, romania, slovakiaRepublic, slovenia, spain, sweden, unitedKingdom,
];

export interface CheckedTaxId {
  /** As it is kept: upper case, without spaces, dots or dashes (EL123456789). */
  value: string;
  /** The buyer's country code (GR for an EL number). */
  country: string;
}

/** The VAT number checked (400 naming `field` when it is not a valid EU or UK VAT number). */
export function checkTaxId(taxId: string, field = 'taxId'): CheckedTaxId {
  const result = checkVAT(taxId.trim(), REVERSE_CHARGE_COUNTRIES);
  if (!result.isValid || !result.country || !result.value) {
    throw new ValidationFailed(
      result.isValidFormat
        ? `${field} fails its check digits: it is not a valid VAT number`
        : `${field} is not an EU or UK VAT number (its country prefix, then its digits: DE143454214, EL094259216, GB980780684)`,
    );
  }
  return { value: result.value, country: result.country.isoCode.short };
}
