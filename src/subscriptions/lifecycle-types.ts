// The lifecycle's GraphQL fields (REST routes in ./lifecycle-routes.ts): cancel (now or at the
// interval's end), undo a scheduled cancel, pause, resume, and the test-mode helpers (advance a
// subscription's clock, replace its saved card by a sandbox test card). Each answers with the
// subscription after the change.
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { SubscriptionSummary } from './types.js';
import { saveTestPaymentMethod, Payment } from '../payments/index.js';
import { Unauthenticated, ValidationFailed } from '../core/errors.js';
import { findSubscription } from './queries.js';
import { advanceClock, chargeSubscription, replacePaymentMethod, requestChange } from './requests.js';
import { upcomingPayment } from './queries.js';

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

const UpcomingTax = builder.simpleObject('UpcomingPaymentTax', {
  fields: (t) => ({ type: t.string(), rate: t.float({ description: '0.19 for 19%' }), jurisdiction: t.string(), amount: t.int({ description: 'Minor units' }) }),
});

const UpcomingPayment = builder.simpleObject('UpcomingPayment', {
  description: 'The next charge of a subscription, computed by the code that will charge it',
  fields: (t) => ({
    object: t.string(),
    subscriptionId: t.string({ description: 'The subscription number' }),
    date: t.field({ type: 'Timestamp', description: 'When it is charged (the subscription clock)' }),
    amount: t.int({ description: 'What is charged, minor units (tax included)' }),
    subtotal: t.int({ description: "The items' prices (unitPrice × quantity)" }),
    discount: t.int({ description: "The checkout's discount on this period (minor units), per its duration: once (the first period only), repeating, forever" }),
    credit: t.int({ description: "A downgrade's credit taken off this charge (minor units)" }),
    tax: t.int(),
    taxInclusive: t.boolean({ description: 'Whether the item prices include the tax' }),
    taxes: t.field({ type: [UpcomingTax], description: 'The tax by type, rate and jurisdiction' }),
    currency: t.string(),
    retry: t.boolean({ description: 'Whether it is a dunning retry of an unpaid renewal' }),
  }),
});

const SubscriptionItemInput = builder.inputType('SubscriptionItemInput', {
  description: 'An item of a subscription create, update or charge body; unitPrice wins over value, value over price',
  fields: (t) => ({
    unitPrice: t.int({ description: 'Minor units per unit' }),
    value: t.int({ description: 'Deprecated: unitPrice', deprecationReason: 'Use unitPrice' }),
    price: t.int({ description: 'Deprecated: unitPrice', deprecationReason: 'Use unitPrice' }),
    quantity: t.int({ description: 'Units, default 1' }),
  }),
});

const SubscriptionChargePayload = builder.simpleObject('SubscriptionChargePayload', {
  fields: (t) => ({ subscription: t.field({ type: SubscriptionSummary }), payment: t.field({ type: Payment }) }),
});

builder.queryFields((t) => ({
  subscriptionUpcomingPayment: t.field({
    type: builder.simpleObject('UpcomingPaymentPayload', { fields: (f) => ({ upcomingPayment: f.field({ type: UpcomingPayment, nullable: true, description: 'null when nothing is due to be charged' }) }) }),
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => {
      const subscription = await findSubscription(ctx.prisma, await scopeOf(ctx, 'read'), args.subscriptionIdOrNumber);
      const next = await upcomingPayment(ctx.prisma, subscription);
      return {
        upcomingPayment: next && {
          object: 'upcoming_payment', subscriptionId: subscription.number, date: next.at, amount: next.amount, subtotal: next.subtotal, discount: next.discount, credit: next.credit, tax: next.tax,
          taxInclusive: next.taxInclusive, taxes: next.taxes, currency: subscription.currency, retry: next.retry,
        },
      };
    },
  }),
}));

builder.mutationFields((t) => ({
  chargeSubscription: t.field({
    type: SubscriptionChargePayload,
    description: 'Charges the items now on the saved payment method: a payment {orderNumber}-{n} of the initial order, PAID or FAILED (no retries)',
    args: {
      subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }),
      items: t.arg({ type: [SubscriptionItemInput], required: true }),
    },
    resolve: async (_root, args, ctx) => chargeSubscription(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, args.items),
  }),
  endSubscriptionTrial: t.field({
    type: SubscriptionChangePayload,
    description: 'Ends the trial now: the first period is charged at once (active, or past_due when the charge fails)',
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => ({ subscription: await requestChange(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, { type: 'endTrial' }) }),
  }),
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
