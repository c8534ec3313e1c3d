// Canada's provinces and territories, and the first letter of a postal code per province. A
// committed data file. Source: Canada Post, "Addressing guidelines: postal code", the forward
// sortation areas' first letters by province (https://www.canadapost-postescanada.ca/cpc/en/support/kb/sending/general-information/postal-code-list-by-province-and-territory).
// Checked: 2026-11-25. The provincial rates themselves come from the sales-tax package.

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
