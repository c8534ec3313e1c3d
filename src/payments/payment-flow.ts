// Starting a payment at checkout. The payment's workflow (workflows/payment.ts) is started first,
// with the payment id only; then the checkout makes the first charge itself and signals the
// workflow that it is recorded. Why not charge in an activity: an activity's input is written to
// the workflow's history (stored, replayed, shown in the UI and the CLI), and card details must
// never be stored or logged. Here the card lives only in this call's memory; the workflow reads
// the charge from our records. Why start the workflow first: a payment whose charge never happens
// (the processor unreachable, this process gone) still has its timeout, so it expires and gives
// its reservations back. The charge's idempotency key comes from the payment, so a checkout
// retried after ProcessorUnavailable gets the same charge back.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';

import { ValidationFailed } from '../core/errors.js';
import type { Payment, PrismaClient } from '../generated/prisma/client.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { paymentWorkflow } from '../../workflows/payment.js';
import { processorFor } from './processors/index.js';
import { CardDeclined, chargeIdempotencyKey, type CardDetails, type NextAction, type PaymentProcessor } from './processors/processor.js';
import { markPaymentFailed, recordCharge, type ChargeRecord } from './transitions.js';
import type { RecordedCharge } from './charge-outcomes.js';

export const paymentWorkflowId = (paymentId: string) => `payment-${paymentId}`;

// The signal of workflows/payment.ts by name: the compiled service cannot load workflow modules.
const CHARGE_RECORDED = 'chargeRecorded';

const DEFAULT_EXPIRY_SECONDS = 24 * 60 * 60;

/** PAYMENT_EXPIRY_SECONDS: how long a pending charge (3-D Secure, PayPal, a transfer) may wait; 24 hours by default. */
export function paymentExpiryMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PAYMENT_EXPIRY_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_EXPIRY_SECONDS * 1000;
  if (!/^[1-9][0-9]{0,7}$/.test(raw)) throw new Error(`PAYMENT_EXPIRY_SECONDS must be a whole number of seconds, not ${JSON.stringify(raw)}`);
  return Number(raw) * 1000;
}

/** Stripe keeps an idempotency key about 24 hours; a call retried after that could charge (or refund) twice. */
const PROCESSOR_KEY_RETENTION_SECONDS = 24 * 60 * 60;
const DEFAULT_KEY_WINDOW_SECONDS = 20 * 60 * 60;

/**
 * PROCESSOR_KEY_WINDOW_SECONDS: how long a money movement may be retried under one processor
 * idempotency key (its activity's schedule-to-close); below the processor's retention of keys, 20
 * hours by default. Past it the attempt requires attention instead of another call.
 */
export function processorKeyWindowMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PROCESSOR_KEY_WINDOW_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_KEY_WINDOW_SECONDS * 1000;
  if (!/^[1-9][0-9]{0,5}$/.test(raw) || Number(raw) >= PROCESSOR_KEY_RETENTION_SECONDS) {
    throw new Error(`PROCESSOR_KEY_WINDOW_SECONDS must be a whole number of seconds below ${PROCESSOR_KEY_RETENTION_SECONDS} (the processor keeps its idempotency keys 24 hours), not ${JSON.stringify(raw)}`);
  }
  return Number(raw) * 1000;
}

export interface StartPayment {
  paymentId: string;
  /** For a card payment; never stored, logged or passed to Temporal. */
  card?: CardDetails;
  /** For a card payment, in place of card: a payment method the buyer's browser tokenized. */
  paymentMethod?: string;
  /** In place of both: the buyer's saved method, charged off-session (a subscription created by the API). */
  savedPaymentMethod?: string;
  expireAfterMs?: number;
  /** The payment as the caller has just read it, with its buyer's email (not read again). */
  payment?: Payment & { user: { email: string } | null };
}

