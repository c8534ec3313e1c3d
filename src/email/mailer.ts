import type { Transporter } from 'nodemailer';
import type { PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';

// Operational emails (the webhooks domain's notices, src/webhooks/emails.ts; the buyer portal's
// sign-in links, src/portal/actions.ts). With
// SMTP_URL set they go out over SMTP and are recorded as sent; without it they wait in the Email
// table (sentAt null) for an operator, and only their recipient and subject are logged.

export interface EmailMessage {
  /**
   * Makes the call idempotent for a retried caller (a Temporal activity): a message already
   * sent under this id is not sent again. Generated when absent.
   */
  id?: string;
  workspaceId?: string | null;
  to: string;
  subject: string;
  text: string;
  /**
   * What the Email table keeps in place of `text` when `text` carries a credential (a sign-in
   * link): the credential never reaches the database, and such a message is sent once, from
   * `text`, never from the stored copy.
   */
  storedText?: string;
  /** What the email reports, named by the domain that sends it (e.g. webhook_failing). */
  kind: string;
}

export interface MailerOptions {
  /** smtp:// or smtps:// URL (nodemailer syntax, e.g. smtps://user:pass@host:465). Default: SMTP_URL. */
  smtpUrl?: string;
  /** Default: EMAIL_FROM, else "Commerce API <no-reply@localhost>". */
  from?: string;
}

const DEFAULT_FROM = 'Commerce API <no-reply@localhost>';
const transports = new Map<string, Transporter>();

/** nodemailer (about 30 MB of memory) is imported only by a process that sends over SMTP. */
async function transport(smtpUrl: string): Promise<Transporter> {
  let existing = transports.get(smtpUrl);
  if (!existing) {
    const { default: nodemailer } = await import('nodemailer');
    existing = transports.get(smtpUrl) ?? nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, existing);
  }
  return existing;
}

/** Sends (or, without SMTP, queues) one email; returns its row id and when it was sent. */
export async function sendEmail(prisma: PrismaClient, message: EmailMessage, options: MailerOptions = {}): Promise<{ id: string; sentAt: Date | null }> {
  const smtpUrl = options.smtpUrl ?? (process.env.SMTP_URL || undefined);
  const from = options.from ?? (process.env.EMAIL_FROM || DEFAULT_FROM);
  const { id, workspaceId = null, to, subject, text, storedText, kind } = message;
  const data = { workspaceId, to, subject, text: storedText ?? text, kind };
  // Recorded before sending, so a failed send stays in the table as unsent.
  const email = id ? await prisma.email.upsert({ where: { id }, create: { id, ...data }, update: {} }) : await prisma.email.create({ data });
  if (email.sentAt) return { id: email.id, sentAt: email.sentAt };
  if (!smtpUrl) {
    logger.info({ emailId: email.id, kind, to, subject }, 'SMTP_URL is not set: email stored unsent');
    return { id: email.id, sentAt: null };
  }
  // The stored message is what goes out, so a retry sends what was first recorded (unless it stands in for a credential).
  const body = storedText === undefined ? email.text : text;
  await (await transport(smtpUrl)).sendMail({ from, to: email.to, subject: email.subject, text: body, headers: { 'x-commerce-email-id': email.id } });
  const sent = await prisma.email.update({ where: { id: email.id }, data: { sentAt: new Date() } });
  return { id: sent.id, sentAt: sent.sentAt };
}
