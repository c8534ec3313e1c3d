// The documents' GraphQL types: the Invoice (an invoice or a credit note, as issued), the list and
// one by id, a payment's `invoice` and a refund's `creditNotes` (fields added to those domains'
// types from here, so neither imports this domain).
import { systemClock } from '../core/time.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { PaymentDetails, RefundResult } from './domain-calls.js';
import { documentLinks } from './links.js';
import { documentResource, type DocumentResource } from './resource.js';
import { creditNotesOf, findDocument, invoiceOfPayment, listDocuments } from './service.js';

const KindEnum = builder.enumType('InvoiceKind', { values: ['invoice', 'credit_note'] as const });

const Line = builder.objectRef<DocumentResource['lines'][number]>('InvoiceLine').implement({
  fields: (t) => ({
    itemId: t.exposeID('itemId', { nullable: true, description: 'The cart item billed; null for a period of a subscription' }),
    description: t.exposeString('description'),
    quantity: t.exposeInt('quantity'),
    unitPrice: t.exposeInt('unitPrice', { description: 'Minor units, as charged (with tax when pricesIncludeTax)' }),
    discount: t.exposeInt('discount', { description: 'Minor units' }),
    taxRate: t.exposeFloat('taxRate', { description: '0.19 for 19%' }),
    tax: t.exposeInt('tax'),
    amount: t.exposeInt('amount', { description: 'The line without tax' }),
    total: t.exposeInt('total', { description: 'amount + tax' }),
  }),
});

const TaxTotal = builder.objectRef<DocumentResource['taxes'][number]>('InvoiceTaxTotal').implement({
  description: "The lines taxed at one rate: their amount without tax and the tax",
  fields: (t) => ({ rate: t.exposeFloat('rate'), amount: t.exposeInt('amount'), tax: t.exposeInt('tax') }),
});

const Seller = builder.objectRef<DocumentResource['seller']>('InvoiceSeller').implement({
  fields: (t) => ({ legalName: t.exposeString('legalName'), address: t.exposeStringList('address'), taxId: t.exposeString('taxId', { nullable: true }) }),
});

