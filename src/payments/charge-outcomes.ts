// What the processor's last word on a charge does to our records: the charge row takes the
// status and the payment its transition, in one transaction. Shared by the payment workflow's
// activity and by the webhook path when the workflow is gone, so both apply it the same way; the
// transitions are idempotent, so a redelivered event changes nothing.
import { Prisma, type Charge, type PrismaClient } from '../generated/prisma/client.js';
import type { PaymentStatus } from '../generated/prisma/enums.js';
import type { ProcessorName } from './processors/processor.js';
import { markPaymentCancelled, markPaymentFailed, markPaymentPaid, recordCharge, transitionDone } from './transitions.js';

/** A charge's final outcome as the processor reports it (a ProcessorEvent without its envelope). */
export type ChargeOutcome =
  | { type: 'charge.succeeded'; chargeId: string }
  | { type: 'charge.failed'; chargeId: string; failureCode: string; failureMessage: string }
  | { type: 'charge.cancelled'; chargeId: string };

const CHARGE_STATUS = { 'charge.succeeded': 'succeeded', 'charge.failed': 'failed', 'charge.cancelled': 'cancelled' } as const;
const PAYMENT_STATUS = { 'charge.succeeded': 'PAID', 'charge.failed': 'FAILED', 'charge.cancelled': 'CANCELLED' } as const;

/** The payment as an outcome finds it: its status, the status of the outcome's charge on it, and what its hooks are told (./payment-hooks.ts). */
export interface PaymentOutcomeState {
  id: string;
  status: PaymentStatus;
  sequence: number;
  subscriptionId: string | null;
  subscriptionPeriod: number | null;
  chargeStatus: string | null;
}

/** The payment after an outcome: its status and what its paid hooks are told. */
export type SettledPayment = Pick<PaymentOutcomeState, 'id' | 'status' | 'sequence' | 'subscriptionId'>;

/**
 * The payment and its charge of this processor id, in one read: the payment `paymentId` names, or
 * with `processor` (a processor's event, whose metadata may name another system's payment or
 * none), else the payment that charge is recorded on; null when there is none.
 */
export async function paymentOutcomeState(prisma: PrismaClient, paymentId: string | null, charge: { chargeId: string; processor?: ProcessorName }): Promise<PaymentOutcomeState | null> {
  const which = charge.processor
    ? Prisma.sql`p.id = ANY(ARRAY[${paymentId}::uuid, (SELECT "paymentId" FROM "Charge" WHERE processor = ${charge.processor}::"PaymentProcessor" AND "processorChargeId" = ${charge.chargeId})])
        ORDER BY p.id = ${paymentId}::uuid DESC NULLS LAST LIMIT 1`
    : Prisma.sql`p.id = ${paymentId}::uuid`;
  const [state] = await prisma.$queryRaw<PaymentOutcomeState[]>`
    SELECT p.id::text AS id, p.status::text AS status, p.sequence, p."subscriptionId"::text AS "subscriptionId", p."subscriptionPeriod", c.status::text AS "chargeStatus"
    FROM "Payment" p LEFT JOIN "Charge" c ON c."paymentId" = p.id AND c."processorChargeId" = ${charge.chargeId}
    WHERE ${which}`;
  return state ?? null;
}

/**
 * Applies the outcome. `recorded`: the charge's row already says it (the checkout's recorded
 * charge), so only the payment moves; `seen`: the payment as the caller read it just before (the
 * processor event's route), so that an outcome applied already costs no read of its own.
 */
export async function applyChargeOutcome(
  prisma: PrismaClient,
  paymentId: string,
  outcome: ChargeOutcome,
  { recorded = false, seen }: { recorded?: boolean; seen?: PaymentOutcomeState } = {},
): Promise<SettledPayment> {
  const status = CHARGE_STATUS[outcome.type];
  if (!recorded) {
    // Applied already, as the processor's event mostly finds it (the checkout applies an immediate
    // answer first; an event may also come again): one read at most, no transaction of five statements.
    // A transition never goes back to PENDING, so a state read earlier that shows it applied still does.
    const state = seen ?? (await paymentOutcomeState(prisma, paymentId, outcome));
    if (state && state.chargeStatus === status && transitionDone(state.status, PAYMENT_STATUS[outcome.type])) return state;
  }
  const { payment } = await prisma.$transaction(async (tx) => {
    const failure = outcome.type === 'charge.failed' ? { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage } : {};
    if (!recorded) {
      const named = await tx.charge.updateMany({ where: { paymentId, processorChargeId: outcome.chargeId }, data: { status, ...failure } });
      if (named.count === 0) await recordUnansweredCharge(tx, paymentId, { processorChargeId: outcome.chargeId, status, ...failure });
    }
    const processorChargeId = outcome.chargeId;
    if (outcome.type === 'charge.succeeded') return markPaymentPaid(tx, paymentId, { processorChargeId });
    if (outcome.type === 'charge.failed') return markPaymentFailed(tx, paymentId, { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId });
    return markPaymentCancelled(tx, paymentId);
  });
  return { id: payment.id, status: payment.status, sequence: payment.sequence, subscriptionId: payment.subscriptionId };
}

/**
 * A charge whose answer never reached us (the process died between the processor's answer and
 * recording it), known first from its event: recorded as the payment's next attempt, the one that
 * was waiting for that answer (attempts are recorded in order, each after its answer). A retried
 * checkout that gets the answer again writes the same row.
 */
async function recordUnansweredCharge(tx: Prisma.TransactionClient, paymentId: string, charge: { processorChargeId: string; status: 'succeeded' | 'failed' | 'cancelled'; failureCode?: string; failureMessage?: string }) {
  const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { processor: true, amount: true, currency: true, _count: { select: { charges: true } } } });
  if (!payment.processor) return;
  await recordCharge(tx, paymentId, payment._count.charges, { ...charge, processor: payment.processor, amount: payment.amount, currency: payment.currency });
}

/** What applying a recorded charge reads of it (startPayment returns it as it recorded it). */
export type RecordedCharge = Pick<Charge, 'status' | 'processorChargeId' | 'failureCode' | 'failureMessage'>;

/**
 * The payment as the checkout's recorded charge leaves it: a final charge's outcome applied (its
 * status returned), PENDING while the charge is. Shared by the checkout's answer and the workflow.
 */
export async function applyRecordedCharge(prisma: PrismaClient, paymentId: string, charge: RecordedCharge): Promise<PaymentStatus> {
  const outcome = recordedOutcome(charge);
  return outcome ? (await applyChargeOutcome(prisma, paymentId, outcome, { recorded: true })).status : 'PENDING';
}

/** The outcome a recorded charge says, null while it is pending. */
function recordedOutcome(charge: RecordedCharge): ChargeOutcome | null {
  const chargeId = charge.processorChargeId ?? '';
  if (charge.status === 'succeeded') return { type: 'charge.succeeded', chargeId };
  if (charge.status === 'cancelled') return { type: 'charge.cancelled', chargeId };
  if (charge.status === 'failed') return { type: 'charge.failed', chargeId, failureCode: charge.failureCode ?? 'failed', failureMessage: charge.failureMessage ?? 'The payment failed' };
  return null;
}
