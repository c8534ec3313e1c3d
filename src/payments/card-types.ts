// Card input and the sandbox's tokenizing endpoint (buyer route POST /sandbox/payment-methods):
// the hosted pages send the card there from the browser and pay with the payment method it
// returns, the same shape as Stripe.js with Stripe (./card-source.ts).
import { ValidationFailed } from '../core/errors.js';
import { builder } from '../graphql/builder.js';
import { CardDeclined, ChargeNotFound, InvalidChargeState, InvalidProcessorRequest } from './processors/processor.js';
import { SandboxProcessor } from './processors/sandbox.js';
import { applySandboxWebhook } from './sandbox-webhook-relay.js';

export const CheckoutCard = builder.inputType('CheckoutCard', {
  description: 'Card details: passed to the processor, never stored or logged',
  fields: (t) => ({
    number: t.string({ required: true, description: 'Digits; spaces and dashes are ignored' }),
    expMonth: t.int({ required: true }),
    expYear: t.int({ required: true, description: 'Four digits, or two (20xx)' }),
    cvc: t.string({ required: true }),
  }),
});
const SandboxPaymentMethod = builder.simpleObject('SandboxPaymentMethod', {
  fields: (t) => ({
    paymentMethod: t.string({ description: 'pm_sbx_tok_…: pay or save with it in place of card' }),
    brand: t.string(),
    last4: t.string(),
  }),
});

const SandboxAuthentication = builder.simpleObject('SandboxAuthentication', {
  fields: (t) => ({ status: t.string({ description: "succeeded or failed: the charge's outcome; the payment follows through the processor's webhook path" }) }),
});

export const CardNextAction = builder.simpleObject('CardNextAction', {
  description:
    "A pending card payment waits for the buyer's authentication (3-D Secure). With Stripe, clientSecret is the PaymentIntent's, for stripe.handleNextAction; with the sandbox, it is sent to POST /sandbox/authentications. Not stored by us",
  fields: (t) => ({ clientSecret: t.string() }),
});

builder.mutationFields((t) => ({
  tokenizeSandboxCard: t.field({
    type: SandboxPaymentMethod,
    description: "The sandbox's card tokenizer, for buyers' browsers: checks the card's details (400 when malformed) and returns a payment method for one use. 400 with another processor than the sandbox",
    args: { card: t.arg({ type: CheckoutCard, required: true }) },
    resolve: async (_root, args, ctx) => {
      if (ctx.processor.name !== 'sandbox') throw new ValidationFailed(`This deployment takes cards through its processor (${ctx.processor.name}), not the sandbox`);
      try {
        const token = await new SandboxProcessor({ prisma: ctx.prisma }).tokenizeCard(args.card);
        return { paymentMethod: token.ref, brand: token.brand ?? '', last4: token.last4 ?? '' };
      } catch (error) {
        if (error instanceof CardDeclined) throw new ValidationFailed(`card: ${error.message}`);
        throw error;
      }
    },
  }),
  authenticateSandboxCharge: t.field({
    type: SandboxAuthentication,
    description:
      "The sandbox's 3-D Secure step, for buyers' browsers (as Stripe's test authentication page): with the nextAction's clientSecret, completed true pays the pending card charge (or saves the pending setup's card) and false fails it. 400 with another processor than the sandbox, an unknown secret, or a charge no longer pending",
    args: { clientSecret: t.arg.string({ required: true }), completed: t.arg.boolean({ required: true }) },
    resolve: async (_root, args, ctx) => {
      if (ctx.processor.name !== 'sandbox') throw new ValidationFailed(`This deployment authenticates cards through its processor (${ctx.processor.name}), not the sandbox`);
      const sandbox = new SandboxProcessor({ prisma: ctx.prisma });
      let webhook;
      try {
        webhook = await sandbox.authenticate(args.clientSecret, args.completed);
      } catch (error) {
        if (error instanceof InvalidProcessorRequest || error instanceof InvalidChargeState || error instanceof ChargeNotFound) throw new ValidationFailed(`clientSecret: ${error.message}`);
        throw error;
      }
      if (webhook) await applySandboxWebhook(ctx.prisma, ctx.temporal, sandbox, webhook);
      return { status: args.completed ? 'succeeded' : 'failed' };
    },
  }),
}));
