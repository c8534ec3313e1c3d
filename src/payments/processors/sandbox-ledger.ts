import type { PrismaClient } from '../../generated/prisma/client.js';
import type { ProcessorChargeRecord, ProcessorRefundRecord, RecordWindow } from './processor.js';

// The sandbox's books read as a processor's list APIs give them (Stripe's GET /v1/payment_intents
// and /v1/refunds): every charge or refund created in a window, oldest first, a page at a time by
// a keyset on (createdAt, id), so that a long window never loads whole.

const PAGE = 500;

/** Keyset pages of `read` over (createdAt, id): each page starts after the last row of the one before. */
async function* pages<Row extends { id: string; createdAt: Date }>(read: (after: { createdAt: Date; id: string } | null) => Promise<Row[]>): AsyncGenerator<Row> {
  for (let after: Row | null = null; ; ) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!;
  }
}

const keyset = (window: RecordWindow, after: { createdAt: Date; id: string } | null) => ({
  createdAt: { gte: window.since, lt: window.until },
  ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}),
});

export async function* sandboxCharges(prisma: PrismaClient, window: RecordWindow): AsyncGenerator<ProcessorChargeRecord> {
  const rows = pages((after) => prisma.sandboxCharge.findMany({ where: keyset(window, after), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: PAGE }));
  for await (const charge of rows) {
    yield { chargeId: charge.id, paymentId: charge.paymentId, amount: charge.amount, currency: charge.currency, status: charge.status as ProcessorChargeRecord['status'], failureCode: charge.failureCode, failureMessage: charge.failureMessage, createdAt: charge.createdAt };
  }
}

export async function* sandboxRefunds(prisma: PrismaClient, window: RecordWindow): AsyncGenerator<ProcessorRefundRecord> {
  const rows = pages((after) =>
    prisma.sandboxRefund.findMany({ where: keyset(window, after), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: PAGE, include: { charge: { select: { currency: true, paymentId: true } } } }),
  );
  for await (const refund of rows) {
    yield {
      refundId: refund.id,
      chargeId: refund.chargeId,
      amount: refund.amount,
      currency: refund.charge.currency,
      status: refund.status as ProcessorRefundRecord['status'],
      failureCode: refund.failureCode,
      ourRefundId: null,
      paymentId: refund.charge.paymentId,
      createdAt: refund.createdAt,
    };
  }
}
