// The invoices routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/invoices/list', field: 'Query.invoices', summary: 'List invoices and credit notes (filters by kind, issue date, buyer and payment)' },
  { method: 'GET', path: '/invoices/:invoiceId', field: 'Query.invoice', summary: 'Get an invoice or a credit note with signed links to its page and PDF' },
];
