// The payment-method sessions' GraphQL fields (REST routes in ./routes.ts).
import { builder } from '../graphql/builder.js';
import { CardNextAction, CheckoutCard } from '../payments/index.js';
import { mintSession, completeSession, SESSION_LIFETIME_SECONDS } from './service.js';

const PaymentMethodSession = builder.simpleObject('PaymentMethodSession', {
  fields: (t) => ({
    sessionToken: t.string({ description: 'Give only this to the browser; valid for this subscription only, once' }),
    expiresAt: t.field({ type: 'Timestamp', description: `Unix seconds, ${SESSION_LIFETIME_SECONDS / 60} minutes after minting` }),
    url: t.string({ description: 'The hosted page where the buyer enters the new card' }),
  }),
});

const SavedPaymentMethod = builder.simpleObject('SessionPaymentMethod', {
  fields: (t) => ({ brand: t.string({ nullable: true }), last4: t.string({ nullable: true }) }),
});

const PaymentMethodSessionCompletion = builder.simpleObject('PaymentMethodSessionCompletion', {
  description: "The subscription's status after the update (a past_due or unpaid one is active again when the retried renewal is paid)",
  fields: (t) => ({
    status: t.string(),
    paymentMethod: t.field({ type: SavedPaymentMethod, nullable: true, description: 'The saved card; null while nextAction is set' }),
    nextAction: t.field({
      type: CardNextAction,
      nullable: true,
      description: "The card needs the buyer's authentication (3-D Secure) before it is saved: authenticate in the browser, then complete again with neither card nor paymentMethod",
    }),
  }),
});

builder.mutationFields((t) => ({
  createPaymentMethodSession: t.field({
    type: PaymentMethodSession,
    description:
      'Mints a payment-method session for the subscription (active, trialing, past_due, unpaid or paused; else 400). 403 when the workspace setting embeddedPaymentMethodUpdate is off; 429 above 10 sessions an hour per subscription',
    args: { subscriptionIdOrNumber: t.arg.string({ required: true, description: 'The subscription number (its id), without #' }) },
    resolve: async (_root, args, ctx) => mintSession(ctx, await ctx.principal('write'), args.subscriptionIdOrNumber, { origin: ctx.origin, now: new Date() }),
  }),
  completePaymentMethodSession: t.field({
    type: PaymentMethodSessionCompletion,
    description:
      "Saves the card (a zero-amount check at the processor) as the subscription's payment method and retires the session; a past_due or unpaid renewal is retried at once. A card that needs 3-D Secure answers nextAction (nothing saved yet); completing again without a card then continues that setup. 402 declined (the session stays open); 404 unknown token or another subscription's; 400 expired or used",
    args: {
      subscriptionId: t.arg({ type: 'UUID', required: true }),
      sessionToken: t.arg.string({ required: true }),
      card: t.arg({ type: CheckoutCard, description: 'Or paymentMethod (neither: continue the setup that answered nextAction); refused with the Stripe processor unless ALLOW_RAW_CARD_DATA is set' }),
      paymentMethod: t.arg.string({ description: "In place of card: a payment method the buyer's browser tokenized (Stripe.js's pm_…, or the sandbox's POST /sandbox/payment-methods)" }),
    },
    resolve: async (_root, args, ctx) => completeSession(ctx, args.subscriptionId, args.sessionToken, { card: args.card, paymentMethod: args.paymentMethod }, new Date()),
  }),
}));
