import { queryFromInfo } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Subscription as SubscriptionRow } from '../generated/prisma/client.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { CartItem, SubscriptionStatusEnum } from '../orders/index.js';
import { DEFAULT_TAKE, findSubscription, listSubscriptions, subscriptionItems } from './queries.js';
import { clockOf } from './requests.js';
import { subscriptionPlanItems } from './service.js';

/** The subscription's fields (subscriptionResource's), shared by the summary (lists, an order's subscription) and the details. */
const subscriptionFields = <Model extends PrismaTypes['Subscription'], Shape extends SubscriptionRow>(
  t: PothosSchemaTypes.PrismaObjectFieldBuilder<typeof builder.$inferSchemaTypes, Model, Shape>,
) => ({
  object: t.string({ resolve: () => 'subscription' }),
  id: t.string({ description: 'The number of the order that started it', resolve: (s) => s.number }),
  status: t.field({ type: SubscriptionStatusEnum, resolve: (s) => s.status }),
  currency: t.string({ resolve: (s) => s.currency }),
  amount: t.int({ description: 'Charged every period, minor units', resolve: (s) => s.amount }),
  recurringInterval: t.string({ resolve: (s) => s.recurringInterval }),
  recurringIntervalCount: t.int({ resolve: (s) => s.recurringIntervalCount }),
  trialInterval: t.string({ nullable: true, resolve: (s) => s.trialInterval }),
  trialIntervalCount: t.int({ nullable: true, resolve: (s) => s.trialIntervalCount }),
  userId: t.id({ nullable: true, resolve: (s) => s.userId }),
  currentPeriodStart: t.field({ type: 'Timestamp', nullable: true, resolve: (s) => s.currentPeriodStart }),
  currentPeriodEnd: t.field({ type: 'Timestamp', nullable: true, resolve: (s) => s.currentPeriodEnd }),
  trialEndsAt: t.field({ type: 'Timestamp', nullable: true, resolve: (s) => s.trialEndsAt }),
  cancelAtPeriodEnd: t.boolean({ resolve: (s) => s.cancelAtPeriodEnd }),
  cancelledAt: t.field({ type: 'Timestamp', nullable: true, resolve: (s) => s.cancelledAt }),
  createdAt: t.field({ type: 'Timestamp', resolve: (s) => s.createdAt }),
  pausedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (s) => s.pausedAt }),
  nextRetryAt: t.field({ type: 'Timestamp', nullable: true, description: 'Dunning: when the unpaid renewal is retried next (subscription clock)', resolve: (s) => s.nextRetryAt }),
  clock: t.field({
    type: 'Timestamp',
    description: "The subscription's clock, Unix seconds: now, or ahead of it once a test clock advanced it",
    resolve: (s) => Math.floor(clockOf(s) / 1000),
  }),
});

/** The subscription with its current status (list rows, an order's and a payment's subscription); its id is its number. */
export const SubscriptionSummary = builder.prismaObject('Subscription', { name: 'SubscriptionSummary', fields: subscriptionFields });

const SubscriptionPlanItem = builder.simpleObject('SubscriptionPlanItem', {
  fields: (t) => ({ offerId: t.id(), productId: t.id(), unitPrice: t.int({ description: 'Minor units per unit' }), quantity: t.int() }),
});

/** GET by number: the subscription with its items (those of the order that started it), its buyer and its payments (first to last). */
const SubscriptionDetails = builder.prismaObject('Subscription', {
  variant: 'SubscriptionDetails',
  fields: (t) => ({
    ...subscriptionFields(t),
    items: t.field({
      type: [CartItem],
      description: 'The cart items of the order that started it, with their offers and products as they are now',
      resolve: async (s, _args, ctx) => subscriptionItems(ctx.prisma, await scopeOf(ctx, 'read'), s),
    }),
    planItems: t.field({
      type: [SubscriptionPlanItem],
      description: 'What renewals are priced from: the items of the last plan change, else those of the order that started it',
      resolve: (s, _args, ctx) => subscriptionPlanItems(ctx.prisma, s),
    }),
    user: t.relation('user', { nullable: true }),
    payments: t.relation('payments', {
      description: 'The first payment and every later one (renewals, plan changes), oldest first',
      query: { orderBy: [{ createdAt: 'asc' }, { sequence: 'asc' }, { id: 'asc' }] },
    }),
  }),
});

const SubscriptionList = builder.simpleObject('SubscriptionList', {
  fields: (t) => ({
    subscriptions: t.field({ type: [SubscriptionSummary] }),
    count: t.int({ nullable: true, description: 'How many subscriptions match the filters: on the first page (no cursor); null on the pages after it' }),
    cursor: t.string({ nullable: true, description: 'Pass it as cursor for the next page; null when hasMore is false' }),
    hasMore: t.boolean({ description: 'Whether a next page exists: loop while it is true' }),
  }),
});
const SubscriptionDetailsPayload = builder.simpleObject('SubscriptionDetailsPayload', { fields: (t) => ({ subscription: t.field({ type: SubscriptionDetails }) }) });

builder.queryFields((t) => ({
  subscriptions: t.field({
    type: SubscriptionList,
    description: 'Subscriptions of every status, newest first, a page at a time: loop on hasMore, passing cursor',
    args: {
      take: t.arg({ type: 'PageSize', description: `Page size, default ${DEFAULT_TAKE}; clamped to 1..100` }),
      cursor: t.arg.string({ description: 'data.cursor of the previous page, as it is (opaque; tied to the keys that read it)' }),
      createdFrom: t.arg({ type: 'Timestamp', description: 'Unix seconds (or milliseconds, as on orders); inclusive' }),
      createdTo: t.arg({ type: 'Timestamp', description: 'Unix seconds (the whole second, or milliseconds, as on orders); inclusive' }),
    },
    resolve: async (_root, args, ctx, info) =>
      listSubscriptions(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['subscriptions'] })),
  }),
  subscription: t.field({
    type: SubscriptionDetailsPayload,
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription id: its number, without # (a #-prefixed value resolves to nothing)' }) },
    resolve: async (_root, args, ctx, info) => ({
      subscription: await findSubscription(ctx.prisma, await scopeOf(ctx, 'read'), args.subscriptionIdOrNumber, queryFromInfo({ context: ctx, info, path: ['subscription'] })),
    }),
  }),
}));
