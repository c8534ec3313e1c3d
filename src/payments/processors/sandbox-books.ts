// The sandbox processor's books (./sandbox.ts): its constants, the locks that serialise changes of
// one charge, the replays of an idempotency key and the shapes its rows take in the processor's
// answers. Apart from the processor's class so that each reads on its own.
import { Prisma, type PrismaClient, type SandboxCharge, type SandboxPaymentMethod } from '../../generated/prisma/client.js';
import { ChargeNotFound, InvalidProcessorRequest, type ChargeRequest, type ChargeResult, type DisputeInfo, type DisputeStatus, type ProcessorEvent, type RefundRequest, type RefundResult } from './processor.js';
import { recordEvent, sandboxEvent, sandboxId, type EventFields } from './sandbox-events.js';
import { DECLINE_MESSAGES, TEST_CARDS, type CardBehaviour } from './test-cards.js';


/** The ids of cards saved by a setup (setupPaymentMethod). */
export const SETUP_PREFIX = 'pm_sbx_setup_';

/** Stripe's code for a 3-D Secure the cardholder did not complete. */
export const AUTHENTICATION_FAILED = 'payment_intent_authentication_failure';

/** A disputed charge cannot be refunded while the dispute is open, nor once it is lost (the money is gone). */
export const REFUND_BLOCKING_DISPUTES: ReadonlySet<string | null> = new Set<DisputeStatus>(['needs_response', 'under_review', 'lost']);

/** The charge outcome decided before anything is written. */
export interface Outcome {
  status: 'succeeded' | 'pending' | 'failed';
  failureCode?: string;
  behaviour: CardBehaviour | null;
  /** The card charged: a saved one, or the request's, new (written with the charge). */
  paymentMethod?: SandboxPaymentMethod;
  newPaymentMethod?: boolean;
}

const DISPUTE_REASON = 'fraudulent';

/**
 * A new charge as written (every column), with its card and its events: the status's, and for
 * Stripe's 4000000000000259, disputed at once (the whole amount), the dispute's as openDispute writes it.
 */
export function newCharge(request: ChargeRequest, outcome: Outcome, now: Date): { charge: ChargeWithMethod; events: ProcessorEvent[] } {
  const disputed = outcome.status === 'succeeded' && outcome.behaviour === 'dispute';
  const charge: ChargeWithMethod = {
    id: sandboxId('ch'),
    idempotencyKey: request.idempotencyKey,
    paymentId: request.paymentId,
    livemode: request.livemode,
    amount: request.amount,
    currency: request.currency.toLowerCase(),
    method: request.method,
    status: outcome.status,
    failureCode: outcome.failureCode ?? null,
    failureMessage: outcome.failureCode ? failureMessage(outcome.failureCode) : null,
    paymentMethodId: outcome.paymentMethod?.id ?? null,
    paymentMethod: outcome.paymentMethod ?? null,
    behaviour: outcome.behaviour,
    email: request.email,
    metadata: request.metadata ?? {},
    amountRefunded: 0,
    disputeId: disputed ? sandboxId('dp') : null,
    disputeStatus: disputed ? 'needs_response' : null,
    disputeReason: disputed ? DISPUTE_REASON : null,
    disputeCheckFails: false,
    createdAt: now,
    updatedAt: new Date(),
  };
  const fields: EventFields[] = [statusEvent(charge), ...(disputed ? [{ type: 'charge.disputed' as const, dispute: disputeInfo(charge)! }] : [])];
  return { charge, events: fields.map((f) => sandboxEvent(charge, f, now)) };
}

/**
 * Writes a new charge, its new card and its events (in their order) in one statement, unless its
 * idempotency key is taken (a replay, or a concurrent call with the key that won): then nothing is
 * written and the answer is false. One statement instead of seven (a read of the key, then a
 * transaction of four): a checkout's card payment costs one round trip here. The foreign key to
 * the card is checked at the end of the statement, when the card's row is there.
 */
export async function writeCharge(prisma: PrismaClient, charge: ChargeWithMethod, events: ProcessorEvent[], newPaymentMethod: boolean): Promise<boolean> {
  const methods = JSON.stringify(newPaymentMethod && charge.paymentMethod ? [charge.paymentMethod] : []);
  const inserted = await prisma.$queryRaw<{ id: string }[]>`
    WITH charge AS (
      INSERT INTO "SandboxCharge" (id, "idempotencyKey", "paymentId", livemode, amount, currency, method, status, "failureCode", "failureMessage", "paymentMethodId", behaviour, email, metadata,
        "amountRefunded", "disputeId", "disputeStatus", "disputeReason", "disputeCheckFails", "createdAt", "updatedAt")
      VALUES (${charge.id}, ${charge.idempotencyKey}, ${charge.paymentId}, ${charge.livemode}, ${charge.amount}, ${charge.currency}, ${charge.method}, ${charge.status}, ${charge.failureCode},
        ${charge.failureMessage}, ${charge.paymentMethodId}, ${charge.behaviour}, ${charge.email}, ${JSON.stringify(charge.metadata)}::jsonb, ${charge.amountRefunded}, ${charge.disputeId},
        ${charge.disputeStatus}, ${charge.disputeReason}, ${charge.disputeCheckFails}, ${charge.createdAt}, ${charge.updatedAt})
      ON CONFLICT ("idempotencyKey") DO NOTHING
      RETURNING id
    ), method AS (
      INSERT INTO "SandboxPaymentMethod" (id, brand, last4, "expMonth", "expYear", behaviour, reusable, "createdAt")
      SELECT m.* FROM charge, jsonb_to_recordset(${methods}::jsonb) AS m(id text, brand text, last4 text, "expMonth" int, "expYear" int, behaviour text, reusable boolean, "createdAt" timestamptz)
    ), events AS (
      INSERT INTO "SandboxEvent" (id, "chargeId", type, payload, "createdAt")
      SELECT e.payload->>'id', charge.id, e.payload->>'type', e.payload, ${charge.createdAt}::timestamptz
      FROM charge, jsonb_array_elements(${JSON.stringify(events)}::jsonb) WITH ORDINALITY AS e(payload, n) ORDER BY e.n
    )
    SELECT id FROM charge`;
  return inserted.length > 0;
}

