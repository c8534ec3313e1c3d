// The national tax on digital goods and services sold to consumers, per country, dated: each
// period carries the day it applies from (00:00 UTC) and its source. A committed data file, in
// place of the `sales-tax` package's table (docs/decisions.md "Tax" lists what it had wrong).
//
// How it was made: checked country by country against the published standard rates for
// electronically supplied services to consumers, on 2026-11-27, from the sources named per row as
// the author knew them (knowledge that runs to 2025; no live access to them when this was written:
// re-check before relying on a row, and add a period, never edit a past one, when a rate changes). The table starts on
// TAX_DATA_STARTS: a first period dated then was already in force before it, and a sale before it
// has no data. A country that is not here, or a date before its first period, has no data: the
// calculation says so (reason `no_data`) instead of charging nothing as if none were due. `none`
// is a published fact: the country levies no VAT, GST or sales tax.
//
// Not modelled: reduced rates (the product types do not say e-book), Spain's Canary Islands,
// Ceuta and Melilla, Portugal's Azores and Madeira, Thailand's statutory 10% (reduced to 7% by a
// royal decree renewed every year since 1999: the 7% period is extended while it is renewed).

export const TAX_DATA_STARTS = '2020-01-01';

/** HST, PST and QST are Canada's provincial taxes (./canada.ts); SALES_TAX the US states' (./us-states.ts) and a few countries'. */
export type TaxType = 'VAT' | 'GST' | 'HST' | 'PST' | 'QST' | 'SALES_TAX' | 'SERVICE_TAX';

export interface RatePeriod {
  /** YYYY-MM-DD: in force from 00:00 UTC that day until the next period's `from`. */
  from: string;
  /** `none`: no VAT, GST or sales tax is levied (a fact, not missing data). */
  type: TaxType | 'none';
  /** Parts per million: 190000 for 19%. */
  ratePpm: number;
  source: string;
}

const ppm = (percent: number) => Math.round(percent * 10_000);
const vat = (from: string, percent: number, source: string): RatePeriod => ({ from, type: 'VAT', ratePpm: ppm(percent), source });
const gst = (from: string, percent: number, source: string): RatePeriod => ({ from, type: 'GST', ratePpm: ppm(percent), source });
const none = (from: string, source: string): RatePeriod => ({ from, type: 'none', ratePpm: 0, source });

const START = TAX_DATA_STARTS;
const EC = 'European Commission, "VAT rates applied in the Member States of the European Union", situation at 1 January 2025 (https://taxation-customs.ec.europa.eu)';

/** The 27 member states (European Commission, "EU countries"): one VAT area, with OSS for sales to consumers. */
export const EU_MEMBER_STATES: ReadonlySet<string> = new Set(['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK']);

