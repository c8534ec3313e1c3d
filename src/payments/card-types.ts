// Card input and the sandbox's tokenizing endpoint (buyer route POST /sandbox/payment-methods):
// the hosted pages send the card there from the browser and pay with the payment method it
// returns, the same shape as Stripe.js with Stripe (./card-source.ts).
import { ValidationFailed } from '../core/errors.js';
import { builder } from '../graphql/builder.js';
import { CardDeclined } from './processors/processor.js';
import { SandboxProcessor } from './processors/sandbox.js';

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
}));
