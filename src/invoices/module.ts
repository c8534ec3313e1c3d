// The invoices domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { onPaymentPaidInTransaction, onRefundPartSucceeded } from './domain-calls.js';
import { endpoints } from './endpoints.js';
import { events } from './events.js';
import { routes } from './routes.js';

// A payment's invoice commits with its PAID, a refund share's credit note with its booking: no
// paid payment without its invoice, no gap in the numbers. The issuing code (pdfkit) loads on first use.
onPaymentPaidInTransaction(async (tx, paymentId) => (await import('./issue.js')).issueInvoice(tx, paymentId));
onRefundPartSucceeded(async (tx, partId, now) => (await import('./issue.js')).issueCreditNote(tx, partId, now));

export const invoicesModule: DomainModule = {
  tag: { name: 'Invoices', description: 'Invoices and credit notes: issued for every paid payment and every refund, numbered without gaps, immutable, with signed links to their page and PDF' },
  // After payments and refunds: it adds fields to their types.
  registerTypes: () => import('./types.js'),
  routes,
  endpoints,
  events,
};
