// The lifecycle's GraphQL fields (REST routes in ./lifecycle-routes.ts): cancel (now or at the
// interval's end), undo a scheduled cancel, pause, resume, and the test-mode helpers (advance a
// subscription's clock, replace its saved card by a sandbox test card). Each answers with the
// subscription after the change.
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { SubscriptionSummary } from '../orders/types.js';
import { saveTestPaymentMethod } from '../payments/test-helpers.js';
import { Unauthenticated, ValidationFailed } from '../core/errors.js';
import { advanceClock, clockOf, findSubscription, replacePaymentMethod, requestChange } from './requests.js';

builder.objectFields(SubscriptionSummary, (t) => ({
  pausedAt: t.expose('pausedAt', { type: 'Timestamp', nullable: true }),
  nextRetryAt: t.expose('nextRetryAt', { type: 'Timestamp', nullable: true, description: 'Dunning: when the unpaid renewal is retried next (subscription clock)' }),
  clock: t.field({
    type: 'Timestamp',
    description: "The subscription's clock, Unix seconds: now, or ahead of it once a test clock advanced it",
    resolve: (s) => Math.floor(clockOf(s) / 1000),
  }),
}));

const SubscriptionChangePayload = builder.simpleObject('SubscriptionChangePayload', {
  fields: (t) => ({ subscription: t.field({ type: SubscriptionSummary }) }),
});


/** cancelAtIntervalEnd wins; the deprecated cancelOption `endInterval` means the same; its other values are refused. */
function atIntervalEnd(cancelAtIntervalEnd: boolean | null | undefined, cancelOption: string | null | undefined): boolean {
  if (cancelAtIntervalEnd != null) return cancelAtIntervalEnd;
  if (cancelOption == null) return false;
  if (cancelOption !== 'endInterval') throw new ValidationFailed('cancelOption accepts only endInterval (deprecated: send cancelAtIntervalEnd)');
  return true;
}

builder.mutationFields((t) => ({
  cancelSubscription: t.field({
    type: SubscriptionChangePayload,
    description: 'Cancels now (nothing is charged after), or at the end of the paid interval with cancelAtIntervalEnd (undo it before then with undo-cancel)',
    args: {
      subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }),
      cancelAtIntervalEnd: t.arg.boolean({ description: 'true: stays active until the current period ends, then cancels' }),
      cancelOption: t.arg.string({ description: 'Deprecated: endInterval equals cancelAtIntervalEnd true', deprecationReason: 'Use cancelAtIntervalEnd' }),
    },
    resolve: async (_root, args, ctx) => {
      const scope = await scopeOf(ctx, 'write');
      const atPeriodEnd = atIntervalEnd(args.cancelAtIntervalEnd, args.cancelOption);
      return { subscription: await requestChange(ctx, scope, args.subscriptionIdOrNumber, { type: 'cancel', atPeriodEnd }) };
    },
  }),
  undoSubscriptionCancel: t.field({
    type: SubscriptionChangePayload,
    description: 'Takes back a cancel scheduled for the end of the interval, before it takes effect',
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => ({ subscription: await requestChange(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, { type: 'undoCancel' }) }),
  }),
  pauseSubscription: t.field({
    type: SubscriptionChangePayload,
    description: 'Pauses an active subscription: nothing is charged while paused',
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => ({ subscription: await requestChange(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, { type: 'pause' }) }),
  }),
  resumeSubscription: t.field({
    type: SubscriptionChangePayload,
    description: 'Resumes a paused subscription; paused past its period end, a new period starts and is charged now',
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => ({ subscription: await requestChange(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, { type: 'resume' }) }),
  }),
  advanceTestSubscriptionClock: t.field({
    type: SubscriptionChangePayload,
    description: "Test mode: moves the subscription's clock to `to`; every renewal, retry and scheduled cancel due by then runs, in order, before the answer",
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }), to: t.arg({ type: 'Timestamp', required: true, description: 'Unix seconds, after the subscription\'s clock' }) },
    resolve: async (_root, args, ctx) => ({ subscription: await advanceClock(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, args.to) }),
  }),
  replaceTestSubscriptionPaymentMethod: t.field({
    type: SubscriptionChangePayload,
    description: "Test mode: the subscription's saved card becomes this sandbox test card (as a payment-method update would); a past_due renewal is retried at once, an unpaid subscription renews now",
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }), testCard: t.arg.string({ required: true, description: "One of the sandbox's test card numbers" }) },
    resolve: async (_root, args, ctx) => {
      const scope = await scopeOf(ctx, 'write');
      if (scope.livemode) throw new Unauthenticated('Test helpers take test-mode keys only');
      const subscription = await findSubscription(ctx.prisma, scope, args.subscriptionIdOrNumber);
      const ref = await saveTestPaymentMethod(ctx.prisma, scope, subscription.processor, args.testCard);
      return { subscription: await replacePaymentMethod(ctx, scope, args.subscriptionIdOrNumber, ref) };
    },
  }),
}));
