import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

import { config } from '../config.js';
import type { BackgroundTask } from '../domain-module.js';
import type { Event, PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { webhookDelivery, WebhookDeliveryInput } from '../../workflows/webhook-delivery.js';
import { webhooksByEvent } from './subscribers.js';

// Hands the event outbox to Temporal. Events are committed with the state change that caused
// them (dispatchedAt null); a loop in every worker process takes them in batches, starts one
// delivery workflow per subscribed webhook and marks them dispatched. The loop runs at start too,
// so events left behind by a crash between commit and hand-off go out with the next start.

const BATCH_SIZE = 50;

/** One delivery per (event, webhook): a re-dispatch finds the workflow by this id. */
export const deliveryWorkflowId = (eventId: string, webhookId: string) => `webhook-delivery-${eventId}-${webhookId}`;

/**
 * Starts the delivery of an event to a webhook unless it was ever started: REJECT_DUPLICATE keeps
 * even a completed delivery from running again, so a re-dispatch never delivers twice.
 */
export async function startDelivery(temporal: TemporalConnection, eventId: string, webhookId: string): Promise<void> {
  const input: WebhookDeliveryInput = { eventId, webhookId, retryIntervalMs: config.webhooks.retryIntervalMs, timeoutMs: config.webhooks.timeoutMs };
  try {
    await temporal.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      taskQueue: temporal.taskQueue,
      workflowId: deliveryWorkflowId(eventId, webhookId),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

type PendingEvent = Pick<Event, 'id' | 'workspaceId' | 'livemode' | 'type'>;

/**
 * Dispatches one batch of pending events and returns its size. The rows stay locked (SKIP LOCKED
 * for other dispatchers) until they are marked; if a start fails the batch rolls back and is
 * taken again, and the deliveries already started are not duplicated.
 */
export async function dispatchPendingEvents(prisma: PrismaClient, temporal: TemporalConnection, batchSize = BATCH_SIZE): Promise<number> {
  // A cheap look first: most polls find nothing and need no transaction.
  if (!(await prisma.event.findFirst({ where: { dispatchedAt: null }, select: { id: true } }))) return 0;
  return prisma.$transaction(async (tx) => {
    const events = await tx.$queryRaw<PendingEvent[]>`
      SELECT id, "workspaceId", livemode, type FROM "Event"
      WHERE "dispatchedAt" IS NULL ORDER BY "createdAt" LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
    if (events.length === 0) return 0;
    const subscribed = await webhooksByEvent(tx, events);
    const deliveries = events.flatMap((event, n) => subscribed[n]!.map((webhook): [string, string] => [event.id, webhook.id]));
    await Promise.all(deliveries.map(([eventId, webhookId]) => startDelivery(temporal, eventId, webhookId)));
    await tx.event.updateMany({ where: { id: { in: events.map((event) => event.id) } }, data: { dispatchedAt: new Date() } });
    return events.length;
  });
}

/** Polls for pending events every intervalMs (at once on start), batch after batch while some remain. */
export function startEventDispatcher(prisma: PrismaClient, temporal: TemporalConnection, intervalMs = config.webhooks.dispatchIntervalMs): BackgroundTask {
  const log = logger.child({ component: 'event-dispatcher' });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  const poll = async () => {
    try {
      let handled: number;
      do handled = await dispatchPendingEvents(prisma, temporal);
      while (!stopped && handled === BATCH_SIZE);
      if (failing) log.info('event dispatch recovered');
      failing = false;
    } catch (error) {
      // Logged once per outage; the events stay pending and the next poll tries again.
      if (!failing) log.error({ err: error }, 'event dispatch failed; retrying every poll');
      failing = true;
    }
    if (!stopped) timer = setTimeout(() => void (running = poll()), intervalMs);
  };
  let running = poll();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
