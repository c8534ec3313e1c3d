import type { Prisma, Webhook } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import { disabledNotice, failingNotice, type Notice } from './emails.js';

// A webhook's failure streak: the events in a row that used all their retries without being
// delivered. Its contact is warned at FAILING_EMAIL_AT and the webhook is disabled at DISABLE_AT;
// a delivered event ends the streak. Both happen in the transaction that records the try.

/** Consecutive failed events at which the contact gets a warning, and at which the webhook is disabled. */
const FAILING_EMAIL_AT = 3;
const DISABLE_AT = 10;

interface Streak {
  consecutiveFailures: number;
  failingSince: Date;
  status: string;
}

const log = logger.child({ component: 'webhook-delivery' });

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

/** The event used all its retries: one more in the streak, and the notice it triggers, if any. */
export async function recordFailedEvent(tx: Prisma.TransactionClient, webhook: Webhook, eventId: string): Promise<Notice[]> {
  const streak = await countFailedEvent(tx, webhook.id, eventId);
  log.warn({ webhookId: webhook.id, eventId, ...streak }, 'webhook event failed after all retries');
  const streakKey = `${webhook.id}:${streak.failingSince.toISOString()}`;
  const since = streak.failingSince.toISOString();
  if (streak.consecutiveFailures === FAILING_EMAIL_AT) return [failingNotice(webhook, streakKey, since, FAILING_EMAIL_AT, DISABLE_AT)];
  if (streak.consecutiveFailures === DISABLE_AT) return [disabledNotice(webhook, streakKey, since, DISABLE_AT)];
  return [];
}

/** An event was delivered: the streak, if any, ends. */
export async function endStreak(tx: Prisma.TransactionClient, webhookId: string): Promise<void> {
  await tx.webhook.updateMany({ where: { id: webhookId, OR: [{ consecutiveFailures: { not: 0 } }, { failingSince: { not: null } }] }, data: { consecutiveFailures: 0, failingSince: null } });
}
