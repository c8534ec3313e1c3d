// The products domain's door: what other domains may use of it (docs/decisions.md "One door per
// domain"). Everything else in src/products is private to it.

/** Offers, orders, tax and delivery type their fields with the product's GraphQL types. */
export { Product, ProductTypeEnum, Variant } from './types.js';
/** The offers archive a product's offers with it. */
export { onProductArchived, type ProductArchivedHandler } from './hooks.js';
