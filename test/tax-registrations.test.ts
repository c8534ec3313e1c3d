import { calculateTax, type TaxInput } from '../src/tax/calculate.js';
import { normalizeTaxRegistrations, taxRegistrations } from '../src/tax/registrations.js';

// Tax only where the workspace is registered (the setting taxRegistrations), as a pure function:
// outside them no tax, with the reason not_registered; `everywhere` (the default) is the
// behaviour from before the setting.

const at = new Date('2025-06-01T12:00:00Z');
const tax = (registered: string, location: TaxInput['location'], fields: Partial<TaxInput> = {}) =>
  calculateTax({ productType: 'DigitalDownload', amount: 10_000, currency: 'EUR', location, priceIncludesTax: false, at, registrations: taxRegistrations(normalizeTaxRegistrations(registered)), ...fields });

describe('the setting as the admin CLI takes it', () => {
  test.each([
    ['everywhere', 'everywhere'],
    ['EVERYWHERE', 'everywhere'],
    ['none', 'none'],
    ['', 'none'],
    ['gb, de,eu', 'DE,EU,GB'],
    ['us-wa,US-TX,ca,ca-qc,DE,DE', 'CA,CA-QC,DE,US-TX,US-WA'],
  ])('%j is stored as %j', (raw, stored) => {
    expect(normalizeTaxRegistrations(raw)).toBe(stored);
  });

  test.each([
    ['US', /registered per state/],
    ['US-ZZ', /not a jurisdiction/],
    ['CA-XX', /not a jurisdiction/],
    ['DE-BY', /not a jurisdiction/],
    ['QQ', /not a jurisdiction/],
    ['DE,,FR', /not a jurisdiction/],
    ['US-WA-1', /not a jurisdiction/],
  ])('%j is refused', (raw, message) => {
    expect(() => normalizeTaxRegistrations(raw)).toThrow(message);
  });
});

describe('tax only where registered', () => {
  test('everywhere: as before, every jurisdiction the data knows', () => {
    expect(tax('everywhere', { country: 'DE' })).toMatchObject({ taxAmount: 1_900, taxReason: null });
  });

  test('outside the registrations: 0 with the reason not_registered; none: nowhere', () => {
    expect(tax('GB,US-WA', { country: 'DE' })).toMatchObject({ taxAmount: 0, components: [], taxType: null, taxReason: 'not_registered', exemption: 'Not registered for tax in DE: no tax collected' });
    expect(tax('none', { country: 'GB' })).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
    expect(tax('GB,US-WA', { country: 'GB' })).toMatchObject({ taxAmount: 2_000, taxReason: null });
  });

  test('EU: every member state (One Stop Shop), not the rest of Europe', () => {
    expect(tax('EU', { country: 'FR' })).toMatchObject({ taxAmount: 2_000, taxReason: null });
    expect(tax('EU', { country: 'HU' })).toMatchObject({ taxAmount: 2_700, taxReason: null });
    expect(tax('EU', { country: 'NO' })).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
  });

  test('US states one by one', () => {
    const us = (registered: string, state: string) => tax(registered, { country: 'US', state }, { currency: 'USD' });
    expect(us('US-WA', 'WA')).toMatchObject({ taxAmount: 650, taxReason: null });
    expect(us('US-WA', 'TX')).toMatchObject({ taxAmount: 0, taxReason: 'not_registered', jurisdiction: 'US-TX' });
  });

  test('Canada: CA collects the GST and HST; a province\'s PST or QST needs its own registration', () => {
    const canada = (registered: string, state: string) => tax(registered, { country: 'CA', state }, { currency: 'CAD' });
    expect(canada('CA', 'ON')).toMatchObject({ taxAmount: 1_300, taxType: 'HST', taxReason: null });
    expect(canada('CA', 'QC')).toMatchObject({
      taxAmount: 500,
      components: [{ type: 'GST', rate: 0.05, jurisdiction: 'CA', amount: 500 }],
      taxReason: 'not_registered',
      exemption: 'Not registered for tax in CA-QC: its QST not collected',
    });
    expect(canada('CA,CA-QC', 'QC')).toMatchObject({ taxAmount: 1_498, taxReason: null });
    expect(canada('CA-QC', 'QC')).toMatchObject({ components: [{ type: 'QST', rate: 0.09975, jurisdiction: 'CA-QC', amount: 998 }], taxReason: 'not_registered' });
    expect(canada('CA-QC', 'ON')).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
  });

  test('not registered comes before what the data knows: no no_data where no tax is collected anyway', () => {
    expect(tax('DE', { country: 'BR' })).toMatchObject({ taxAmount: 0, taxReason: 'not_registered' });
    expect(tax('everywhere', { country: 'BR' }).taxReason).toBe('no_data');
  });

  test('a business buyer\'s VAT number reverse charges whether the workspace is registered there or not; a gift card is not taxable', () => {
    expect(tax('GB', { country: 'DE' }, { taxId: 'DE143454214' })).toMatchObject({ taxAmount: 0, taxReason: 'reverse_charge', reverseCharge: true });
    expect(tax('DE', { country: 'DE' }, { productType: 'GiftCard' })).toMatchObject({ taxAmount: 0, taxReason: 'not_taxable' });
  });
});
