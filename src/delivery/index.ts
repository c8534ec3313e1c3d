// The delivery domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/delivery is private to it.

/** The checkout takes license keys from stock for the order it creates, in its transaction. */
export { reserveLicenseKeys } from './license-keys.js';
/** The portal shows keys only for the product types that have them. */
export { KEYED_PRODUCT_TYPES } from './license-keys.js';
/** The portal hands its buyer download URLs for the items it owns. */
export { mintDownloadUrl, undeliverable } from './download-links.js';
export { fileOfItem } from './files.js';
/** The secret under the data directory signs the portal's tokens and the subscriptions' cursors too. */
export { dataDirSecret } from './secrets.js';
