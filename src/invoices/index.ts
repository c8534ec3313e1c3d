// What other domains may use of the invoices: nothing yet. They react to payments and refunds
// through those domains' hooks, and add their GraphQL fields from here, so no domain calls them.
export { invoicesModule } from './module.js';
