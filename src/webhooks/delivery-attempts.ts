import type { Prisma, PrismaClient, Webhook, WebhookAttempt } from '../generated/prisma/client.js';
import { uuidv7 } from '../core/uuid.js';
import type { EmailMessage } from '../email/mailer.js';
import { blockedNotice, queueEmails, unblockedNotice, type Notice } from './emails.js';
import { endStreak, recordFailedEvent } from './failure-streak.js';
import { isSuccess, type DeliveryOutcome } from './http-delivery.js';

// A delivery try's record: a WebhookAttempt row whose unique key (webhook, event, sequence) makes
// the attemptDelivery activity idempotent. Everything a try changes on the webhook (block state,
// failure streak, auto-disable, the emails those trigger) is written in the transaction that
// inserts the row, so it happens exactly once however often the activity runs.

export interface DeliveryAttemptResult {
  /** skipped: the webhook is archived, inactive or no longer subscribed; nothing was sent. */
  outcome: 'delivered' | 'failed' | 'skipped';
  statusCode: number | null;
  /** For the workflow history: what happened, in words. */
  detail: string;
}

export interface AttemptKey {
  webhookId: string;
  eventId: string;
  /** 0 is the first try. */
  sequence: number;
}

/** What a try that is already recorded answers (a retried activity sends nothing again). */
export function recordedResult(attempt: Pick<WebhookAttempt, 'statusCode'>): DeliveryAttemptResult {
  return {
    outcome: isSuccess(attempt.statusCode) ? 'delivered' : 'failed',
    statusCode: attempt.statusCode,
    detail: 'this try was already recorded by an earlier run of the activity; it was not sent again',
  };
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
    return [blockedNotice(webhook, attemptKey, now, outcome.reason, outcome.message)];
  }
  const cleared = (await tx.webhook.updateMany({ where: { id: webhook.id, lastBlockReason: { not: null } }, data: { lastBlockReason: null } })).count === 1;
  return cleared ? [unblockedNotice(webhook, attemptKey, now)] : [];
}

/** A JSON column's value as SQL's parameter: null is SQL NULL. */
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export interface DeliveryTry extends AttemptKey {
  webhook: Webhook;
  eventType: string;
  /** A failure of this try ends the event's delivery (all retries used). */
  lastTry: boolean;
  /** The body that was sent. */
  request: object;
  outcome: DeliveryOutcome;
}

/**
 * Records a try and its bookkeeping in one transaction; returns the emails it stored, to send
 * after the commit, or undefined when a concurrent run of the activity recorded the try first
 * (and did the bookkeeping).
 */
export function recordTry(prisma: PrismaClient, attempt: DeliveryTry): Promise<EmailMessage[] | undefined> {
  const { webhook, webhookId, eventId, eventType, sequence, lastTry, request, outcome } = attempt;
  const { statusCode, responseBody: response } = outcome;
  const blockReason = outcome.kind === 'blocked' ? outcome.reason : null;
  return prisma.$transaction(async (tx) => {
    // ON CONFLICT DO NOTHING, in SQL of our own: Prisma compiles a createMany anew at every call.
    const count = await tx.$executeRaw`
      INSERT INTO "WebhookAttempt" (id, "webhookId", "eventId", "eventType", sequence, "statusCode", "blockReason", request, response)
      VALUES (${uuidv7()}::uuid, ${webhookId}::uuid, ${eventId}::uuid, ${eventType}, ${sequence}, ${statusCode}, ${blockReason}, ${json(request)}::jsonb, ${json(response)}::jsonb)
      ON CONFLICT ("webhookId", "eventId", sequence) DO NOTHING`;
    if (count === 0) return undefined;
    const notices = await updateBlockState(tx, webhook, outcome, `${webhookId}:${eventId}:${sequence}`);
    if (outcome.kind === 'delivered') await endStreak(tx, webhookId);
    else if (lastTry) notices.push(...(await recordFailedEvent(tx, webhook, eventId)));
    return queueEmails(tx, webhook, notices);
  });
}