/** Starts the payment's workflow (once) and charges the payment's first attempt; returns its workflow's id and the charge as recorded. */
export async function startPayment(prisma: PrismaClient, temporal: TemporalConnection, processor: PaymentProcessor, request: StartPayment): Promise<{ workflowId: string; charge: RecordedCharge }> {
  const { paymentId, card, paymentMethod, savedPaymentMethod } = request;
  const expireAfterMs = request.expireAfterMs ?? paymentExpiryMsFromEnv();
  const found = request.payment ?? (await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, include: { user: { select: { email: true } } } }));
  if (!found.processor || !found.methodType) throw new ValidationFailed('This payment is not processed by a card processor');
  const attempt = 0;
  const workflowId = paymentWorkflowId(paymentId);
  try {
    await temporal.client.workflow.start<typeof paymentWorkflow>('paymentWorkflow', { taskQueue: temporal.taskQueue, workflowId, args: [{ paymentId, attempt, expireAfterMs }] });
  } catch (error) {
    // A repeated checkout call: the payment already has its workflow.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  const charge = { processor: found.processor, amount: found.amount, currency: found.currency };
  let recorded: ChargeRecord & RecordedCharge;
  // A subscription's first card payment keeps the card, so that its renewals can be charged off-session.
  const saveForRenewals = found.subscriptionId !== null && !savedPaymentMethod && found.methodType === 'card' && processor.capabilities.savedPaymentMethods;
  try {
    const result = await processor.createCharge({
      ...(saveForRenewals ? { savePaymentMethod: true } : {}),
      paymentId,
      idempotencyKey: chargeIdempotencyKey(paymentId, attempt),
      amount: found.amount,
      currency: found.currency,
      method: found.methodType,
      card,
      paymentMethod,
      savedPaymentMethod,
      email: found.user?.email ?? '',
      livemode: found.livemode,
      metadata: { orderId: found.orderId },
    });
    const { failureCode = null, failureMessage = null } = result;
    const card4 = { cardBrand: result.paymentMethod?.brand ?? null, cardLast4: result.paymentMethod?.last4 ?? null };
    recorded = { ...charge, ...card4, processorChargeId: result.chargeId, status: result.status, failureCode, failureMessage };
    const savedMethod = saveForRenewals && found.subscriptionId && result.status !== 'failed' ? (result.paymentMethod ?? null) : null;
    // The charge alone is one statement: no transaction around it (two round trips fewer per checkout).
    if (!savedMethod && result.status !== 'pending') await recordCharge(prisma, paymentId, attempt, recorded);
    else {
      await prisma.$transaction(async (tx) => {
        await recordCharge(tx, paymentId, attempt, recorded);
        if (savedMethod) await tx.subscription.update({ where: { id: found.subscriptionId! }, data: { paymentMethodRef: savedMethod.ref } });
        // Shown on the payment; the workflow's timer, started just before, is what expires it.
        if (result.status === 'pending') await tx.payment.update({ where: { id: paymentId }, data: { expiresAt: new Date(Date.now() + expireAfterMs) } });
      });
    }
  } catch (error) {
    // Refused before any charge existed: nothing at the processor to wait for.
    if (!(error instanceof CardDeclined)) throw error;
    recorded = { ...charge, processorChargeId: null, status: 'failed', failureCode: error.code, failureMessage: error.message };
    await prisma.$transaction(async (tx) => {
      await recordCharge(tx, paymentId, attempt, recorded);
      await markPaymentFailed(tx, paymentId, { failureCode: error.code, failureMessage: error.message });
    });
  }
  try {
    await temporal.client.workflow.getHandle(workflowId).signal(CHARGE_RECORDED);
  } catch (error) {
    // It ended already (a repeated call after the payment was decided): nothing to tell it.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return { workflowId, charge: recorded };
}

/**
 * The buyer's step a PENDING card payment waits for (3-D Secure), asked of the processor that made
 * its charge each time (its client secret is never stored); null when there is none.
 */
export async function paymentNextAction(prisma: PrismaClient, configured: PaymentProcessor, paymentId: string): Promise<NextAction | null> {
  const payment = await prisma.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { status: true, methodType: true, processor: true, charges: { orderBy: { attempt: 'desc' }, take: 1 } } });
  const chargeId = payment.charges[0]?.processorChargeId;
  if (payment.status !== 'PENDING' || payment.methodType !== 'card' || !payment.processor || !chargeId) return null;
  return (await processorFor(payment.processor, configured, { prisma })?.nextAction(chargeId)) ?? null;
}
