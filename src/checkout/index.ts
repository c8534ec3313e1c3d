// The checkout domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/checkout is private to it.

/** Renewals share the checkout's discount split and tax reason, so a renewal prices like the sale. */
export { discountShares, orderTaxReason } from './pricing.js';
/** The other hosted pages (payment method sessions, portal) look like the checkout page. */
export { htmlDocument, testBanner } from './page.js';
export { hostedPageHeaders } from './page-assets.js';
export { escapeHtml, formatMoney, plural, scriptJson } from './page-format.js';
