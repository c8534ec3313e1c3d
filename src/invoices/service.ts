// Reading the documents: the list (offset pagination, filters by kind, issue date and buyer), one
// by id, a payment's invoice (or why it has none) and a refund's credit notes. Issuing is ./issue.ts.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { offsetPage, type OffsetListArgs } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import { createdRange } from './domain-calls.js';
import type { DocumentKind } from './issue.js';

export interface DocumentListArgs extends Pick<OffsetListArgs, 'skip' | 'take' | 'orderDirection' | 'returnCount'> {
  kind?: DocumentKind | null;
  issuedFrom?: number | null;
  issuedTo?: number | null;
  userId?: string | null;
  email?: string | null;
  paymentId?: string | null;
}

/** Newest first by default; issuedFrom/issuedTo read as createdFrom/createdTo are on orders (seconds, or milliseconds from 10^11). */
export async function listDocuments(prisma: PrismaClient, scope: Scope, args: DocumentListArgs) {
  const { skip, take } = offsetPage(args, 20);
  if (args.email !== null && args.email !== undefined && args.email.trim() === '') throw new ValidationFailed('email must not be empty');
  const issuedAt = createdRange(args.issuedFrom, args.issuedTo);
  const where: Prisma.InvoiceWhereInput = {
    ...inScope(scope),
    ...(args.kind ? { kind: args.kind } : {}),
    ...(issuedAt ? { issuedAt } : {}),
    ...(args.userId ? { userId: args.userId } : {}),
    ...(args.email ? { buyerEmail: args.email.trim().toLowerCase() } : {}),
    ...(args.paymentId ? { paymentId: args.paymentId } : {}),
  };
  const dir = args.orderDirection === 'ASC' ? 'asc' : 'desc';
  const [documents, count] = await Promise.all([
    prisma.invoice.findMany({ where, orderBy: [{ issuedAt: dir }, { id: dir }], skip, take }),
    args.returnCount ? prisma.invoice.count({ where }) : null,
  ]);
  return { documents, count };
}

export async function findDocument(prisma: PrismaClient, scope: Scope, id: string) {
  const document = isUuid(id) ? await prisma.invoice.findFirst({ where: { id: id.toLowerCase(), ...inScope(scope) } }) : null;
  if (!document) throw new NotFound('Invoice');
  return document;
}

/**
 * What a payment's `invoice` says: its invoice; or, for a payment that was paid, why there is
 * none (the seller's name or address was missing when it was paid, or it was paid before
 * invoices were issued); null for a payment never paid (no invoice is due).
 */
export async function invoiceOfPayment(prisma: PrismaClient, payment: { id: string; paidAt: Date | null }) {
  const [invoice, withheld] = await Promise.all([
    prisma.invoice.findUnique({ where: { key: `invoice/${payment.id}` } }),
    prisma.invoiceWithheld.findUnique({ where: { paymentId: payment.id } }),
  ]);
  if (invoice) return { status: 'issued' as const, invoice };
  if (withheld) return { status: 'withheld' as const, reason: withheld.reason };
  return payment.paidAt ? { status: 'withheld' as const, reason: 'paid_before_invoicing' } : null;
}

/** A refund's credit notes, one per payment it gave money back from (oldest first). */
export const creditNotesOf = (prisma: PrismaClient, refundId: string) =>
  prisma.invoice.findMany({ where: { refundId, kind: 'credit_note' }, orderBy: { sequence: 'asc' } });

/** The stored document a link names, for its page and PDF. */
export const documentById = (prisma: PrismaClient, id: string) => prisma.invoice.findUnique({ where: { id } });
