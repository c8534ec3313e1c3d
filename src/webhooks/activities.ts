import { createHash } from 'node:crypto';

import { ApplicationFailure } from '@temporalio/activity';

import { Prisma, type Event, type Webhook, type WebhookAttempt } from '../generated/prisma/client.js';
import { sendEmail, type EmailKind, type EmailMessage } from '../email/mailer.js';
import { eventBody } from '../events/event-service.js';
import { logger } from '../logger.js';
import type { ActivityDependencies } from '../domain-module.js';
import { deliver, isSuccess, type DeliveryOutcome } from './http-delivery.js';
import { deliveryHeaders } from './signature.js';
import { webhookAllowHostsFromEnv } from './ssrf.js';
import { secretKey } from './service.js';

// The activity behind every delivery try (workflows/webhook-delivery.ts). A try is recorded as a
// WebhookAttempt row whose unique key (webhook, event, sequence) makes the activity idempotent:
// a retried activity whose try is already recorded returns that outcome and sends nothing, and
// everything a try changes on the webhook (block state, failure streak, auto-disable, the emails
// those trigger) is written in the transaction that inserts the row, so it happens exactly once.

/** Consecutive failed events at which the contact gets a warning, and at which the webhook is disabled. */
const FAILING_EMAIL_AT = 3;
const DISABLE_AT = 10;

export interface DeliveryAttemptInput {
  eventId: string;
  webhookId: string;
  /** 0 is the first try. */
  sequence: number;
  /** A failure of this try ends the event's delivery (all retries used). */
  lastTry: boolean;
  timeoutMs: number;
}

