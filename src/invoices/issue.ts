// Issuing a document, inside the transaction that paid the payment or booked the refund (the
// hooks of ./module.ts): the next number of the workspace's series (its counter row locked until
// that transaction commits, so a rolled-back payment gives its number back and two payments never
// share one), the content frozen, its HTML and PDF rendered and stored, and the event recorded.
// Idempotent by the document's key. While the seller's legal name or address is missing no
// invoice is issued and the payment records why (InvoiceWithheld).
import type { Prisma } from '../generated/prisma/client.js';
import { recordEvent } from './domain-calls.js';
import { creditLines, line, REVERSE_CHARGE_NOTE, TEST_MODE_NOTE, totalsOf, type DocumentContent, type DocumentLine, type Party } from './content.js';
import { renderHtml } from './render-html.js';
import { renderPdf } from './render-pdf.js';
import { documentEventData } from './resource.js';

type Tx = Prisma.TransactionClient;
export type DocumentKind = DocumentContent['kind'];

export const DEFAULT_PREFIX = 'INV-';
/** Why a paid payment has no invoice. */
export const SELLER_DETAILS_MISSING = 'seller_details_missing';

const EVENT_OF = { invoice: 'invoice_issued', credit_note: 'credit_note_issued' } as const;

/** `INV-000042`, a credit note `INV-CN-000007`; test mode's series are their own and say so: `INV-TEST-000042`. */
export function documentNumber(prefix: string | null, kind: DocumentKind, livemode: boolean, sequence: number): string {
  return `${prefix ?? DEFAULT_PREFIX}${kind === 'credit_note' ? 'CN-' : ''}${livemode ? '' : 'TEST-'}${String(sequence).padStart(6, '0')}`;
}

/** The next place in the series, its counter row locked until the caller's transaction ends. */
async function nextSequence(tx: Tx, workspaceId: string, livemode: boolean, kind: DocumentKind): Promise<number> {
  const [row] = await tx.$queryRaw<{ last: number }[]>`
    INSERT INTO "InvoiceCounter" ("workspaceId", livemode, kind, last) VALUES (${workspaceId}::uuid, ${livemode}, ${kind}, 1)
    ON CONFLICT ("workspaceId", livemode, kind) DO UPDATE SET last = "InvoiceCounter".last + 1
    RETURNING last`;
  return row!.last;
}

type Draft = Omit<DocumentContent, 'number' | 'kind' | 'taxes' | 'subtotal' | 'tax' | 'total' | 'notes'> & { notes: string[] };

interface Issue {
  key: string;
  kind: DocumentKind;
  workspaceId: string;
  prefix: string | null;
  userId: string | null;
  draft: Draft;
}

async function issue(tx: Tx, { key, kind, workspaceId, prefix, userId, draft }: Issue): Promise<void> {
  const sequence = await nextSequence(tx, workspaceId, draft.livemode, kind);
  const notes = [...draft.notes, ...(draft.livemode ? [] : [TEST_MODE_NOTE])];
  const content: DocumentContent = { ...draft, kind, number: documentNumber(prefix, kind, draft.livemode, sequence), ...totalsOf(draft.lines), notes };
  const invoice = await tx.invoice.create({
    data: {
      workspaceId, livemode: draft.livemode, key, kind, sequence, number: content.number, paymentId: draft.payment.id, orderId: draft.order.id,
      refundId: draft.refundId, correctsId: draft.corrects?.id ?? null, userId, buyerEmail: draft.buyer.email?.toLowerCase() ?? null,
      currency: draft.currency, total: content.total, tax: content.tax, issuedAt: new Date(draft.issuedAt),
      content: content as unknown as Prisma.InputJsonObject, html: renderHtml(content), pdf: await renderPdf(content),
    },
  });
  await recordEvent(tx, { workspaceId, livemode: draft.livemode }, EVENT_OF[kind], documentEventData(invoice));
}

