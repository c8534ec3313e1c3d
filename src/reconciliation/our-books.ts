// Our side of a batch of processor charges or refunds, read in a few queries per batch: the
// charge rows and payments they name, the refund parts, and what tells a step under way from a
// difference (a part still waiting for the processor's answer, a charge already given back).
import { isUuid } from '../core/uuid.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { STRANDED_REASON, type ProcessorChargeRecord, type ProcessorName, type ProcessorRefundRecord } from './domain-calls.js';
import type { OurCharge, OurRefundPart } from './rules.js';

const PAYMENT = { id: true, workspaceId: true, livemode: true, status: true, processorChargeId: true, amount: true, currency: true } as const;

/** Our charge of each processor charge id: its row, else the payment its metadata names (a charge whose answer we never recorded). */
export async function ourCharges(prisma: PrismaClient, processor: ProcessorName, records: readonly Pick<ProcessorChargeRecord, 'chargeId' | 'paymentId'>[]): Promise<Map<string, OurCharge>> {
  const ids = [...new Set(records.map((r) => r.chargeId))];
  const [rows, strays, givenBack] = await Promise.all([
    prisma.charge.findMany({ where: { processor, processorChargeId: { in: ids } }, include: { payment: { select: PAYMENT } } }),
    prisma.payment.findMany({ where: { id: { in: records.flatMap((r) => (r.paymentId && isUuid(r.paymentId) ? [r.paymentId] : [])) } }, select: PAYMENT }),
    prisma.refund.findMany({ where: { source: STRANDED_REASON, fingerprint: { in: ids.map((id) => `${STRANDED_REASON}:${id}`) } }, select: { fingerprint: true } }),
  ]);
  const back = new Set(givenBack.map((r) => r.fingerprint.slice(STRANDED_REASON.length + 1)));
  const byPayment = new Map(strays.map((p) => [p.id, p]));
  const result = new Map<string, OurCharge>();
  const payment = (p: (typeof strays)[number]) => ({ paymentId: p.id, workspaceId: p.workspaceId, livemode: p.livemode, paymentStatus: p.status, paymentChargeId: p.processorChargeId });
  for (const row of rows) {
    result.set(row.processorChargeId!, { ...payment(row.payment), chargeStatus: row.status, amount: row.amount, currency: row.currency, givenBack: back.has(row.processorChargeId!) });
  }
  for (const record of records) {
    const stray = record.paymentId ? byPayment.get(record.paymentId) : undefined;
    if (result.has(record.chargeId) || !stray) continue;
    result.set(record.chargeId, { ...payment(stray), chargeStatus: null, amount: stray.amount, currency: stray.currency, givenBack: back.has(record.chargeId) });
  }
  return result;
}

export interface RefundSide {
  /** Our part of each processor refund id. */
  parts: Map<string, OurRefundPart>;
  /** Our charges among the refunds' charges. */
  charges: Map<string, OurCharge>;
  /** Charges with a part still waiting for the processor's answer (no processor refund id yet). */
  waiting: Set<string>;
  /** Processor refunds whose metadata names a part of ours that has no processor refund id yet. */
  namedByMetadata: Set<string>;
}

export async function ourRefundSide(prisma: PrismaClient, processor: ProcessorName, records: readonly ProcessorRefundRecord[]): Promise<RefundSide> {
  const chargeIds = [...new Set(records.map((r) => r.chargeId))];
  const named = records.filter((r) => r.ourRefundId && r.paymentId && isUuid(r.ourRefundId) && isUuid(r.paymentId));
  const [rows, charges, waiting, unanswered] = await Promise.all([
    prisma.refundPart.findMany({
      where: { processor, processorRefundId: { in: records.map((r) => r.refundId) } },
      include: { payment: { select: { workspaceId: true } }, refund: { select: { currency: true } } },
    }),
    ourCharges(prisma, processor, records.map((r) => ({ chargeId: r.chargeId, paymentId: r.paymentId }))),
    prisma.refundPart.findMany({ where: { processor, processorChargeId: { in: chargeIds }, status: 'pending', processorRefundId: null }, select: { processorChargeId: true } }),
    named.length === 0
      ? []
      : prisma.refundPart.findMany({ where: { processor, refundId: { in: named.map((r) => r.ourRefundId!) }, processorRefundId: null }, select: { refundId: true, paymentId: true, processorChargeId: true } }),
  ]);
  const parts = new Map<string, OurRefundPart>(
    rows.map((row) => [row.processorRefundId!, { partId: row.id, refundId: row.refundId, paymentId: row.paymentId, workspaceId: row.payment.workspaceId, status: row.status, amount: row.amount, currency: row.refund.currency }]),
  );
  const namedByMetadata = new Set(
    named.filter((r) => unanswered.some((p) => p.refundId === r.ourRefundId && p.paymentId === r.paymentId && p.processorChargeId === r.chargeId)).map((r) => r.refundId),
  );
  return { parts, charges, waiting: new Set(waiting.map((p) => p.processorChargeId)), namedByMetadata };
}
