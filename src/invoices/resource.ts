// An invoice or a credit note as the API and the events show it: its stored content with its id,
// and the signed links to its page and PDF (minted when read; events carry none, since links
// expire and an event may be delivered later: receivers read the document for fresh ones).
import type { Invoice } from '../generated/prisma/client.js';
import type { DocumentContent } from './content.js';

export type DocumentLinks = { url: string; pdfUrl: string; linksExpireAt: number };

export function documentResource(invoice: Invoice, links: DocumentLinks | null) {
  const content = invoice.content as unknown as DocumentContent;
  return {
    object: invoice.kind,
    id: invoice.id,
    number: invoice.number,
    livemode: invoice.livemode,
    issuedAt: Math.floor(invoice.issuedAt.getTime() / 1000),
    supplyDate: content.supplyDate,
    currency: content.currency,
    pricesIncludeTax: content.pricesIncludeTax,
    seller: content.seller,
    buyer: content.buyer,
    lines: content.lines,
    taxes: content.taxes,
    subtotal: content.subtotal,
    tax: content.tax,
    total: content.total,
    reverseCharge: content.reverseCharge,
    notes: content.notes,
    paymentId: content.payment.id,
    paymentNumber: content.payment.number,
    paymentMethod: content.payment.method,
    cardBrand: content.payment.cardBrand,
    cardLast4: content.payment.cardLast4,
    orderId: content.order.id,
    orderNumber: content.order.number,
    refundId: content.refundId,
    correctsInvoiceId: content.corrects?.id ?? null,
    correctsInvoiceNumber: content.corrects?.number ?? null,
    url: links?.url ?? null,
    pdfUrl: links?.pdfUrl ?? null,
    linksExpireAt: links?.linksExpireAt ?? null,
  };
}

export type DocumentResource = ReturnType<typeof documentResource>;

/** invoice_issued's and credit_note_issued's data. */
export const documentEventData = (invoice: Invoice) => ({ [invoice.kind === 'invoice' ? 'invoice' : 'creditNote']: documentResource(invoice, null) });
