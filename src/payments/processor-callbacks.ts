// Verified processor events (ProcessorEvent, from parseWebhook) to the payments they concern.
// A charge's final outcome goes to the payment's workflow as the processorEvent signal, so that
// the workflow stays the one place that decides the payment; when the workflow is gone (it ended,
// or the checkout died before starting it) the outcome is applied directly, idempotently.
import { WorkflowNotFoundError } from '@temporalio/client';
import { Counter } from 'prom-client';

import { isUuid } from '../core/uuid.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import { paymentOutcomeState, type ChargeOutcome } from './charge-outcomes.js';
import { applyOutcomeWithoutWorkflow, ENDED_OTHERWISE } from './ended-payments.js';
import { paymentWorkflowId } from './payment-flow.js';
import { routeChargeOutcome } from './payment-hooks.js';
import type { ProcessorEvent } from './processors/processor.js';
import { markPaymentDisputed } from './transitions.js';

// The signals of workflows/payment.ts, by name: the compiled service cannot load workflow modules
// (only the worker's bundle holds them).
const PROCESSOR_EVENT = 'processorEvent';
const CANCEL_REQUESTED = 'cancelRequested';

const log = logger.child({ component: 'processor-events' });

function outcomeOf(event: ProcessorEvent): ChargeOutcome | null {
  const { chargeId } = event;
  if (event.type === 'charge.succeeded' || event.type === 'charge.cancelled') return { type: event.type, chargeId };
  if (event.type === 'charge.failed') return { type: event.type, chargeId, failureCode: event.failureCode, failureMessage: event.failureMessage };
  // charge.pending says nothing new; refunds and disputes belong to their own part of the issue.
  return null;
}

/** A reactor to the processor's refund events (the refunds domain registers one). */
export type RefundEventHandler = (prisma: PrismaClient, event: Extract<ProcessorEvent, { type: 'charge.refunded' | 'refund.failed' }>) => Promise<void>;
const refundEventHandlers: RefundEventHandler[] = [];

/** Refund events (charge.refunded, refund.failed) go to the handlers registered here. */
export function onProcessorRefundEvents(handler: RefundEventHandler): void {
  refundEventHandlers.push(handler);
}

/** Verified events about no payment of ours, by processor and type (see ourPayment); served on /metrics (the payments module's metrics). */
export const foreignProcessorEvents = new Counter({
  name: 'processor_events_foreign_total',
  help: 'Verified processor events about a charge or payment that is not this service\'s (another system on the same processor account): answered 200 and ignored',
  labelNames: ['processor', 'type'],
  registers: [],
});

/**
 * Our payment an event is about, as it stands (./charge-outcomes.ts): the id the processor kept in
 * the object's metadata when it is one of our payments, else the payment whose charge has the
 * event's charge id (Stripe's disputes and refunds carry no metadata we set); null when neither is
 * ours. Another system on the same processor account (a second deployment, another product) sends
 * events with its own ids: they are ignored, not failed, or the processor would retry them until
 * it disables the endpoint.
 */
const ourPayment = (prisma: PrismaClient, event: ProcessorEvent) =>
  paymentOutcomeState(prisma, event.paymentId && isUuid(event.paymentId) ? event.paymentId : null, { chargeId: event.chargeId, processor: event.processor });

export async function handleProcessorEvents(prisma: PrismaClient, temporal: TemporalConnection, received: readonly ProcessorEvent[]): Promise<void> {
  for (const unmapped of received) {
    const payment = await ourPayment(prisma, unmapped);
    if (!payment) {
      foreignProcessorEvents.inc({ processor: unmapped.processor, type: unmapped.type });
      log.warn({ eventId: unmapped.id, processor: unmapped.processor, type: unmapped.type, chargeId: unmapped.chargeId, metadataPaymentId: unmapped.paymentId }, 'processor event about no payment of ours: ignored');
      continue;
    }
    const paymentId = payment.id;
    const event = { ...unmapped, paymentId };
    if (event.type === 'charge.refunded' || event.type === 'refund.failed') {
      for (const handler of refundEventHandlers) await handler(prisma, event);
      continue;
    }
    if (event.type === 'charge.disputed') {
      // A dispute does not change the payment's status: the payment (and its order) is marked disputed, idempotently.
      await prisma.$transaction((tx) => markPaymentDisputed(tx, paymentId));
      continue;
    }
    const outcome = outcomeOf(event);
    if (!outcome) continue;
    if (await routeChargeOutcome({ prisma, temporal }, payment, outcome)) continue;
    // Only a PENDING payment's workflow decides it. One that ended (EXPIRED) may still be open for
    // a moment, and a signal then would be taken by a workflow that no longer reads it: late money
    // would stay with the merchant. An ended payment's event is applied here, as for a closed workflow.
    if (payment.status === 'PENDING') {
      try {
        await temporal.client.workflow.getHandle(paymentWorkflowId(paymentId)).signal<[ChargeOutcome]>(PROCESSOR_EVENT, outcome);
        // The payment may have ended otherwise (expired) between the read and the signal, its
        // workflow closing without reading it: then it is applied here too (a success's refund is
        // made once). Otherwise the workflow reads it (also when its expiry ends its wait) or did.
        const after = await prisma.payment.findUnique({ where: { id: paymentId }, select: { status: true } });
        if (!after || !ENDED_OTHERWISE.includes(after.status)) continue;
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }
    // The payment as read above: an outcome applied already (as the checkout mostly has) costs no further read.
    await applyOutcomeWithoutWorkflow({ prisma, temporal }, paymentId, outcome, { amount: event.type === 'charge.succeeded' ? event.amount : undefined, eventId: event.id, seen: payment });
  }
}

/**
 * Tells the payment's workflow that a cancel was requested (requestPaymentCancel recorded it). A
 * payment without a running workflow keeps the recorded request: a workflow that starts later
 * reads it (recordChargeResult).
 */
export async function signalCancelRequested(temporal: TemporalConnection, paymentId: string): Promise<void> {
  try {
    await temporal.client.workflow.getHandle(paymentWorkflowId(paymentId)).signal(CANCEL_REQUESTED);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** After an order's cancel: the cancel requests it recorded on its pending payments, to their workflows. */
export async function signalOrderCancelRequests(prisma: PrismaClient, temporal: TemporalConnection, orderId: string): Promise<void> {
  const pending = await prisma.payment.findMany({ where: { orderId, status: 'PENDING', cancelRequestedAt: { not: null } }, select: { id: true } });
  for (const { id } of pending) await signalCancelRequested(temporal, id);
}
