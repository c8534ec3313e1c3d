// What other domains may use of the invoices. They react to payments and refunds through those
// domains' hooks and add their GraphQL fields from here, so no domain calls into them.
/** The domain list (src/domains.ts) assembles the service from it. */
export { invoicesModule } from './module.js';
