// Money that arrived after its payment ended (a late PayPal approval after EXPIRED, a charge whose
// answer was lost) is given back through the same refund machinery: a refund with source and
// reason `expired_payment` of the whole charge, its own workflow (refund/<ws>/<order>/expired-payment/<payment>/<charge>),
// shown on the order and reported by payment_refunded. Once per payment and charge, whatever the
// number of deliveries of the processor's event.
import type { PrismaClient } from '../generated/prisma/client.js';
import type { StrandedChargeHandler } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import { startRefundWorkflow } from './flow.js';
import { refundWorkflowId } from './plan.js';

export const STRANDED_REASON = 'expired_payment';

export const refundStrandedCharge: StrandedChargeHandler = async (prisma: PrismaClient, temporal: TemporalConnection, { paymentId, chargeId, amount }) => {
  const refund = await prisma.$transaction(async (tx) => {
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    await tx.$queryRaw`SELECT 1 FROM "Order" WHERE id = ${payment.orderId}::uuid FOR UPDATE`;
    const fingerprint = `${STRANDED_REASON}:${chargeId}`;
    const earlier = await tx.refund.findFirst({ where: { orderId: payment.orderId, source: STRANDED_REASON, fingerprint }, include: { parts: true } });
    if (earlier) return earlier;
    if (!payment.processor) return null;
    return tx.refund.create({
      data: {
        workspaceId: payment.workspaceId, livemode: payment.livemode, orderId: payment.orderId, amount, currency: payment.currency, reason: STRANDED_REASON,
        source: STRANDED_REASON, fingerprint, workflowId: refundWorkflowId(payment.workspaceId, payment.orderId, { expiredPaymentId: payment.id, chargeId }),
        parts: { create: [{ paymentId, processor: payment.processor, processorChargeId: chargeId, amount }] },
      },
      include: { parts: true },
    });
  });
  if (refund) await startRefundWorkflow(temporal, refund);
};
