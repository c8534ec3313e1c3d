// GraphQL fields of subscription create and update (REST routes in ./lifecycle-routes.ts), and the
// subscription's current items on its details.
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { Payment } from '../payments/index.js';
import { createSubscription, updateSubscription } from './plan.js';
import { SubscriptionSummary } from './types.js';

const SubscriptionPlanItemInput = builder.inputType('SubscriptionPlanItemInput', {
  description: "An item of a subscription create or update body: an offer and its price; unitPrice wins over value, value over price, and without any the offer's price is taken",
  fields: (t) => ({
    offerId: t.field({ type: 'UUID', description: "A subscription offer of the workspace (create: required; update: default the subscription's first item's offer)" }),
    unitPrice: t.int({ description: "Minor units per unit (default the offer's price)" }),
    value: t.int({ description: 'Deprecated: unitPrice', deprecationReason: 'Use unitPrice' }),
    price: t.int({ description: 'Deprecated: unitPrice', deprecationReason: 'Use unitPrice' }),
    quantity: t.int({ description: 'Units, default 1' }),
  }),
});

const SubscriptionPlanPayload = builder.simpleObject('SubscriptionPlanPayload', {
  fields: (t) => ({
    subscription: t.field({ type: SubscriptionSummary }),
    payment: t.field({ type: Payment, nullable: true, description: 'The payment this made: the first one (create), the plan-change payment (update; null when nothing was charged)' }),
  }),
});

const ITEMS = 'One to 20 items; every offer on the same currency and interval';

builder.mutationFields((t) => ({
  createSubscription: t.field({
    type: SubscriptionPlanPayload,
    description: "Starts a subscription for an existing buyer, charged now off-session on the card their latest subscription saved (a trial offer charges nothing now)",
    args: { userId: t.arg({ type: 'UUID', required: true, description: 'The buyer (a user of the workspace)' }), items: t.arg({ type: [SubscriptionPlanItemInput], required: true, description: ITEMS }) },
    resolve: async (_root, args, ctx) => createSubscription(ctx, await scopeOf(ctx, 'write'), args.userId, args.items, ctx.idempotencyKey),
  }),
  updateSubscription: t.field({
    type: SubscriptionPlanPayload,
    description: "Changes the subscription's items (a plan change): prorated for the rest of the period; an upgrade is charged now as a plan-change payment and applies once paid, a downgrade's credit goes to the next renewals",
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }), items: t.arg({ type: [SubscriptionPlanItemInput], required: true, description: ITEMS }) },
    resolve: async (_root, args, ctx) => updateSubscription(ctx, await scopeOf(ctx, 'write'), args.subscriptionIdOrNumber, args.items, ctx.idempotencyKey),
  }),
}));
