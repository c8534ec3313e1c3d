// The payment as the API returns it (the Payment type's fields): in list rows, in an order's
// lastPayment and in the payment events. With the orders: an order carries its last payment, and
// payments depend on orders, never the other way round (docs/domain-graph.md).
import type { Payment, Prisma } from '../generated/prisma/client.js';
import { unixSeconds, unixSecondsOrNull } from '../core/time.js';
import { currencyDecimals } from '../reference/currencies.js';

/** What a payment row needs to become the resource: its order's and subscription's numbers. */
export const paymentRowInclude = {
  order: { select: { number: true } },
  subscription: { select: { number: true } },
} satisfies Prisma.PaymentInclude;

export type PaymentRow = Payment & { order: { number: string }; subscription: { number: string } | null };

export function paymentResource(p: PaymentRow) {
  return {
    object: 'payment',
    id: p.id,
    number: p.number,
    status: p.status,
    amount: p.amount,
    tax: p.tax,
    fee: p.fee,
    currency: p.currency,
    currencyDecimals: currencyDecimals(p.currency) ?? null,
    processor: p.processor,
    methodType: p.methodType,
    processorChargeId: p.processorChargeId,
    failureCode: p.failureCode,
    failureMessage: p.failureMessage,
    refundedAmount: p.refundedAmount,
    disputed: p.disputed,
    planChange: p.planChange,
    cancelRequestedAt: unixSecondsOrNull(p.cancelRequestedAt),
    paidAt: unixSecondsOrNull(p.paidAt),
    orderId: p.orderId,
    orderNumber: p.order.number,
    userId: p.userId,
    // A subscription is identified by its number (the contract), here as everywhere.
    subscriptionId: p.subscription?.number ?? null,
    createdAt: unixSeconds(p.createdAt),
    updatedAt: unixSeconds(p.updatedAt),
  };
}
