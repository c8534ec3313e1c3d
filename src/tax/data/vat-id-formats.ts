// The format of a business VAT identification number per EU member state (and the UK), checked
// offline: a well-formed number is taken as a business buyer's (reverse charge); whether it is
// registered is not checked (that needs VIES online; docs/decisions.md "Tax"). A committed data
// file. Source: European Commission, VIES "VAT number validation" FAQ, structure of VAT numbers
// per member state (https://ec.europa.eu/taxation_customs/vies/#/faq); the UK: HMRC VAT Notice
// 700/1. Checked: 2026-11-25. Greece's prefix is EL; the buyer's country code is GR.

/** VAT number prefix -> the pattern of what follows it (spaces, dots and dashes are removed first). */
export const VAT_ID_FORMATS: Readonly<Record<string, { country: string; pattern: RegExp }>> = {
  AT: { country: 'AT', pattern: /^U\d{8}$/ },
  BE: { country: 'BE', pattern: /^[01]\d{9}$/ },
  BG: { country: 'BG', pattern: /^\d{9,10}$/ },
  CY: { country: 'CY', pattern: /^\d{8}[A-Z]$/ },
  CZ: { country: 'CZ', pattern: /^\d{8,10}$/ },
  DE: { country: 'DE', pattern: /^\d{9}$/ },
  DK: { country: 'DK', pattern: /^\d{8}$/ },
  EE: { country: 'EE', pattern: /^\d{9}$/ },
  EL: { country: 'GR', pattern: /^\d{9}$/ },
  ES: { country: 'ES', pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/ },
  FI: { country: 'FI', pattern: /^\d{8}$/ },
  FR: { country: 'FR', pattern: /^[A-HJ-NP-Z0-9]{2}\d{9}$/ },
  HR: { country: 'HR', pattern: /^\d{11}$/ },
  HU: { country: 'HU', pattern: /^\d{8}$/ },
  IE: { country: 'IE', pattern: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { country: 'IT', pattern: /^\d{11}$/ },
  LT: { country: 'LT', pattern: /^(\d{9}|\d{12})$/ },
  LU: { country: 'LU', pattern: /^\d{8}$/ },
  LV: { country: 'LV', pattern: /^\d{11}$/ },
  MT: { country: 'MT', pattern: /^\d{8}$/ },
  NL: { country: 'NL', pattern: /^\d{9}B\d{2}$/ },
  PL: { country: 'PL', pattern: /^\d{10}$/ },
  PT: { country: 'PT', pattern: /^\d{9}$/ },
  RO: { country: 'RO', pattern: /^\d{2,10}$/ },
  SE: { country: 'SE', pattern: /^\d{10}01$/ },
  SI: { country: 'SI', pattern: /^\d{8}$/ },
  SK: { country: 'SK', pattern: /^\d{10}$/ },
  GB: { country: 'GB', pattern: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/ },
};
