import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { createPrismaClient } from '../src/db/client.js';
import { sendEmail, type EmailMessage } from '../src/email/mailer.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';

// sendEmail against a real SMTP receiver on 127.0.0.1, and its outbox path without SMTP.

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

let prisma: PrismaClient;
let smtp: SMTPServer;
let smtpUrl: string;
const received: Received[] = [];
const saved = { SMTP_URL: process.env.SMTP_URL, EMAIL_FROM: process.env.EMAIL_FROM };

beforeAll(async () => {
  prisma = createPrismaClient(process.env.DATABASE_URL!);
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await prisma.$disconnect();
});

beforeEach(() => {
  received.length = 0;
  delete process.env.SMTP_URL;
  delete process.env.EMAIL_FROM;
});

const message = (overrides: Partial<EmailMessage> = {}): EmailMessage => ({
  to: 'owner@example.test',
  subject: `Webhook failing ${randomUUID()}`,
  text: 'Your webhook https://hooks.example.test/x failed 3 events in a row.',
  kind: 'webhook_failing',
  ...overrides,
});

const rowsTo = (to: string) => prisma.email.findMany({ where: { to }, orderBy: { createdAt: 'asc' } });

test('with SMTP_URL the email goes out over SMTP and is recorded as sent', async () => {
  process.env.SMTP_URL = smtpUrl;
  process.env.EMAIL_FROM = 'Commerce Ops <ops@example.test>';
  const to = `owner-${randomUUID()}@example.test`;
  const workspaceId = randomUUID();
  const sent = await sendEmail(prisma, message({ to, workspaceId, subject: 'Webhook disabled', text: 'It failed 10 events in a row.', kind: 'webhook_disabled' }));
  expect(sent.sentAt).toBeInstanceOf(Date);

  expect(received).toHaveLength(1);
  const [mail] = received;
  expect(mail!.from).toBe('ops@example.test');
  expect(mail!.to).toEqual([to]);
  expect(mail!.raw).toMatch(/^Subject: Webhook disabled\r?$/m);
  expect(mail!.raw).toMatch(/^From: Commerce Ops <ops@example\.test>\r?$/m);
  expect(mail!.raw).toMatch(new RegExp(`^To: ${to.replace(/[.+]/g, '\\$&')}\\r?$`, 'm'));
  expect(mail!.raw).toContain('It failed 10 events in a row.');
  expect(mail!.raw).toMatch(new RegExp(`^x-commerce-email-id: ${sent.id}\\r?$`, 'im'));

  const rows = await rowsTo(to);
  expect(rows).toEqual([
    expect.objectContaining({ id: sent.id, workspaceId, to, subject: 'Webhook disabled', text: 'It failed 10 events in a row.', kind: 'webhook_disabled', sentAt: sent.sentAt }),
  ]);
});

test('the default sender is Commerce API <no-reply@localhost>', async () => {
  process.env.SMTP_URL = smtpUrl;
  await sendEmail(prisma, message());
  expect(received).toHaveLength(1);
  expect(received[0]!.from).toBe('no-reply@localhost');
  expect(received[0]!.raw).toMatch(/^From: Commerce API <no-reply@localhost>\r?$/m);
});

test('without SMTP_URL the email is stored unsent (the outbox) and nothing is sent', async () => {
  const to = `outbox-${randomUUID()}@example.test`;
  const queued = await sendEmail(prisma, message({ to, kind: 'webhook_blocked' }));
  expect(queued.sentAt).toBeNull();
  expect(received).toHaveLength(0);
  const rows = await rowsTo(to);
  expect(rows).toEqual([expect.objectContaining({ id: queued.id, workspaceId: null, kind: 'webhook_blocked', sentAt: null })]);
});

test('an id makes a retried call idempotent: a failed send stays unsent and is sent once on retry', async () => {
  const to = `retry-${randomUUID()}@example.test`;
  const id = randomUUID();
  // Nothing listens on port 1: the send fails and the row stays in the outbox.
  process.env.SMTP_URL = 'smtp://127.0.0.1:1';
  await expect(sendEmail(prisma, message({ id, to, kind: 'webhook_unblocked' }))).rejects.toThrow();
  expect(await rowsTo(to)).toEqual([expect.objectContaining({ id, sentAt: null })]);

  process.env.SMTP_URL = smtpUrl;
  const first = await sendEmail(prisma, message({ id, to, kind: 'webhook_unblocked' }));
  const second = await sendEmail(prisma, message({ id, to, kind: 'webhook_unblocked' }));
  expect(first.sentAt).toBeInstanceOf(Date);
  expect(second).toEqual(first);
  expect(received).toHaveLength(1);
  expect(await rowsTo(to)).toEqual([expect.objectContaining({ id, sentAt: first.sentAt })]);
});

test('storedText: the email goes out with its text, the outbox keeps the stand-in (a sign-in link never reaches the database)', async () => {
  process.env.SMTP_URL = smtpUrl;
  const to = `credential-${randomUUID()}@example.test`;
  const sent = await sendEmail(prisma, message({ to, text: 'Sign in: https://shop.example/portal/x/sign-in/psl_secret', storedText: 'Sign in: [a one-time sign-in link, not stored]', kind: 'portal_sign_in' }));
  expect(sent.sentAt).toBeInstanceOf(Date);
  expect(received).toHaveLength(1);
  expect(received[0]!.raw).toContain('psl_secret');
  expect(await rowsTo(to)).toEqual([expect.objectContaining({ text: 'Sign in: [a one-time sign-in link, not stored]', sentAt: sent.sentAt })]);
});
