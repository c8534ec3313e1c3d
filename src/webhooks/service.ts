import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Prisma, PrismaClient, Webhook, WebhookStatus } from '../generated/prisma/client.js';
import type { Db } from '../db/client.js';
import { config } from '../config.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { direction, offsetPage, type OffsetListArgs } from '../core/list.js';
import type { EventDefinitions } from '../events/event-types.js';
import type { TemporalConnection } from '../temporal/client.js';
import { startDelivery } from './dispatcher.js';
import { isSuccess } from './http-delivery.js';
import { SECRET_PREFIX, secretKey } from './signature.js';
import { validateWebhookUrl, webhookAllowHostsFromEnv } from './ssrf.js';
import { subscribedWebhooks } from './subscribers.js';
import { testEventPayload, type TestEventHints } from './test-events.js';
import { claimArchive } from '../core/archive.js';
import { reserveSlot } from '../core/slots.js';

/** Live (active or inactive, not archived) webhooks a workspace may have per mode. */
export const WEBHOOK_LIMIT = 5;
const ATTEMPTS_TAKE = 10;
// Standard Webhooks secrets (signature.ts): 24 to 64 bytes of HMAC key; 32 when generated.
const SECRET_BYTES = { min: 24, max: 64, generated: 32 } as const;
const MASK = '••••';

// Rows whose secret may be shown in full: only what create and update return. Any other row
// (list, get, entity references) resolves its secret masked, so forgetting to mask fails closed.
const revealed = new WeakSet<Webhook>();

/** The secret as list and get show it: its last four characters behind a fixed mask. */
export const maskSecret = (secret: string) => `${MASK}${secret.slice(-4)}`;

export const shownSecret = (webhook: Webhook) => (revealed.has(webhook) ? webhook.secret : maskSecret(webhook.secret));

function reveal(webhook: Webhook): Webhook {
  revealed.add(webhook);
  return webhook;
}

