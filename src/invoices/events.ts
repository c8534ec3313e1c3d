// The documents' events: invoice_issued (data: invoice) and credit_note_issued (data:
// creditNote), recorded in the transaction that issues them (./issue.ts). The samples go through
// the same resource builder, so a test event has the real event's shape.
import { randomUUID } from 'node:crypto';
import type { Invoice, Prisma } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { line, REVERSE_CHARGE_NOTE, totalsOf, type DocumentContent } from './content.js';
import { documentEventData } from './resource.js';

function sampleDocument({ now }: SampleContext, kind: DocumentContent['kind']): Invoice {
  const lines = [line({ itemId: randomUUID(), description: 'Sample product', quantity: 1, unitPrice: 1000, discount: 0, tax: 0, taxInclusive: false })];
  const invoiceId = randomUUID();
  const content: DocumentContent = {
    kind, number: kind === 'invoice' ? 'INV-TEST-000001' : 'INV-CN-TEST-000001', livemode: false, issuedAt: now.toISOString(), supplyDate: now.toISOString().slice(0, 10),
    currency: 'EUR', pricesIncludeTax: false, seller: { legalName: 'Sample Seller GmbH', address: ['Street 1', '10115 Berlin', 'DE'], taxId: 'DE123456789' },
    buyer: { name: 'Sample Buyer', email: 'buyer@example.com', address: ['1000 Brussels'], country: 'BE', taxId: 'BE0123456749' },
    lines, ...totalsOf(lines), reverseCharge: true, notes: [REVERSE_CHARGE_NOTE],
    payment: { id: randomUUID(), number: 'SAMPLE0000000001', method: 'card', cardBrand: 'visa', cardLast4: '4242' },
    order: { id: randomUUID(), number: 'SAMPLE0000000001' },
    refundId: kind === 'credit_note' ? randomUUID() : null, corrects: kind === 'credit_note' ? { id: invoiceId, number: 'INV-TEST-000001' } : null,
  };
  return {
    id: kind === 'invoice' ? invoiceId : randomUUID(), workspaceId: randomUUID(), livemode: false, key: '', kind, sequence: 1, number: content.number,
    paymentId: content.payment.id, orderId: content.order.id, refundId: content.refundId, correctsId: content.corrects?.id ?? null, userId: null, buyerEmail: content.buyer.email,
    currency: 'EUR', total: content.total, tax: content.tax, issuedAt: now, content: content as unknown as Prisma.JsonObject, html: '', pdf: new Uint8Array(), createdAt: now,
  };
}

export const events = {
  invoice_issued: (context: SampleContext) => documentEventData(sampleDocument(context, 'invoice')),
  credit_note_issued: (context: SampleContext) => documentEventData(sampleDocument(context, 'credit_note')),
} satisfies EventDefinitions;