export interface DeliveryAttemptResult {
  /** skipped: the webhook is archived, inactive or no longer subscribed; nothing was sent. */
  outcome: 'delivered' | 'failed' | 'skipped';
  statusCode: number | null;
  /** For the workflow history: what happened, in words. */
  detail: string;
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


function recordedResult(attempt: Pick<WebhookAttempt, 'statusCode'>): DeliveryAttemptResult {
  return {
    outcome: isSuccess(attempt.statusCode) ? 'delivered' : 'failed',
    statusCode: attempt.statusCode,
    detail: 'this try was already recorded by an earlier run of the activity; it was not sent again',
  };
}

function summary(outcome: DeliveryOutcome): string {
  if (outcome.kind === 'delivered') return `HTTP ${outcome.statusCode}`;
  if (outcome.kind === 'failed') return outcome.error;
  const after = outcome.statusCode === null ? '' : ` after HTTP ${outcome.statusCode}`;
  return `blocked (${outcome.reason})${after}: ${outcome.message}`;
}

/** A UUID derived from a name, so that the same notice always gets the same email id. */
function derivedUuid(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8: custom
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Notice {
  kind: EmailKind;
  /** Names the state change that causes the email: equal keys, one email. */
  key: string;
  subject: string;
  text: string;
}

interface Streak {
  consecutiveFailures: number;
  failingSince: Date;
  status: string;
}

/**
 * Counts one more event that used all its retries, in a single UPDATE (concurrent deliveries of
 * one webhook cannot lose a count), and disables the webhook at DISABLE_AT. The streak starts at
 * the first try of its first failed event.
 */
async function countFailedEvent(tx: Prisma.TransactionClient, webhookId: string, eventId: string): Promise<Streak> {
  const [streak] = await tx.$queryRaw<Streak[]>`
    UPDATE "Webhook" SET
      "consecutiveFailures" = "consecutiveFailures" + 1,
      "failingSince" = COALESCE("failingSince",
        (SELECT "createdAt" FROM "WebhookAttempt" WHERE "webhookId" = ${webhookId}::uuid AND "eventId" = ${eventId}::uuid AND sequence = 0),
        now()),
      "status" = CASE WHEN "consecutiveFailures" + 1 >= ${DISABLE_AT} THEN 'inactive'::"WebhookStatus" ELSE "status" END,
      "updatedAt" = now()
    WHERE id = ${webhookId}::uuid
    RETURNING "consecutiveFailures", "failingSince", "status"::text AS status`;
  return streak!;
}

function streakNotices(webhook: Webhook, streak: Streak): Notice[] {
  const streakKey = `${webhook.id}:${streak.failingSince.toISOString()}`;
  const since = streak.failingSince.toISOString();
  if (streak.consecutiveFailures === FAILING_EMAIL_AT) {
    return [
      {
        kind: 'webhook_failing',
        key: `webhook_failing:${streakKey}:${FAILING_EMAIL_AT}`,
        subject: `Webhook failing: ${webhook.url}`,
        text:
          `Your webhook endpoint ${webhook.url} (webhook ${webhook.id}) has failed to accept ${FAILING_EMAIL_AT} events in a row, ` +
          `each after all its retries, since ${since}.\n\n` +
          `After ${DISABLE_AT} consecutive failed events the webhook is disabled. An event counts as delivered when the endpoint ` +
          `answers with a 2xx status in time; GET /v0/webhooks/${webhook.id}/attempts shows each try with the response received.`,
      },
    ];
  }
  if (streak.consecutiveFailures === DISABLE_AT) {
    return [
      {
        kind: 'webhook_disabled',
        key: `webhook_disabled:${streakKey}:${DISABLE_AT}`,
        subject: `Webhook disabled: ${webhook.url}`,
        text:
          `Your webhook endpoint ${webhook.url} (webhook ${webhook.id}) has failed to accept ${DISABLE_AT} events in a row since ${since} ` +
          `and has been disabled (status inactive). It receives no events until you set its status to active again ` +
          `(PATCH /v0/webhooks/${webhook.id}/update with {"status": "active"}), which also resets its failure count.`,
      },
    ];
  }
  return [];
}

/**
 * Block bookkeeping of one try: a blocked URL sets lastBlockReason/lastBlockedAt (and starts a
 * block when none was set); any try that could use the URL clears it. lastBlockedAt stays as the
 * time of the last blocked try.
 */
async function updateBlockState(tx: Prisma.TransactionClient, webhook: Webhook, outcome: DeliveryOutcome, attemptKey: string): Promise<Notice[]> {
  const now = new Date();
  if (outcome.kind === 'blocked') {
    const data = { lastBlockReason: outcome.reason, lastBlockedAt: now };
    // The condition is evaluated under the row lock, so one of concurrent tries starts the block.
    const started = (await tx.webhook.updateMany({ where: { id: webhook.id, lastBlockReason: null }, data })).count === 1;
    if (!started) {
      await tx.webhook.update({ where: { id: webhook.id }, data });
      return [];
    }
    return [
      {
        kind: 'webhook_blocked',
        key: `webhook_blocked:${attemptKey}`,
        subject: `Webhook blocked: ${webhook.url}`,
        text:
          `Deliveries to your webhook endpoint ${webhook.url} (webhook ${webhook.id}) are not being sent since ${now.toISOString()}: ` +
          `the URL cannot be used (${outcome.reason}). ${outcome.message}\n\n` +
          `Each blocked delivery counts as a failed try. Update the webhook's URL to a publicly reachable http:// or https:// address.`,
      },
    ];
  }
  const cleared = (await tx.webhook.updateMany({ where: { id: webhook.id, lastBlockReason: { not: null } }, data: { lastBlockReason: null } })).count === 1;
  if (!cleared) return [];
  return [
    {
      kind: 'webhook_unblocked',
      key: `webhook_unblocked:${attemptKey}`,
      subject: `Webhook unblocked: ${webhook.url}`,
      text: `Deliveries to your webhook endpoint ${webhook.url} (webhook ${webhook.id}) are being sent again since ${now.toISOString()}: its URL can be used.`,
    },
  ];
}

/** The notices as emails to the workspace's contact address; none without one. */
async function queueEmails(tx: Prisma.TransactionClient, webhook: Webhook, notices: Notice[]): Promise<EmailMessage[]> {
  if (notices.length === 0) return [];
  const workspace = await tx.workspace.findUnique({ where: { id: webhook.workspaceId }, select: { contactEmail: true } });
  if (!workspace?.contactEmail) {
    logger.warn({ webhookId: webhook.id, notices: notices.map((n) => n.kind) }, 'workspace has no contactEmail: webhook notice not emailed');
    return [];
  }
  const to = workspace.contactEmail;
  const emails = notices.map(({ kind, key, subject, text }) => ({ id: derivedUuid(key), workspaceId: webhook.workspaceId, to, subject, text, kind }));
  // Stored with the state change they report; sent after the commit (sendEmail is idempotent per id).
  await tx.email.createMany({ data: emails, skipDuplicates: true });
  return emails;
}

const json = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

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
      const { statusCode, responseBody: response } = outcome;
      const blockReason = outcome.kind === 'blocked' ? outcome.reason : null;
      const delivered = outcome.kind === 'delivered';

      const emails = await prisma.$transaction(async (tx) => {
        const { count } = await tx.webhookAttempt.createMany({
          data: [{ webhookId, eventId, eventType: event.type, sequence, statusCode, blockReason, request: request as unknown as Prisma.InputJsonObject, response: json(response) }],
          skipDuplicates: true,
        });
        // A concurrent run of this activity recorded the try first and did the bookkeeping.
        if (count === 0) return undefined;
        const notices = await updateBlockState(tx, webhook, outcome, `${webhookId}:${eventId}:${sequence}`);
        if (delivered) {
          await tx.webhook.updateMany({ where: { id: webhookId, OR: [{ consecutiveFailures: { not: 0 } }, { failingSince: { not: null } }] }, data: { consecutiveFailures: 0, failingSince: null } });
        } else if (lastTry) {
          const streak = await countFailedEvent(tx, webhookId, eventId);
          notices.push(...streakNotices(webhook, streak));
          log.warn({ webhookId, eventId, ...streak }, 'webhook event failed after all retries');
        }
        return queueEmails(tx, webhook, notices);
      });
      if (emails === undefined) return recordedResult(await prisma.webhookAttempt.findUniqueOrThrow({ where: attemptKey, select: { statusCode: true } }));
      for (const email of emails) {
        // Already stored: an SMTP failure leaves it unsent in the Email table rather than failing the try.
        await sendEmail(prisma, email).catch((error: unknown) => log.error({ err: error, emailId: email.id }, 'webhook notice stored but not sent'));
      }

      const detail = summary(outcome);
      log.info({ webhookId, eventId, eventType: event.type, sequence, statusCode, outcome: outcome.kind, detail }, 'webhook delivery try');
      return { outcome: delivered ? 'delivered' : 'failed', statusCode, detail };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
