import { WebhookStatus } from '../generated/prisma/enums.js';
import { builder, SortDirection } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { SuccessPayload } from '../graphql/payloads.js';
import type { EventDefinitions } from '../events/event-types.js';
import * as webhooks from './service.js';

// Webhook timestamps are milliseconds (spec, general rule 5), unlike the rest of the API.
const millis = (date: Date | null) => (date === null ? null : date.getTime());

export const WebhookStatusEnum = builder.enumType(WebhookStatus, { name: 'WebhookStatus' });

/** Registers the webhook types and fields; the event types come from every domain (src/domains.ts). */
export function registerWebhookTypes(events: EventDefinitions): void {
  const EVENT_TYPES_TEXT = `Known event types: ${Object.keys(events).join(', ')}`;

  const Webhook = builder.prismaObject('Webhook', {
    fields: (t) => ({
      object: t.string({ resolve: () => 'webhook' }),
      id: t.exposeID('id'),
      url: t.exposeString('url'),
      status: t.expose('status', { type: WebhookStatusEnum }),
      secret: t.string({
        description: 'Signing secret (whsec_ + base64). Create and update return it in full; list and get show "••••" plus its last four characters',
        resolve: (w) => webhooks.shownSecret(w),
      }),
      events: t.exposeStringList('events', { description: EVENT_TYPES_TEXT }),
      consecutiveFailures: t.exposeInt('consecutiveFailures', { description: 'Events that failed after all their retries, in a row; the webhook turns inactive at 10' }),
      failingSince: t.field({ type: 'Timestamp', nullable: true, description: 'ms; first failure of the current streak', resolve: (w) => millis(w.failingSince) }),
      lastBlockReason: t.exposeString('lastBlockReason', {
        nullable: true,
        description: 'Why the last delivery was skipped: malformed_url, disallowed_scheme, blocked_host, unresolvable_host or blocked_resolved_address',
      }),
      lastBlockedAt: t.field({ type: 'Timestamp', nullable: true, description: 'ms', resolve: (w) => millis(w.lastBlockedAt) }),
      createdAt: t.field({ type: 'Timestamp', description: 'ms', resolve: (w) => w.createdAt.getTime() }),
      deletedAt: t.field({ type: 'Timestamp', nullable: true, description: 'ms; when the webhook was archived', resolve: (w) => millis(w.deletedAt) }),
    }),
  });

  const WebhookAttempt = builder.prismaObject('WebhookAttempt', {
    fields: (t) => ({
      object: t.string({ resolve: () => 'webhook_attempt' }),
      id: t.exposeID('id'),
      webhookId: t.exposeID('webhookId'),
      eventType: t.exposeString('eventType', { nullable: true }),
      sequence: t.exposeInt('sequence', { description: '0 is the first try of an event' }),
      statusCode: t.exposeInt('statusCode', {
        nullable: true,
        description: 'null when the request itself failed (timeout, connection error, blocked URL); for a redirect that was not followed, its status',
      }),
      blockReason: t.exposeString('blockReason', {
        nullable: true,
        description: 'Why the try was not sent: the URL, or the target of the redirect in statusCode, is malformed_url, disallowed_scheme, blocked_host, unresolvable_host or blocked_resolved_address',
      }),
      request: t.expose('request', { type: 'JSON', nullable: true, description: 'The body sent' }),
      response: t.expose('response', { type: 'JSON', nullable: true, description: 'The parsed JSON response body' }),
      createdAt: t.field({ type: 'Timestamp', description: 'ms', resolve: (a) => a.createdAt.getTime() }),
    }),
  });

  const WebhookList = builder.simpleObject('WebhookList', { fields: (t) => ({ webhooks: t.field({ type: [Webhook] }) }) });
  const WebhookPayload = builder.simpleObject('WebhookPayload', { fields: (t) => ({ webhook: t.field({ type: Webhook }) }) });
  const WebhookAttemptList = builder.simpleObject('WebhookAttemptList', {
    fields: (t) => ({ attempts: t.field({ type: [WebhookAttempt] }), count: t.int() }),
  });

  const TestEventPayload = builder.simpleObject('TestEventPayload', {
    fields: (t) => ({
      success: t.boolean(),
      deliveries: t.int({ description: 'Webhooks the test event went to (active and subscribed to its type); 0 when none is' }),
    }),
  });

  const webhookIdArg = builder.args((t) => ({ webhookId: t.field({ type: 'UUID', required: true }) }));

  builder.queryFields((t) => ({
    webhooks: t.field({
      type: WebhookList,
      description: 'Every webhook of the workspace (archived ones excepted), newest first; not paginated',
      resolve: async (_root, _args, ctx) => webhooks.listWebhooks(ctx.prisma, await scopeOf(ctx, 'read')),
    }),
    webhook: t.field({
      type: WebhookPayload,
      args: webhookIdArg,
      resolve: async (_root, args, ctx) => ({ webhook: await webhooks.findWebhook(ctx.prisma, await scopeOf(ctx, 'read'), args.webhookId) }),
    }),
    webhookAttempts: t.field({
      type: WebhookAttemptList,
      description: 'Delivery attempts, newest first by default; count is always returned',
      args: {
        ...webhookIdArg,
        skip: t.arg.int({ description: 'Records to skip (>= 0)' }),
        take: t.arg({ type: 'PageSize', description: 'Page size, default 10; clamped to 1..100' }),
        orderDirection: t.arg({ type: SortDirection, description: 'Default DESC (newest first)' }),
      },
      resolve: async (_root, { webhookId, ...page }, ctx) => webhooks.listWebhookAttempts(ctx.prisma, await scopeOf(ctx, 'read'), webhookId, page),
    }),
  }));

  builder.mutationFields((t) => ({
    createWebhook: t.field({
      type: WebhookPayload,
      description: `At most ${webhooks.WEBHOOK_LIMIT} live (active or inactive) webhooks per workspace and mode`,
      args: {
        url: t.arg.string({ required: true, description: 'A publicly reachable http:// or https:// URL' }),
        events: t.arg.stringList({ required: true, description: `Event types to receive (at least one, no repeats). ${EVENT_TYPES_TEXT}` }),
        status: t.arg({ type: WebhookStatusEnum, description: 'Default active' }),
        secret: t.arg.string({ description: 'whsec_ + base64 of 24 to 64 bytes; generated (32 bytes) when absent' }),
      },
      resolve: async (_root, args, ctx) => ({ webhook: await webhooks.createWebhook(ctx.prisma, await scopeOf(ctx, 'write'), events, args) }),
    }),
    updateWebhook: t.field({
      type: WebhookPayload,
      description: 'Absent fields keep their value. status active re-enables an inactive webhook and resets its failure streak',
      args: {
        ...webhookIdArg,
        url: t.arg.string(),
        events: t.arg.stringList(),
        status: t.arg({ type: WebhookStatusEnum }),
        secret: t.arg.string({ description: 'Replaces the signing secret (whsec_ + base64 of 24 to 64 bytes)' }),
      },
      resolve: async (_root, { webhookId, ...fields }, ctx) => ({
        webhook: await webhooks.updateWebhook(ctx.prisma, await scopeOf(ctx, 'write'), events, webhookId, fields),
      }),
    }),
    archiveWebhook: t.field({
      type: SuccessPayload,
      args: webhookIdArg,
      resolve: async (_root, args, ctx) => webhooks.archiveWebhook(ctx.prisma, await scopeOf(ctx, 'write'), args.webhookId),
    }),
    sendTestEvent: t.field({
      type: TestEventPayload,
      description:
        'Fires a synthetic event of this type (test: true in the body) to every active webhook subscribed to it, with the normal retries, ' +
        'and waits for the first try of each: 400 naming the endpoints that refused it',
      args: {
        eventType: t.arg.string({ required: true, description: EVENT_TYPES_TEXT }),
        items: t.arg({ type: 'JSON', description: 'Optional hint for the synthetic payload' }),
        userId: t.arg({ type: 'UUID', description: 'Optional hint for the synthetic payload' }),
      },
      resolve: async (_root, { eventType, ...hints }, ctx) => {
        const scope = await scopeOf(ctx, 'write');
        return webhooks.sendTestEvent(ctx.prisma, ctx.temporal, scope, events, { eventType: webhooks.parseEventType(events, eventType), ...hints });
      },
    }),
  }));
}
