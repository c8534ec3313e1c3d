// National rates where the sales-tax package (2.23.0) is wrong, each with the published source it
// comes from. A committed data file; checked: 2026-11-25. Drop a row once the package agrees
// (test/tax-calculation.test.ts fails while the package's value is still the one corrected).

export const COUNTRY_RATE_CORRECTIONS: Readonly<Record<string, { ratePpm: number; type: 'vat' | 'gst'; salesTaxPackage: number; source: string }>> = {
  BH: { ratePpm: 100_000, type: 'vat', salesTaxPackage: 0.05, source: 'Bahrain National Bureau for Revenue: VAT standard rate 10% from 2022-01-01 (https://www.nbr.gov.bh/vat)' },
  EC: { ratePpm: 150_000, type: 'vat', salesTaxPackage: 0.12, source: 'Ecuador SRI: IVA 15% from 2024-04-01 (https://www.sri.gob.ec/impuesto-al-valor-agregado-iva)' },
  KW: { ratePpm: 0, type: 'vat', salesTaxPackage: 0.05, source: 'Kuwait Ministry of Finance: VAT not implemented (GCC VAT framework not yet adopted) (https://www.mof.gov.kw)' },
  LI: { ratePpm: 81_000, type: 'vat', salesTaxPackage: 0.077, source: 'Liechtenstein Steuerverwaltung: VAT 8.1% from 2024-01-01, as Switzerland (https://www.llv.li/de/unternehmen/steuern/mehrwertsteuer)' },
  LK: { ratePpm: 180_000, type: 'vat', salesTaxPackage: 0.12, source: 'Sri Lanka Inland Revenue Department: VAT 18% from 2024-01-01 (https://www.ird.gov.lk)' },
  QA: { ratePpm: 0, type: 'vat', salesTaxPackage: 0.05, source: 'Qatar General Tax Authority: VAT not implemented (https://gta.gov.qa)' },
};