/** Country -> its periods, oldest first. */
export const NATIONAL_RATES: Readonly<Record<string, readonly RatePeriod[]>> = {
  // The European Union: the buyer's member state's standard rate (OSS).
  AT: [vat(START, 20, EC)],
  BE: [vat(START, 21, EC)],
  BG: [vat(START, 20, EC)],
  CY: [vat(START, 19, EC)],
  CZ: [vat(START, 21, EC)],
  DE: [vat(START, 19, EC), vat('2020-07-01', 16, 'Bundesministerium der Finanzen, Zweites Corona-Steuerhilfegesetz: 16% from 1 July to 31 December 2020'), vat('2021-01-01', 19, EC)],
  DK: [vat(START, 25, EC)],
  EE: [vat(START, 20, 'Estonian Tax and Customs Board (emta.ee): 20% until 31 December 2023'), vat('2024-01-01', 22, 'Estonian Tax and Customs Board: 22% from 1 January 2024'), vat('2025-07-01', 24, 'Estonian Tax and Customs Board: 24% from 1 July 2025 (Security Tax Act)')],
  ES: [vat(START, 21, EC)],
  FI: [vat(START, 24, EC), vat('2024-09-01', 25.5, 'Finnish Tax Administration (vero.fi): general rate 25.5% from 1 September 2024')],
  FR: [vat(START, 20, EC)],
  GR: [vat(START, 24, EC)],
  HR: [vat(START, 25, EC)],
  HU: [vat(START, 27, EC)],
  IE: [vat(START, 23, EC), vat('2020-09-01', 21, 'Irish Revenue (revenue.ie): standard rate 21% from 1 September 2020 to 28 February 2021'), vat('2021-03-01', 23, EC)],
  IT: [vat(START, 22, EC)],
  LT: [vat(START, 21, EC)],
  LU: [vat(START, 17, EC), vat('2023-01-01', 16, 'Luxembourg AED (aed.public.lu): standard rate 16% from 1 January to 31 December 2023'), vat('2024-01-01', 17, EC)],
  LV: [vat(START, 21, EC)],
  MT: [vat(START, 18, EC)],
  NL: [vat(START, 21, EC)],
  PL: [vat(START, 23, EC)],
  PT: [vat(START, 23, `${EC}; mainland rate`)],
  RO: [vat(START, 19, EC), vat('2025-08-01', 21, 'Romanian ANAF: standard rate 21% from 1 August 2025 (Law 141/2025)')],
  SE: [vat(START, 25, EC)],
  SI: [vat(START, 22, EC)],
  SK: [vat(START, 20, EC), vat('2025-01-01', 23, 'Slovak Financial Administration (financnasprava.sk): standard rate 23% from 1 January 2025')],
  // The rest of Europe.
  AD: [vat(START, 4.5, 'Govern d\'Andorra, IGI (general indirect tax): general rate 4.5%')],
  AL: [vat(START, 20, 'Albanian General Directorate of Taxation: VAT 20%')],
  AM: [vat(START, 20, 'State Revenue Committee of Armenia: VAT 20%')],
  AZ: [vat(START, 18, 'State Tax Service of Azerbaijan: VAT 18%, also on foreign e-services')],
  BA: [vat(START, 17, 'Indirect Taxation Authority of Bosnia and Herzegovina: VAT 17%')],
  BY: [vat(START, 20, 'Ministry of Taxes and Duties of Belarus: VAT 20%, also on foreign e-services since 2018')],
  CH: [vat(START, 7.7, 'Swiss FTA (estv.admin.ch): 7.7% from 2018 to 2023'), vat('2024-01-01', 8.1, 'Swiss FTA (estv.admin.ch): standard rate 8.1% from 1 January 2024')],
  FO: [vat(START, 25, 'Faroese Tax (taks.fo): VAT (MVG) 25%')],
  GB: [vat(START, 20, 'HMRC, "VAT rates" (gov.uk): standard rate 20%')],
  GE: [vat(START, 18, 'Revenue Service of Georgia: VAT 18%, also on foreign e-services since 2021')],
  GG: [none(START, 'States of Guernsey, Revenue Service: no VAT, GST or sales tax')],
  GI: [none(START, 'HM Government of Gibraltar: no VAT, GST or sales tax')],
  IM: [vat(START, 20, 'Isle of Man Customs and Excise (gov.im): VAT as in the UK, 20%')],
  IS: [vat(START, 24, 'Iceland Revenue and Customs (skatturinn.is): standard rate 24%, also on foreign electronic services')],
  JE: [gst(START, 5, 'Revenue Jersey (gov.je): GST 5%')],
  KG: [vat(START, 12, 'State Tax Service of Kyrgyzstan: VAT 12%')],
  KZ: [vat(START, 12, 'Kazakhstan State Revenue Committee: VAT 12% until 31 December 2025'), vat('2026-01-01', 16, 'Tax Code of Kazakhstan of 2025: VAT 16% from 1 January 2026')],
  LI: [vat(START, 7.7, 'Liechtenstein Steuerverwaltung (llv.li): as Switzerland, 7.7% until 2023'), vat('2024-01-01', 8.1, 'Liechtenstein Steuerverwaltung (llv.li): 8.1% from 1 January 2024, as Switzerland')],
  MC: [vat(START, 20, 'Monaco applies French VAT: 20% (Direction des Services Fiscaux)')],
  MD: [vat(START, 20, 'State Tax Service of Moldova: VAT 20%')],
  ME: [vat(START, 21, 'Tax Administration of Montenegro: VAT 21%')],
  MK: [vat(START, 18, 'Public Revenue Office of North Macedonia: VAT 18%')],
  NO: [vat(START, 25, 'Skatteetaten, VOEC scheme for digital services: 25%')],
  RS: [vat(START, 20, 'Tax Administration of Serbia: VAT 20%, also on foreign e-services')],
  RU: [vat(START, 20, 'Federal Tax Service of Russia: VAT 20% since 1 January 2019'), vat('2026-01-01', 22, 'Federal Tax Service of Russia, Tax Code as amended in 2025: VAT 22% from 1 January 2026')],
  TR: [vat(START, 18, 'Turkish Revenue Administration (gib.gov.tr): VAT 18%'), vat('2023-07-10', 20, 'Presidential Decree 7346: VAT 20% from 10 July 2023')],
  UA: [vat(START, 20, 'State Tax Service of Ukraine: VAT 20%, on foreign e-services from 1 January 2022')],
  UZ: [vat(START, 15, 'State Tax Committee of Uzbekistan: VAT 15% from 1 October 2019'), vat('2023-01-01', 12, 'State Tax Committee of Uzbekistan: VAT 12% from 1 January 2023')],
  XK: [vat(START, 18, 'Tax Administration of Kosovo: VAT 18%')],
  // The Middle East and Africa.
  AE: [vat(START, 5, 'UAE Federal Tax Authority (tax.gov.ae): VAT 5%')],
  AO: [vat(START, 14, 'Angolan AGT: VAT 14% since 1 October 2019')],
  BH: [vat(START, 5, 'Bahrain NBR (nbr.gov.bh): VAT 5% from 1 January 2019'), vat('2022-01-01', 10, 'Bahrain NBR (nbr.gov.bh): VAT 10% from 1 January 2022')],
  BW: [vat(START, 12, 'Botswana Unified Revenue Service: VAT 12%'), vat('2022-04-01', 14, 'Botswana Unified Revenue Service: VAT 14% from 1 April 2022')],
  CI: [vat(START, 18, 'Direction Générale des Impôts de Côte d\'Ivoire: VAT 18%')],
  CM: [vat(START, 19.25, 'Cameroon DGI: VAT 17.5% plus the 10% additional council tax on it, 19.25%')],
  DZ: [vat(START, 19, 'Algerian Direction Générale des Impôts: VAT 19%')],
  EG: [vat(START, 14, 'Egyptian Tax Authority: VAT 14%')],
  ET: [vat(START, 15, 'Ethiopian Ministry of Revenues: VAT 15%')],
  IL: [vat(START, 17, 'Israel Tax Authority: VAT 17% from 1 October 2015'), vat('2025-01-01', 18, 'Israel Tax Authority: VAT 18% from 1 January 2025')],
  JO: [vat(START, 16, 'Jordan Income and Sales Tax Department: general sales tax 16%')],
  KE: [vat(START, 16, 'Kenya Revenue Authority: VAT 16%'), vat('2020-04-01', 14, 'Tax Laws (Amendment) Act 2020: VAT 14% from 1 April 2020'), vat('2021-01-01', 16, 'Kenya Revenue Authority: VAT back to 16% from 1 January 2021')],
  KW: [none(START, 'Kuwait Ministry of Finance: the GCC VAT framework is not implemented; no VAT')],
  LB: [vat(START, 11, 'Lebanese Ministry of Finance: VAT 11%')],
  MA: [vat(START, 20, 'Moroccan Direction Générale des Impôts: VAT 20%')],
  MG: [vat(START, 20, 'Malagasy Direction Générale des Impôts: VAT 20%')],
  MU: [vat(START, 15, 'Mauritius Revenue Authority: VAT 15%')],
  MW: [vat(START, 16.5, 'Malawi Revenue Authority: VAT 16.5%')],
  NA: [vat(START, 15, 'Namibia Revenue Agency: VAT 15%')],
  NG: [vat(START, 5, 'Nigerian FIRS: VAT 5%'), vat('2020-02-01', 7.5, 'Finance Act 2019 (Nigeria): VAT 7.5% from 1 February 2020')],
  OM: [none(START, 'Oman Tax Authority: no VAT before 16 April 2021'), vat('2021-04-16', 5, 'Oman Tax Authority (taxoman.gov.om): VAT 5% from 16 April 2021')],
  QA: [none(START, 'Qatar General Tax Authority: VAT not implemented')],
  RW: [vat(START, 18, 'Rwanda Revenue Authority: VAT 18%')],
  SA: [vat(START, 5, 'ZATCA: VAT 5% from 1 January 2018'), vat('2020-07-01', 15, 'ZATCA (zatca.gov.sa): VAT 15% from 1 July 2020')],
  SC: [vat(START, 15, 'Seychelles Revenue Commission: VAT 15%')],
  SN: [vat(START, 18, 'Direction Générale des Impôts et des Domaines du Sénégal: VAT 18%')],
  TN: [vat(START, 19, 'Tunisian Ministry of Finance: VAT 19% since 1 January 2018')],
  TZ: [vat(START, 18, 'Tanzania Revenue Authority: VAT 18%')],
  UG: [vat(START, 18, 'Uganda Revenue Authority: VAT 18%')],
  ZA: [vat(START, 15, 'South African Revenue Service: VAT 15%, also on foreign electronic services')],
  ZM: [vat(START, 16, 'Zambia Revenue Authority: VAT 16%')],
  ZW: [vat(START, 14.5, 'ZIMRA: VAT 14.5% from 1 January 2020'), vat('2023-01-01', 15, 'ZIMRA: VAT 15% from 1 January 2023'), vat('2025-01-01', 15.5, 'ZIMRA, Finance Act 2025: VAT 15.5% from 1 January 2025')],
  // Asia and the Pacific.
  AU: [gst(START, 10, 'Australian Taxation Office (ato.gov.au): GST 10%, also on imported digital products')],
  BD: [vat(START, 15, 'National Board of Revenue of Bangladesh: VAT 15%')],
  BN: [none(START, 'Brunei Ministry of Finance and Economy: no VAT, GST or sales tax')],
  FJ: [vat(START, 9, 'Fiji Revenue and Customs Service: VAT 9%'), vat('2023-08-01', 15, 'Fiji Revenue and Customs Service: VAT 15% from 1 August 2023')],
  HK: [none(START, 'Inland Revenue Department of Hong Kong: no VAT, GST or sales tax')],
  ID: [vat(START, 10, 'Indonesian DGT: VAT 10%'), vat('2022-04-01', 11, 'Indonesian DGT, Law 7/2021: VAT 11% from 1 April 2022 (from 2025 12% of a base of 11/12: 11% in effect)')],
  IN: [gst(START, 18, 'Indian CBIC: IGST 18% on online information and database access or retrieval services')],
  JP: [vat(START, 10, 'National Tax Agency Japan: consumption tax 10% since 1 October 2019')],
  KH: [vat(START, 10, 'General Department of Taxation of Cambodia: VAT 10%')],
  KR: [vat(START, 10, 'National Tax Service of Korea: VAT 10%, also on foreign electronic services')],
  LK: [vat(START, 8, 'Inland Revenue Department of Sri Lanka: VAT 8% from 1 December 2019'), vat('2022-06-01', 12, 'Sri Lanka IRD: VAT 12% from 1 June 2022'), vat('2022-09-01', 15, 'Sri Lanka IRD: VAT 15% from 1 September 2022'), vat('2024-01-01', 18, 'Sri Lanka IRD (ird.gov.lk): VAT 18% from 1 January 2024')],
  MN: [vat(START, 10, 'Mongolian General Department of Taxation: VAT 10%')],
  MO: [none(START, 'Financial Services Bureau of Macao: no VAT, GST or sales tax')],
  MV: [gst(START, 6, 'Maldives Inland Revenue Authority: GST 6%'), gst('2023-01-01', 8, 'Maldives Inland Revenue Authority: GST 8% from 1 January 2023')],
  MY: [{ from: START, type: 'SERVICE_TAX', ratePpm: ppm(6), source: 'Royal Malaysian Customs (mysst.customs.gov.my): service tax 6% on digital services from 1 January 2020; Malaysia has no VAT' }, { from: '2024-03-01', type: 'SERVICE_TAX', ratePpm: ppm(8), source: 'Royal Malaysian Customs: service tax 8% from 1 March 2024, digital services included' }],
  NP: [vat(START, 13, 'Inland Revenue Department of Nepal: VAT 13%')],
  NZ: [gst(START, 15, 'Inland Revenue (ird.govt.nz): GST 15%, also on remote services')],
  PG: [gst(START, 10, 'Internal Revenue Commission of Papua New Guinea: GST 10%')],
  PH: [vat(START, 12, 'Bureau of Internal Revenue of the Philippines: VAT 12% (Republic Act 12023 for non-resident digital services from 2 June 2025)')],
  PK: [{ from: START, type: 'SALES_TAX', ratePpm: ppm(17), source: 'Federal Board of Revenue of Pakistan: sales tax 17%' }, { from: '2023-02-14', type: 'SALES_TAX', ratePpm: ppm(18), source: 'Finance (Supplementary) Act 2023 (Pakistan): standard rate 18% from 14 February 2023' }],
  SG: [gst(START, 7, 'IRAS (iras.gov.sg): GST 7%'), gst('2023-01-01', 8, 'IRAS: GST 8% from 1 January 2023'), gst('2024-01-01', 9, 'IRAS: GST 9% from 1 January 2024')],
  TH: [vat(START, 7, 'Thai Revenue Department (rd.go.th): VAT 7%, the reduced rate renewed every year by royal decree; on foreign e-services from 1 September 2021')],
  TO: [gst(START, 15, 'Tonga Ministry of Revenue and Customs: consumption tax 15%')],
  TW: [vat(START, 5, 'Taiwan Ministry of Finance: business tax (VAT) 5%, also on foreign electronic services')],
  WS: [vat(START, 15, 'Samoa Ministry for Revenue: VAGST 15%')],
  // The Americas (the US and Canada: ./us-states.ts and ./canada.ts).
  AI: [gst('2022-07-01', 13, 'Anguilla Inland Revenue Department: GST 13% from 1 July 2022')],
  AR: [vat(START, 21, 'Argentine AFIP: IVA 21%, also on foreign digital services')],
  BB: [vat(START, 17.5, 'Barbados Revenue Authority: VAT 17.5%')],
  BM: [none(START, 'Government of Bermuda: no VAT, GST or sales tax')],
  BO: [vat(START, 14.94, 'Bolivian Servicio de Impuestos Nacionales: IVA 13% of the price with the tax, 14.94% of the price without it')],
  BS: [vat(START, 12, 'Bahamas Department of Inland Revenue: VAT 12% from 1 July 2018'), vat('2022-01-01', 10, 'Bahamas Department of Inland Revenue: VAT 10% from 1 January 2022')],
  BZ: [gst(START, 12.5, 'Belize Tax Service: GST 12.5%')],
  CL: [vat(START, 19, 'Chilean SII: IVA 19%, on foreign digital services from 1 June 2020')],
  CO: [vat(START, 19, 'Colombian DIAN: IVA 19%, also on foreign digital services')],
  CR: [vat(START, 13, 'Costa Rican Ministerio de Hacienda: IVA 13%, on foreign digital services from 1 October 2020')],
  DO: [vat(START, 18, 'Dominican DGII: ITBIS 18%')],
  EC: [vat(START, 12, 'Ecuadorian SRI: IVA 12%'), vat('2024-04-01', 15, 'Ecuadorian SRI (sri.gob.ec): IVA 15% from 1 April 2024')],
  GT: [vat(START, 12, 'Guatemalan SAT: IVA 12%')],
  GY: [vat(START, 14, 'Guyana Revenue Authority: VAT 14%')],
  HN: [vat(START, 15, 'Honduran SAR: ISV 15%')],
  KY: [none(START, 'Cayman Islands Government: no VAT, GST or sales tax')],
  LC: [vat(START, 12.5, 'Saint Lucia Inland Revenue Department: VAT 12.5%')],
  MX: [vat(START, 16, 'Mexican SAT: IVA 16%, on foreign digital services from 1 June 2020')],
  NI: [vat(START, 15, 'Nicaraguan DGI: IVA 15%')],
  PA: [vat(START, 7, 'Panamanian DGI: ITBMS 7%')],
  PE: [vat(START, 18, 'Peruvian SUNAT: IGV 16% plus IPM 2%, 18%')],
  PR: [{ from: START, type: 'SALES_TAX', ratePpm: ppm(11.5), source: 'Puerto Rico Departamento de Hacienda: IVU 11.5% (10.5% state, 1% municipal)' }],
  PY: [vat(START, 10, 'Paraguayan DNIT: IVA 10%')],
  SR: [vat('2023-01-01', 10, 'Suriname Belastingdienst: VAT (BTW) 10% on services from 1 January 2023, replacing the turnover tax')],
  SV: [vat(START, 13, 'Salvadoran Ministerio de Hacienda: IVA 13%')],
  TT: [vat(START, 12.5, 'Trinidad and Tobago Board of Inland Revenue: VAT 12.5%')],
  UY: [vat(START, 22, 'Uruguayan DGI: IVA 22%')],
  VE: [vat(START, 16, 'Venezuelan SENIAT: IVA 16%')],
  VG: [none(START, 'Government of the British Virgin Islands: no VAT, GST or sales tax')],
};