const paymentInclude = {
  order: { include: { items: { orderBy: [{ position: 'asc' }, { id: 'asc' }] }, user: true } },
  subscription: { select: { number: true } },
  charges: { where: { status: 'succeeded' }, orderBy: { attempt: 'desc' }, take: 1 },
} satisfies Prisma.PaymentInclude;
type PaymentToBill = Prisma.PaymentGetPayload<{ include: typeof paymentInclude }>;

const sellerOf = (workspace: { invoiceLegalName: string | null; invoiceAddress: string | null; invoiceTaxId: string | null }) =>
  workspace.invoiceLegalName && workspace.invoiceAddress
    ? { legalName: workspace.invoiceLegalName, address: linesOf(workspace.invoiceAddress), taxId: workspace.invoiceTaxId }
    : null;

const linesOf = (text: string) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/** The buyer as billed: the user's billing details where kept, else the order's taxed location. */
function buyerOf(order: PaymentToBill['order']): Party {
  const billing = (order.user?.billingDetails ?? null) as { name?: string; line1?: string; line2?: string; city?: string; state?: string; postalCode?: string; countryCode?: string } | null;
  const place = [billing?.postalCode ?? order.billingPostalCode, billing?.city, billing?.state ?? order.billingState].filter(Boolean).join(' ');
  return {
    name: billing?.name ?? order.user?.username ?? null,
    email: order.user?.email ?? null,
    address: [billing?.line1, billing?.line2, place].filter((l): l is string => Boolean(l)),
    country: billing?.countryCode ?? order.country,
    taxId: order.taxId,
  };
}

/** The payment's lines: a first payment bills its cart items; a renewal or a plan change bills its period as one line. */
function paymentLines(payment: PaymentToBill, names: ReadonlyMap<string, string>): DocumentLine[] {
  const { order } = payment;
  const nameOf = (item: { productId: string }) => names.get(item.productId) ?? 'Item';
  const itemsTotal = order.items.reduce((sum, i) => sum + i.unitPrice * i.quantity - i.discount + (i.taxInclusive ? 0 : i.tax), 0);
  if (payment.sequence === 1 && itemsTotal === payment.amount) {
    return order.items.map((i) => line({ itemId: i.id, description: nameOf(i), quantity: i.quantity, unitPrice: i.unitPrice, discount: i.discount, tax: i.tax, taxInclusive: i.taxInclusive }));
  }
  const what = [...new Set(order.items.map(nameOf))].join(', ');
  const period = payment.planChange ? 'plan change (prorated)' : payment.sequence === 1 ? 'first period' : `renewal, period ${payment.subscriptionPeriod ?? payment.sequence}`;
  const description = payment.subscription ? `${what}: subscription ${payment.subscription.number}, ${period}` : what;
  return [line({ itemId: null, description, quantity: 1, unitPrice: order.taxInclusive ? payment.amount : payment.amount - payment.tax, discount: 0, tax: payment.tax, taxInclusive: order.taxInclusive })];
}