/** Stripe's 4000000000000259 and the dispute test helper: the cardholder disputes the whole remaining amount. */
export async function openDispute(tx: Prisma.TransactionClient, charge: SandboxCharge, now: Date, reason = DISPUTE_REASON) {
  const disputed = await tx.sandboxCharge.update({
    where: { id: charge.id },
    data: { disputeId: sandboxId('dp'), disputeStatus: 'needs_response', disputeReason: reason },
    include: { paymentMethod: true },
  });
  const event = await recordEvent(tx, disputed, { type: 'charge.disputed', dispute: disputeInfo(disputed)! }, now);
  return { charge: disputed, event };
}

/** The charge, locked and read in one statement: serialises every change of one charge (refunds cannot overshoot, settle and cancel cannot both win). */
export async function lockCharge(tx: Prisma.TransactionClient, chargeId: string): Promise<SandboxCharge> {
  const [charge] = await tx.$queryRaw<SandboxCharge[]>`SELECT * FROM "SandboxCharge" WHERE id = ${chargeId} FOR UPDATE`;
  if (!charge) throw new ChargeNotFound(chargeId);
  return charge;
}

export type EarlierRefund = Pick<Prisma.SandboxRefundGetPayload<object>, 'id' | 'chargeId' | 'amount' | 'status'>;

/**
 * The charge locked and read (its latest version), with the refund made earlier under the
 * idempotency key if any (on whatever charge), in one statement. That refund is as of the
 * statement's snapshot, taken before any wait for the lock: see the refundable check.
 */
export async function lockChargeForRefund(tx: Prisma.TransactionClient, chargeId: string, idempotencyKey: string): Promise<{ charge: SandboxCharge; earlier: EarlierRefund | null }> {
  const [row] = await tx.$queryRaw<(SandboxCharge & { earlier: EarlierRefund | null })[]>`
    SELECT c.*, (SELECT json_build_object('id', r.id, 'chargeId', r."chargeId", 'amount', r.amount, 'status', r.status) FROM "SandboxRefund" r WHERE r."idempotencyKey" = ${idempotencyKey}) AS earlier
    FROM "SandboxCharge" c WHERE c.id = ${chargeId} FOR UPDATE OF c`;
  if (!row) throw new ChargeNotFound(chargeId);
  const { earlier, ...charge } = row;
  return { charge, earlier };
}

/** Same key, same request: the stored charge as it is now. Another request under the key is refused, as Stripe does. */
export function replay(charge: ChargeWithMethod, request: ChargeRequest): ChargeResult {
  if (charge.paymentId !== request.paymentId || charge.amount !== request.amount || charge.currency !== request.currency.toLowerCase() || charge.method !== request.method) {
    throw new InvalidProcessorRequest('idempotency_key_reused', 'The idempotency key was used for another charge');
  }
  return chargeResult(charge);
}

export function replayRefund(refund: { id: string; chargeId: string; amount: number; status: string }, request: RefundRequest): RefundResult {
  if (refund.chargeId !== request.chargeId || (request.amount !== undefined && request.amount !== refund.amount)) {
    throw new InvalidProcessorRequest('idempotency_key_reused', 'The idempotency key was used for another refund');
  }
  return { refundId: refund.id, status: refund.status as RefundResult['status'], amount: refund.amount };
}

export type ChargeWithMethod = Prisma.SandboxChargeGetPayload<{ include: { paymentMethod: true } }>;

export function chargeResult(charge: ChargeWithMethod): ChargeResult {
  const method = charge.paymentMethod;
  return {
    chargeId: charge.id,
    status: charge.status === 'cancelled' ? 'failed' : (charge.status as ChargeResult['status']),
    ...(charge.status === 'cancelled' ? { failureCode: 'cancelled', failureMessage: 'The payment was cancelled.' } : {}),
    ...(charge.failureCode ? { failureCode: charge.failureCode, failureMessage: charge.failureMessage ?? failureMessage(charge.failureCode) } : {}),
    ...(method ? { paymentMethod: { ref: method.id, brand: method.brand, last4: method.last4 } } : {}),
  };
}

export function statusEvent(charge: SandboxCharge): EventFields {
  if (charge.status === 'succeeded') return { type: 'charge.succeeded', amount: charge.amount, currency: charge.currency };
  if (charge.status === 'failed') return { type: 'charge.failed', failureCode: charge.failureCode!, failureMessage: charge.failureMessage! };
  return { type: 'charge.pending' };
}

export function disputeInfo(charge: SandboxCharge): DisputeInfo | null {
  if (!charge.disputeId) return null;
  return { disputeId: charge.disputeId, status: charge.disputeStatus as DisputeStatus, reason: charge.disputeReason!, amount: charge.amount - charge.amountRefunded };
}

/** A saved declining test card's decline code (the saved method keeps brand and last 4 digits). */
export function declineCodeOf(brand: string, last4: string): string {
  const card = Object.entries(TEST_CARDS).find(([number, c]) => c.brand === brand && number.endsWith(last4) && c.declineCode);
  return card?.[1].declineCode ?? 'generic_decline';
}

export function failureMessage(code: string): string {
  return DECLINE_MESSAGES[code] ?? 'The payment failed.';
}
