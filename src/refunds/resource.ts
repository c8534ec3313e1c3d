// The refund as the API and the events show it: the contract's Refund result (refundId, orderId,
// amount, currency, status, createdAt, replayed) plus the order's new status, the split over the
// payments, the units and the fee given back. createdAt is an ISO 8601 string, because the
// contract types it as a string where every other time is an integer (docs/decisions.md).
import type { RefundRow } from './service.js';

export function refundResource(refund: RefundRow, replayed = false) {
  return {
    object: 'refund',
    refundId: refund.id,
    orderId: refund.orderId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    createdAt: refund.createdAt.toISOString(),
    replayed,
    orderStatus: refund.order.status,
    reason: refund.reason,
    metadata: refund.metadata,
    items: refund.items as Array<{ id: string; quantity: number }>,
    feeRefunded: refund.feeRefunded,
    source: refund.source,
    failureCode: refund.failureCode,
    failureMessage: refund.failureMessage,
    workflowId: refund.workflowId,
    payments: refund.parts.map((part) => ({
      paymentId: part.paymentId,
      amount: part.amount,
      status: part.status,
      processorRefundId: part.processorRefundId,
      feeRefunded: part.feeRefunded,
    })),
  };
}

export type RefundResource = ReturnType<typeof refundResource>;