export const generateSecret = () => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES.generated).toString('base64')}`;

function checkSecret(secret: string): string {
  const key = secretKey(secret);
  if (key === null || key.length < SECRET_BYTES.min || key.length > SECRET_BYTES.max) {
    throw new ValidationFailed(
      `secret must be "${SECRET_PREFIX}" followed by the standard base64 encoding of ${SECRET_BYTES.min} to ${SECRET_BYTES.max} random bytes; omit it on create to have one generated`,
    );
  }
  return secret;
}

/** An event type sent by a caller; 400 naming the known types otherwise. */
export function parseEventType(known: EventDefinitions, value: string, where = 'eventType'): string {
  if (!Object.hasOwn(known, value)) throw new ValidationFailed(`${where}: unknown event type "${value}"; known types: ${Object.keys(known).join(', ')}`);
  return value;
}

function checkEvents(known: EventDefinitions, events: readonly string[]): string[] {
  if (events.length === 0) throw new ValidationFailed('events must hold at least one event type');
  const parsed = events.map((event, index) => parseEventType(known, event, `events[${index}]`));
  const repeated = parsed.filter((event, index) => parsed.indexOf(event) !== index);
  if (repeated.length) throw new ValidationFailed(`events repeats ${[...new Set(repeated)].join(', ')}`);
  return parsed;
}

/** The URL as it will be called (WHATWG-normalised); 400 with the SSRF rule's message otherwise. */
async function checkUrl(raw: string): Promise<string> {
  const result = await validateWebhookUrl(raw.trim(), { allowHosts: webhookAllowHostsFromEnv() });
  if (!result.ok) throw new ValidationFailed(result.message);
  return result.url.href;
}

const live = (scope: Scope) => ({ ...inScope(scope), deletedAt: null });

export async function listWebhooks(prisma: PrismaClient, scope: Scope) {
  const webhooks = await prisma.webhook.findMany({ where: live(scope), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return { webhooks };
}

export async function findWebhook(prisma: Db, scope: Scope, webhookId: string) {
  const webhook = await prisma.webhook.findFirst({ where: { id: webhookId, ...live(scope) } });
  if (!webhook) throw new NotFound('Webhook');
  return webhook;
}

export interface CreateWebhookInput {
  url: string;
  events: string[];
  status?: WebhookStatus | null;
  secret?: string | null;
}

/** One of the scope's webhook slots: inactive webhooks hold theirs too, only archiving frees one. */
function reserveWebhookSlot(tx: Prisma.TransactionClient, scope: Scope) {
  return reserveSlot(tx, scope, {
    name: 'webhooks',
    limit: WEBHOOK_LIMIT,
    taken: () => tx.webhook.count({ where: live(scope) }),
    full: () => new ValidationFailed(`A workspace can have at most ${WEBHOOK_LIMIT} webhooks (active or inactive) per mode; archive one to free a slot`),
  });
}

export async function createWebhook(prisma: PrismaClient, scope: Scope, known: EventDefinitions, input: CreateWebhookInput) {
  if (input.status === null) throw new ValidationFailed('status cannot be null');
  const events = checkEvents(known, input.events);
  const secret = input.secret === undefined || input.secret === null ? generateSecret() : checkSecret(input.secret);
  const url = await checkUrl(input.url);
  const webhook = await prisma.$transaction(async (tx) => {
    await reserveWebhookSlot(tx, scope);
    return tx.webhook.create({ data: { ...inScope(scope), url, events, secret, status: input.status ?? 'active' } });
  });
  return reveal(webhook);
}

export interface UpdateWebhookInput {
  url?: string | null;
  events?: string[] | null;
  status?: WebhookStatus | null;
  secret?: string | null;
}

/**
 * Absent fields keep their value. `secret` replaces the signing secret; `status: active` on an
 * inactive webhook re-enables it with a fresh failure streak (it never re-enables itself).
 */
export async function updateWebhook(prisma: PrismaClient, scope: Scope, known: EventDefinitions, webhookId: string, input: UpdateWebhookInput) {
  for (const name of ['url', 'events', 'status', 'secret'] as const) {
    if (input[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  }
  const data: Prisma.WebhookUpdateInput = {};
  if (input.events != null) data.events = checkEvents(known, input.events);
  if (input.secret != null) data.secret = checkSecret(input.secret);
  if (input.url != null) data.url = await checkUrl(input.url);
  if (input.status != null) data.status = input.status;
  const webhook = await prisma.$transaction(async (tx) => {
    const current = await findWebhook(tx, scope, webhookId);
    if (current.status === 'inactive' && input.status === 'active') Object.assign(data, { consecutiveFailures: 0, failingSince: null });
    return tx.webhook.update({ where: { id: current.id }, data });
  });
  return reveal(webhook);
}

/** Archiving (deletedAt) stops deliveries and frees a slot; an archived webhook is 404 from then on. */
export async function archiveWebhook(prisma: PrismaClient, scope: Scope, webhookId: string) {
  await claimArchive('Webhook', (now) => prisma.webhook.updateMany({ where: { id: webhookId, ...live(scope) }, data: { deletedAt: now } }));
  return { success: true };
}

/** Delivery attempts of one webhook, newest first by default; the count is always returned. */
export async function listWebhookAttempts(prisma: PrismaClient, scope: Scope, webhookId: string, args: Pick<OffsetListArgs, 'skip' | 'take' | 'orderDirection'>) {
  const { skip, take } = offsetPage(args, ATTEMPTS_TAKE);
  const webhook = await findWebhook(prisma, scope, webhookId);
  const where = { webhookId: webhook.id };
  const dir = direction(args);
  const [attempts, count] = await Promise.all([
    prisma.webhookAttempt.findMany({ where, orderBy: [{ createdAt: dir }, { sequence: dir }, { id: dir }], skip, take }),
    prisma.webhookAttempt.count({ where }),
  ]);
  return { attempts, count };
}

export interface TestEventInput extends TestEventHints {
  eventType: string;
}

/** How long sendTestEvent waits for the first tries beyond the endpoints' own time (worker pick-up, recording). */
const FIRST_TRY_MARGIN_MS = 10_000;
const FIRST_TRY_POLL_MS = 100;

/**
 * Fires a synthetic event (Event.test, `test: true` in the body) to every active webhook of the
 * scope subscribed to its type, through the normal delivery workflow with its retries, and waits
 * for the first try of each: 400 naming the endpoints that refused it. With no subscribed webhook
 * nothing is recorded and deliveries is 0.
 */
export async function sendTestEvent(prisma: PrismaClient, temporal: TemporalConnection, scope: Scope, known: EventDefinitions, input: TestEventInput): Promise<{ success: boolean; deliveries: number }> {
  const { eventType, ...hints } = input;
  const payload = await testEventPayload(prisma, scope, known, eventType, hints);
  const webhooks = await subscribedWebhooks(prisma, { ...inScope(scope), type: eventType });
  if (webhooks.length === 0) return { success: true, deliveries: 0 };

  const event = await prisma.event.create({ data: { ...inScope(scope), type: eventType, payload: payload as Prisma.InputJsonObject, test: true } });
  // Handed over here rather than by the dispatcher's next poll; should a start fail, the event
  // is still pending and the dispatcher delivers it.
  await Promise.all(webhooks.map((webhook) => startDelivery(temporal, event.id, webhook.id)));
  await prisma.event.updateMany({ where: { id: event.id, dispatchedAt: null }, data: { dispatchedAt: new Date() } });

  const deadline = Date.now() + config.webhooks.timeoutMs + FIRST_TRY_MARGIN_MS;
  const readFirstTries = () =>
    prisma.webhookAttempt.findMany({ where: { eventId: event.id, sequence: 0 }, select: { webhookId: true, statusCode: true, blockReason: true } });
  let firstTries = await readFirstTries();
  // A try that has not happened by the deadline is not a refusal: its delivery goes on.
  while (firstTries.length < webhooks.length && Date.now() < deadline) {
    await sleep(FIRST_TRY_POLL_MS);
    firstTries = await readFirstTries();
  }
  const refused = firstTries.filter(({ statusCode }) => !isSuccess(statusCode));
  if (refused.length > 0) {
    const current = await prisma.webhook.findMany({ where: { id: { in: refused.map((attempt) => attempt.webhookId) } } });
    const reasons = refused.map(({ webhookId, statusCode, blockReason }) => {
      const webhook = current.find((w) => w.id === webhookId)!;
      const why =
        blockReason !== null
          ? statusCode === null
            ? `its URL is blocked (${blockReason})`
            : `HTTP ${statusCode} redirects to a blocked URL (${blockReason})`
          : statusCode !== null
            ? `HTTP ${statusCode}`
            : 'no response (timeout or connection error)';
      return `${webhook.url} (webhook ${webhook.id}): ${why}`;
    });
    throw new ValidationFailed(`The test event ${event.id} was refused by ${reasons.join('; ')}. It is retried like any delivery; see the webhook's attempts`);
  }
  return { success: true, deliveries: webhooks.length };
}