const Buyer = builder.objectRef<DocumentResource['buyer']>('InvoiceBuyer').implement({
  fields: (t) => ({
    name: t.exposeString('name', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    address: t.exposeStringList('address'),
    country: t.exposeString('country', { nullable: true }),
    taxId: t.exposeString('taxId', { nullable: true, description: "The business buyer's VAT id (the sale was reverse charged)" }),
  }),
});

const Invoice = builder.objectRef<DocumentResource>('Invoice').implement({
  description: 'An invoice (of a paid payment) or a credit note (of a refund), as issued: never changed after',
  fields: (t) => ({
    object: t.field({ type: KindEnum, resolve: (d) => d.object as 'invoice' | 'credit_note' }),
    id: t.exposeID('id'),
    number: t.exposeString('number', { description: "{prefix}{000001}; credit notes {prefix}CN-…; test mode's series {prefix}TEST-…" }),
    livemode: t.exposeBoolean('livemode'),
    issuedAt: t.exposeInt('issuedAt', { description: 'Unix seconds' }),
    supplyDate: t.exposeString('supplyDate', { description: 'YYYY-MM-DD' }),
    currency: t.exposeString('currency'),
    pricesIncludeTax: t.exposeBoolean('pricesIncludeTax'),
    seller: t.expose('seller', { type: Seller }),
    buyer: t.expose('buyer', { type: Buyer }),
    lines: t.expose('lines', { type: [Line] }),
    taxes: t.expose('taxes', { type: [TaxTotal], description: 'Totals per tax rate, highest rate first' }),
    subtotal: t.exposeInt('subtotal', { description: 'Without tax' }),
    tax: t.exposeInt('tax'),
    total: t.exposeInt('total', { description: 'What was paid (an invoice) or given back (a credit note)' }),
    reverseCharge: t.exposeBoolean('reverseCharge'),
    notes: t.exposeStringList('notes'),
    paymentId: t.exposeID('paymentId'),
    paymentNumber: t.exposeString('paymentNumber'),
    paymentMethod: t.exposeString('paymentMethod', { nullable: true }),
    cardBrand: t.exposeString('cardBrand', { nullable: true }),
    cardLast4: t.exposeString('cardLast4', { nullable: true }),
    orderId: t.exposeID('orderId'),
    orderNumber: t.exposeString('orderNumber'),
    refundId: t.exposeID('refundId', { nullable: true }),
    correctsInvoiceId: t.exposeID('correctsInvoiceId', { nullable: true, description: 'A credit note: the invoice it corrects' }),
    correctsInvoiceNumber: t.exposeString('correctsInvoiceNumber', { nullable: true }),
    url: t.exposeString('url', { nullable: true, description: 'The HTML page, signed (no keys needed) until linksExpireAt; null in webhook events (read the document for fresh links)' }),
    pdfUrl: t.exposeString('pdfUrl', { nullable: true, description: 'The PDF, signed like url' }),
    linksExpireAt: t.exposeInt('linksExpireAt', { nullable: true, description: 'Unix seconds' }),
  }),
});

type Link = { object: string; status: 'issued' | 'withheld'; reason: string | null; document: DocumentResource | null };

const InvoiceLink = builder.objectRef<Link>('InvoiceLink').implement({
  description: "A payment's invoice or a refund's credit note: where to read it, or why there is none",
  fields: (t) => ({
    object: t.exposeString('object'),
    status: t.exposeString('status', { description: 'issued, or withheld (no document: see reason)' }),
    reason: t.exposeString('reason', { nullable: true, description: 'withheld: seller_details_missing (the workspace had no invoiceLegalName or invoiceAddress when it was paid) or paid_before_invoicing' }),
    id: t.id({ nullable: true, resolve: (l) => l.document?.id ?? null }),
    number: t.string({ nullable: true, resolve: (l) => l.document?.number ?? null }),
    issuedAt: t.int({ nullable: true, description: 'Unix seconds', resolve: (l) => l.document?.issuedAt ?? null }),
    url: t.string({ nullable: true, description: 'The HTML page, signed (no keys needed) for 30 days', resolve: (l) => l.document?.url ?? null }),
    pdfUrl: t.string({ nullable: true, resolve: (l) => l.document?.pdfUrl ?? null }),
  }),
});

builder.objectField(PaymentDetails, 'invoice', (t) =>
  t.field({
    type: InvoiceLink,
    nullable: true,
    description: 'Its invoice; null while it was never paid',
    resolve: async (payment, _args, ctx): Promise<Link | null> => {
      const found = await invoiceOfPayment(ctx.prisma, payment);
      if (!found) return null;
      if (found.status === 'withheld') return { object: 'invoice', status: 'withheld', reason: found.reason, document: null };
      return { object: 'invoice', status: 'issued', reason: null, document: documentResource(found.invoice, documentLinks(found.invoice.id, ctx.origin, systemClock())) };
    },
  }),
);

builder.objectField(RefundResult, 'creditNotes', (t) =>
  t.field({
    type: [InvoiceLink],
    description: 'One credit note per payment it gave money back from (once that share succeeded and the payment has an invoice)',
    resolve: async (refund, _args, ctx) =>
      (await creditNotesOf(ctx.prisma, refund.refundId)).map((note) => ({ object: 'credit_note', status: 'issued' as const, reason: null, document: documentResource(note, documentLinks(note.id, ctx.origin, systemClock())) })),
  }),
);

const InvoiceList = builder.simpleObject('InvoiceList', { fields: (t) => ({ invoices: t.field({ type: [Invoice] }), count: t.int({ nullable: true }) }) });
const InvoicePayload = builder.simpleObject('InvoicePayload', { fields: (t) => ({ invoice: t.field({ type: Invoice }) }) });

builder.queryFields((t) => ({
  invoices: t.field({
    type: InvoiceList,
    description: 'Invoices and credit notes, newest first by default',
    args: {
      skip: offsetListArgs.skip,
      take: offsetListArgs.take,
      orderDirection: offsetListArgs.orderDirection,
      returnCount: offsetListArgs.returnCount,
      kind: t.arg({ type: KindEnum }),
      issuedFrom: t.arg({ type: 'Timestamp', description: 'Unix seconds (or milliseconds from 10^11); inclusive' }),
      issuedTo: t.arg({ type: 'Timestamp', description: 'Unix seconds (the whole second, or milliseconds from 10^11); inclusive' }),
      userId: t.arg({ type: 'UUID', description: 'The buyer' }),
      email: t.arg.string({ description: "The buyer's email (any case)" }),
      paymentId: t.arg({ type: 'UUID' }),
    },
    resolve: async (_root, args, ctx) => {
      const { documents, count } = await listDocuments(ctx.prisma, await scopeOf(ctx, 'read'), args);
      const now = systemClock();
      return { invoices: documents.map((d) => documentResource(d, documentLinks(d.id, ctx.origin, now))), count };
    },
  }),
  invoice: t.field({
    type: InvoicePayload,
    description: 'An invoice or a credit note',
    args: { invoiceId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => {
      const document = await findDocument(ctx.prisma, await scopeOf(ctx, 'read'), args.invoiceId);
      return { invoice: documentResource(document, documentLinks(document.id, ctx.origin, systemClock())) };
    },
  }),
}));
