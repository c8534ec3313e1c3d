// Payments: the list, one payment, and a cancel request. The state changes the processor and the
// payment workflow drive are in ./transitions.ts.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { offsetPage } from '../core/list.js';
import { inScope, type Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import { readSaleFilters, salePage, type SaleFilters, type SaleListArgs, amountRange, customFieldsWhere, termBuyers, termNumbers, type TermBuyers } from '../orders/index.js';

type Query = { select?: Prisma.PaymentSelect; include?: Prisma.PaymentInclude };

export type PaymentListArgs = SaleListArgs<PaymentStatus>;

/** term: the payment's number (any case), a substring of the buyer's email or username, or the payment's or its order's id (as on orders). */
function termWhere(term: string, buyers: TermBuyers): Prisma.PaymentWhereInput {
  const or: Prisma.PaymentWhereInput[] = [
    { number: { in: termNumbers(term) } },
    'ids' in buyers ? { userId: { in: buyers.ids } } : { user: { is: buyers.where } },
  ];
  if (isUuid(term)) or.push({ id: term.toLowerCase() }, { orderId: term.toLowerCase() });
  return { OR: or };
}

/** The orders list's filters on payments: order-level ones (checkout, custom fields, type, country) through the payment's order. */
export function paymentListWhere(scope: Scope, args: PaymentListArgs, filters: SaleFilters, buyers?: TermBuyers): Prisma.PaymentWhereInput {
  const and: Prisma.PaymentWhereInput[] = [inScope(scope)];
  const order: Prisma.OrderWhereInput[] = [];
  if (args.ids) and.push({ id: { in: args.ids } });
  if (filters.number) and.push({ number: filters.number });
  if (args.userId) and.push({ userId: args.userId });
  for (const number of filters.subscriptionNumbers) and.push({ subscription: { is: { number } } });
  if (args.checkoutIds) order.push({ checkoutId: { in: args.checkoutIds } });
  if (filters.customFields) order.push(customFieldsWhere(filters.customFields));
  if (args.types) order.push({ type: { in: args.types } });
  if (filters.country) order.push({ country: filters.country });
  if (order.length) and.push({ order: { is: { AND: order } } });
  if (args.statuses) and.push({ status: { in: args.statuses } });
  if (args.disputed != null) and.push({ disputed: args.disputed });
  const amount = amountRange(args.valueFrom, args.valueTo);
  if (amount) and.push({ amount });
  if (filters.currency) and.push({ currency: filters.currency });
  if (filters.created) and.push({ createdAt: filters.created });
  if (filters.term && buyers) and.push(termWhere(filters.term, buyers));
  return { AND: and };
}

export async function listPayments(prisma: PrismaClient, scope: Scope, args: PaymentListArgs, query: Query) {
  const { skip, take } = offsetPage(args, 20);
  const filters = readSaleFilters(args);
  // Payments are never archived: archived=true asks for none of them.
  if (args.archived) return { payments: [], count: args.returnCount ? 0 : null };
  const where = paymentListWhere(scope, args, filters, filters.term ? await termBuyers(prisma, scope, filters.term) : undefined);
  const [payments, count] = await Promise.all([
    prisma.payment.findMany({ ...query, where, ...salePage(args, skip, 'amount'), skip, take }),
    args.returnCount ? prisma.payment.count({ where }) : null,
  ]);
  return { payments, count };
}

export async function findPayment(prisma: Db, scope: Scope, paymentId: string, query: Query = {}) {
  const payment = await prisma.payment.findFirst({ ...query, where: { id: paymentId, ...inScope(scope) } });
  if (!payment) throw new NotFound('Payment');
  return payment;
}

/**
 * PATCH /v0/payments/{paymentId}/cancel: records the request on a PENDING payment of the card
 * processor; the payment stays PENDING until the processor confirms (markPaymentCancelled). A
 * repeated request is accepted and changes nothing. 400 for another status, a PayPal-type or a
 * plan-change payment, and a payment no processor handles.
 */
export async function requestPaymentCancel(prisma: PrismaClient, scope: Scope, paymentId: string) {
  const { count } = await prisma.payment.updateMany({
    where: { id: paymentId, ...inScope(scope), status: 'PENDING', cancelRequestedAt: null, planChange: false, processor: { not: null }, methodType: { in: ['card', 'manual'] } },
    data: { cancelRequestedAt: new Date() },
  });
  if (count === 1) return { success: true };
  const payment = await findPayment(prisma, scope, paymentId);
  if (payment.status !== 'PENDING') throw new ValidationFailed(`Only PENDING payments can be cancelled; this one is ${payment.status}`);
  if (payment.methodType === 'paypal') throw new ValidationFailed('PayPal-type payments cannot be cancelled through the API');
  if (payment.planChange) throw new ValidationFailed('Subscription plan-change payments cannot be cancelled');
  if (!payment.processor || !payment.methodType) throw new ValidationFailed('Only payments processed by the card processor can be cancelled');
  // Requested before: the processor has been or will be asked once.
  return { success: true };
}
