import { ApplicationFailure } from '@temporalio/activity';

import type { Event, Webhook } from '../generated/prisma/client.js';
import type { ActivityDependencies } from '../domain-module.js';
import { sendEmail } from '../email/mailer.js';
import { eventBody } from '../events/event-service.js';
import { logger } from '../logger.js';
import { recordedResult, recordTry, type AttemptKey, type DeliveryAttemptResult } from './delivery-attempts.js';
import { deliver, type DeliveryOutcome } from './http-delivery.js';
import { deliveryHeaders, secretKey } from './signature.js';
import { webhookAllowHostsFromEnv } from './ssrf.js';

// The activity behind every delivery try (workflows/webhook-delivery.ts): send the event to the
// webhook unless the try is already recorded or the webhook no longer wants it, then record the
// try with its bookkeeping (delivery-attempts.ts) and send the emails that recorded.

export interface DeliveryAttemptInput extends AttemptKey {
  /** A failure of this try ends the event's delivery (all retries used). */
  lastTry: boolean;
  timeoutMs: number;
}

type DeliveryEvent = Pick<Event, 'id' | 'workspaceId' | 'livemode' | 'type' | 'createdAt' | 'payload' | 'test'>;

/** The HTTP body of a delivery: the event, plus `test: true` on synthetic ones (sendTestEvent). */
function deliveryBody(event: DeliveryEvent) {
  return event.test ? { ...eventBody(event), test: true } : eventBody(event);
}

/** Why a webhook gets nothing for this event, or null when it should. */
function skipReason(webhook: Webhook, event: DeliveryEvent): string | null {
  if (webhook.workspaceId !== event.workspaceId || webhook.livemode !== event.livemode) return 'the webhook belongs to another workspace or mode';
  if (webhook.deletedAt !== null) return 'the webhook is archived';
  if (webhook.status !== 'active') return 'the webhook is inactive';
  if (!webhook.events.includes(event.type)) return `the webhook is no longer subscribed to ${event.type}`;
  return null;
}

const skipped = (detail: string): DeliveryAttemptResult => ({ outcome: 'skipped', statusCode: null, detail });

function summary(outcome: DeliveryOutcome): string {
  if (outcome.kind === 'delivered') return `HTTP ${outcome.statusCode}`;
  if (outcome.kind === 'failed') return outcome.error;
  const after = outcome.statusCode === null ? '' : ` after HTTP ${outcome.statusCode}`;
  return `blocked (${outcome.reason})${after}: ${outcome.message}`;
}

export function createWebhookActivities({ prisma }: ActivityDependencies) {
  const allowHosts = webhookAllowHostsFromEnv();
  const log = logger.child({ component: 'webhook-delivery' });

  return {
    async attemptDelivery(input: DeliveryAttemptInput): Promise<DeliveryAttemptResult> {
      const { eventId, webhookId, sequence, lastTry, timeoutMs } = input;
      const attemptKey = { webhookId_eventId_sequence: { webhookId, eventId, sequence } };
      const recorded = await prisma.webhookAttempt.findUnique({ where: attemptKey, select: { statusCode: true } });
      if (recorded) return recordedResult(recorded);

      const [event, webhook] = await Promise.all([prisma.event.findUnique({ where: { id: eventId } }), prisma.webhook.findUnique({ where: { id: webhookId } })]);
      if (!event || !webhook) return skipped('the event or the webhook no longer exists');
      const skip = skipReason(webhook, event);
      if (skip !== null) return skipped(skip);
      const key = secretKey(webhook.secret);
      if (key === null) throw ApplicationFailure.nonRetryable(`webhook ${webhookId} has a secret that is not in the whsec_ format`);

      const request = deliveryBody(event);
      const body = JSON.stringify(request);
      const outcome = await deliver({ url: webhook.url, body, headers: deliveryHeaders(key, event.id, body) }, { allowHosts, timeoutMs });
      const emails = await recordTry(prisma, { webhook, webhookId, eventId, eventType: event.type, sequence, lastTry, request, outcome });
      // A concurrent run of this activity recorded the try first and did the bookkeeping.
      if (emails === undefined) return recordedResult(await prisma.webhookAttempt.findUniqueOrThrow({ where: attemptKey, select: { statusCode: true } }));
      for (const email of emails) {
        // Already stored: an SMTP failure leaves it unsent in the Email table rather than failing the try.
        await sendEmail(prisma, email).catch((error: unknown) => log.error({ err: error, emailId: email.id }, 'webhook notice stored but not sent'));
      }

      const detail = summary(outcome);
      const { statusCode } = outcome;
      log.info({ webhookId, eventId, eventType: event.type, sequence, statusCode, outcome: outcome.kind, detail }, 'webhook delivery try');
      return { outcome: outcome.kind === 'delivered' ? 'delivered' : 'failed', statusCode, detail };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