/** onPaymentPaidInTransaction: the paid payment's invoice, or the record of why none is issued. */
export async function issueInvoice(tx: Tx, paymentId: string): Promise<void> {
  const key = `invoice/${paymentId}`;
  // One statement answers whether anything is left to do, with the seller's details as this
  // transaction sees them, and records the withholding when they are missing (the only statement
  // then, as for most workspaces in test mode).
  const [workspace] = await tx.$queryRaw<Array<{ issued: boolean; invoiceLegalName: string | null; invoiceAddress: string | null; invoiceTaxId: string | null; invoicePrefix: string | null }>>`
    WITH state AS (
      SELECT p."workspaceId", p.livemode, EXISTS (SELECT 1 FROM "Invoice" i WHERE i.key = ${key}) AS issued,
        w."invoiceLegalName", w."invoiceAddress", w."invoiceTaxId", w."invoicePrefix"
      FROM "Payment" p JOIN "Workspace" w ON w.id = p."workspaceId" WHERE p.id = ${paymentId}::uuid
    ), withheld AS (
      INSERT INTO "InvoiceWithheld" ("paymentId", "workspaceId", livemode, reason, "createdAt")
      SELECT ${paymentId}::uuid, "workspaceId", livemode, ${SELLER_DETAILS_MISSING}, ${new Date()} FROM state
      -- sellerOf's rule: no seller without a legal name and an address.
      WHERE NOT issued AND (COALESCE("invoiceLegalName", '') = '' OR COALESCE("invoiceAddress", '') = '')
      ON CONFLICT ("paymentId") DO NOTHING
    )
    SELECT issued, "invoiceLegalName", "invoiceAddress", "invoiceTaxId", "invoicePrefix" FROM state`;
  if (!workspace) throw new Error(`issueInvoice: no payment ${paymentId}`);
  const seller = sellerOf(workspace);
  if (workspace.issued || !seller) return;
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, include: paymentInclude });
  const products = await tx.product.findMany({ where: { id: { in: payment.order.items.map((i) => i.productId) } }, select: { id: true, name: true } });
  const paidAt = payment.paidAt!;
  const charge = payment.charges[0];
  const reverseCharge = payment.order.taxReason === 'reverse_charge';
  await issue(tx, {
    key, kind: 'invoice', workspaceId: payment.workspaceId, prefix: workspace.invoicePrefix, userId: payment.userId,
    draft: {
      livemode: payment.livemode, issuedAt: paidAt.toISOString(), supplyDate: paidAt.toISOString().slice(0, 10), currency: payment.currency,
      pricesIncludeTax: payment.order.taxInclusive, seller, buyer: buyerOf(payment.order),
      lines: paymentLines(payment, new Map(products.map((p) => [p.id, p.name]))),
      reverseCharge, notes: reverseCharge ? [REVERSE_CHARGE_NOTE] : [],
      payment: { id: payment.id, number: payment.number, method: payment.methodType, cardBrand: charge?.cardBrand ?? null, cardLast4: charge?.cardLast4 ?? null },
      order: { id: payment.orderId, number: payment.order.number }, refundId: null, corrects: null,
    },
  });
}

/** onRefundPartSucceeded: the credit note correcting the part's payment's invoice by what the part gave back (none when that payment has no invoice). */
export async function issueCreditNote(tx: Tx, partId: string, now: Date): Promise<void> {
  const key = `credit_note/${partId}`;
  // The payment's invoice, unless this part's credit note exists: one statement, and the only one
  // when there is nothing to correct (most refunds where invoices are withheld).
  const [toCorrect] = await tx.$queryRaw<{ id: string }[]>`
    SELECT i.id FROM "RefundPart" p JOIN "Invoice" i ON i.key = 'invoice/' || p."paymentId"
    WHERE p.id = ${partId}::uuid AND NOT EXISTS (SELECT 1 FROM "Invoice" c WHERE c.key = ${key})`;
  if (!toCorrect) return;
  const part = await tx.refundPart.findUniqueOrThrow({ where: { id: partId }, include: { refund: { select: { id: true, items: true } } } });
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: toCorrect.id } });
  const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: invoice.workspaceId }, select: { invoicePrefix: true } });
  const corrected = invoice.content as unknown as DocumentContent;
  const items = part.refund.items as Array<{ id: string; quantity: number }>;
  const before = await tx.invoice.aggregate({ where: { correctsId: invoice.id }, _sum: { total: true, tax: true } });
  const taxLeft = (before._sum.total ?? 0) + part.amount === invoice.total ? invoice.tax - (before._sum.tax ?? 0) : null;
  await issue(tx, {
    key, kind: 'credit_note', workspaceId: invoice.workspaceId, prefix: workspace.invoicePrefix, userId: invoice.userId,
    draft: {
      ...corrected, issuedAt: now.toISOString(), lines: creditLines(corrected.lines, part.amount, items, corrected.pricesIncludeTax, taxLeft),
      notes: corrected.reverseCharge ? [REVERSE_CHARGE_NOTE] : [], refundId: part.refund.id, corrects: { id: invoice.id, number: invoice.number },
    },
  });
}
