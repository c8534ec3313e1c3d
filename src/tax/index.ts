// The tax domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/tax is private to it.

/** The checkout and the renewals price a sale's tax with the one calculation. */
export { calculateTax, requireTaxData, type TaxComponent, type TaxReason } from './calculate.js';
/** The checkout checks the buyer's location and tax id before pricing. */
export { checkTaxLocation, type TaxLocation } from './location.js';
export { checkTaxId } from './vat-id.js';
/** The workspace's tax registrations: read by the pricing, normalised where workspaces are set up. */
export { normalizeTaxRegistrations, taxRegistrations, type TaxRegistrations } from './registrations.js';
/** Orders and the checkout show a sale's tax with the tax GraphQL types. */
export { TaxComponentRef, TaxReasonEnum } from './types.js';
