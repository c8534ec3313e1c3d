import { createHash } from 'node:crypto';

import type { Prisma, Webhook } from '../generated/prisma/client.js';
import type { EmailMessage } from '../email/mailer.js';
import { logger } from '../logger.js';

// The emails a webhook's state changes send to its workspace's contact address: failing and
// disabled (its failure streak, failure-streak.ts), blocked and unblocked (its URL cannot be used,
// or can again). Each is stored in the transaction of the change it reports, under an id derived
// from that change, so a change reported twice still sends one email.

type WebhookEmailKind = 'webhook_failing' | 'webhook_disabled' | 'webhook_blocked' | 'webhook_unblocked';

export interface Notice {
  kind: WebhookEmailKind;
  /** Names the state change that causes the email: equal keys, one email. */
  key: string;
  subject: string;
  text: string;
}

/** The streak of failed events reached `failedEvents`; the webhook is disabled at `disableAt`. */
export function failingNotice(webhook: Webhook, streakKey: string, since: string, failedEvents: number, disableAt: number): Notice {
  return {
    kind: 'webhook_failing',
    key: `webhook_failing:${streakKey}:${failedEvents}`,
    subject: `Webhook failing: ${webhook.url}`,
    text:
      `Your webhook endpoint ${webhook.url} (webhook ${webhook.id}) has failed to accept ${failedEvents} events in a row, ` +
      `each after all its retries, since ${since}.\n\n` +
      `After ${disableAt} consecutive failed events the webhook is disabled. An event counts as delivered when the endpoint ` +
      `answers with a 2xx status in time; GET /v0/webhooks/${webhook.id}/attempts shows each try with the response received.`,
  };
}

/** The streak of failed events reached `failedEvents` and the webhook was disabled. */
export function disabledNotice(webhook: Webhook, streakKey: string, since: string, failedEvents: number): Notice {
  return {
    kind: 'webhook_disabled',
    key: `webhook_disabled:${streakKey}:${failedEvents}`,
    subject: `Webhook disabled: ${webhook.url}`,
    text:
      `Your webhook endpoint ${webhook.url} (webhook ${webhook.id}) has failed to accept ${failedEvents} events in a row since ${since} ` +
      `and has been disabled (status inactive). It receives no events until you set its status to active again ` +
      `(PATCH /v0/webhooks/${webhook.id}/update with {"status": "active"}), which also resets its failure count.`,
  };
}

/** The try `attemptKey` found the webhook's URL unusable (`reason`, `message`) and started a block. */
export function blockedNotice(webhook: Webhook, attemptKey: string, at: Date, reason: string, message: string): Notice {
  return {
    kind: 'webhook_blocked',
    key: `webhook_blocked:${attemptKey}`,
    subject: `Webhook blocked: ${webhook.url}`,
    text:
      `Deliveries to your webhook endpoint ${webhook.url} (webhook ${webhook.id}) are not being sent since ${at.toISOString()}: ` +
      `the URL cannot be used (${reason}). ${message}\n\n` +
      `Each blocked delivery counts as a failed try. Update the webhook's URL to a publicly reachable http:// or https:// address.`,
  };
}

/** The try `attemptKey` could use the URL again and ended a block. */
export function unblockedNotice(webhook: Webhook, attemptKey: string, at: Date): Notice {
  return {
    kind: 'webhook_unblocked',
    key: `webhook_unblocked:${attemptKey}`,
    subject: `Webhook unblocked: ${webhook.url}`,
    text: `Deliveries to your webhook endpoint ${webhook.url} (webhook ${webhook.id}) are being sent again since ${at.toISOString()}: its URL can be used.`,
  };
}

/** A UUID derived from a name, so that the same notice always gets the same email id. */
function derivedUuid(name: string): string {
  const bytes = createHash('sha256').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80; // version 8: custom
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The notices as emails to the workspace's contact address; none without one. */
export async function queueEmails(tx: Prisma.TransactionClient, webhook: Webhook, notices: Notice[]): Promise<EmailMessage[]> {
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
