import { queryFromInfo } from '@pothos/plugin-prisma';
import { CheckoutElementStatus } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { CardNextAction, CheckoutCard, paymentNextAction, Payment } from '../payments/index.js';
import { inScope } from '../core/scope.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { offerReferences, withOfferReferences } from './events.js';
import * as elements from './service.js';
import { MAX_QUANTITY, MIN_QUANTITY } from './pricing.js';
import * as sale from './sale-service.js';
import { Order } from '../orders/index.js';
import { TaxComponentRef, TaxReasonEnum } from '../tax/index.js';

export const CheckoutElementStatusEnum = builder.enumType(CheckoutElementStatus, { name: 'CheckoutElementStatus' });

/** An offer as a checkout element lists it: a reference, not the full offer. */
const OfferReference = builder.simpleObject('OfferReference', {
  fields: (t) => ({ object: t.string(), id: t.id(), internalId: t.string({ nullable: true }) }),
});

export const CheckoutElement = builder.prismaObject('CheckoutElement', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'checkoutElement' }),
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true }),
    status: t.expose('status', { type: CheckoutElementStatusEnum }),
    subscriptionOffer: t.exposeBoolean('subscriptionOffer', { description: 'True when the single offer is a subscription offer' }),
    offers: t.field({
      type: [OfferReference],
      description: 'In the order given at creation',
      select: withOfferReferences,
      resolve: (element) => offerReferences(element),
    }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});

builder.asEntity(CheckoutElement, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => {
    const scope = await scopeOf(ctx, 'read');
    return ctx.prisma.checkoutElement.findFirst({ where: { id, ...inScope(scope), archivedAt: null } });
  },
});

const CheckoutElementList = builder.simpleObject('CheckoutElementList', {
  fields: (t) => ({ checkoutElements: t.field({ type: [CheckoutElement] }), count: t.int({ description: 'Always filled in' }) }),
});
const CheckoutElementPayload = builder.simpleObject('CheckoutElementPayload', {
  fields: (t) => ({ checkoutElement: t.field({ type: CheckoutElement }) }),
});

// The list has a fixed order, so it takes the common parameters without orderDirection.
const { skip, take, archived, withArchived } = offsetListArgs;

builder.queryFields((t) => ({
  checkoutElements: t.field({
    type: CheckoutElementList,
    description: 'Checkout elements, newest first; take defaults to 10',
    args: { skip, take, archived, withArchived },
    resolve: async (_root, args, ctx, info) =>
      elements.listCheckoutElements(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['checkoutElements'] })),
  }),
}));

builder.mutationFields((t) => ({
  createCheckoutElement: t.field({
    type: CheckoutElementPayload,
    args: {
      offersIds: t.arg({ type: ['UUID'], required: true, description: `1 to ${elements.MAX_OFFERS} distinct offer ids` }),
      name: t.arg.string(),
      status: t.arg({ type: CheckoutElementStatusEnum, description: 'Default ACTIVE' }),
      customFields: t.arg({ type: 'JSON', description: 'Not supported: sending it at all (even null) is rejected with 400' }),
    },
    resolve: async (_root, args, ctx, info) => ({
      checkoutElement: await elements.createCheckoutElement(ctx.prisma, await scopeOf(ctx, 'write'), args, queryFromInfo({ context: ctx, info, path: ['checkoutElement'] })),
    }),
  }),
}));

// The hosted checkout's sale (buyer routes, no API keys): the quote and the order. The scope is
// the checkout element's (sale-service.ts); these resolvers never ask for the principal.

const CheckoutPaymentMethod = builder.enumType('CheckoutPaymentMethod', {
  values: ['card', 'paypal', 'manual'] as const,
  description: 'card (default), paypal (PayPal-type wallet, confirmed later), manual (bank transfer, confirmed when the money arrives)',
});

const CheckoutBillingDetails = builder.inputType('CheckoutBillingDetails', {
  fields: (t) => ({
    countryCode: t.string({ required: true, description: 'Two-letter ISO 3166-1 code (XK included)' }),
    postalCode: t.string({ description: 'Required for the countries that need one (US, CA, GB, DE, FR, ...)' }),
    state: t.string({ description: 'Required in the US and Canada (two-letter code): tax cannot be determined without it (422)' }),
    taxId: t.string({ description: "A business buyer's EU or UK VAT number of the billing country, checked with its check digits (400 otherwise): the order is reverse charged" }),
  }),
});


const CheckoutQuoteLine = builder.simpleObject('CheckoutQuoteLine', {
  fields: (t) => ({
    offerId: t.id(),
    productId: t.id(),
    name: t.string({ description: "The offer's name, or its product's" }),
    quantity: t.int(),
    unitPrice: t.int({ description: 'Minor units' }),
    subtotal: t.int({ description: 'unitPrice * quantity' }),
    discount: t.int({ description: "The line's share of the discount" }),
    tax: t.int({ description: "The line's tax on subtotal - discount (0 until a country is given)" }),
    total: t.int({ description: 'subtotal - discount, plus tax unless taxInclusive' }),
    taxInclusive: t.boolean({ description: 'Whether the price includes the tax (the workspace setting pricesIncludeTax)' }),
    taxReason: t.field({ type: TaxReasonEnum, nullable: true, description: "Why less tax than the location's, or none, is charged on the line; null when it is charged in full or not calculated yet" }),
  }),
});

const CheckoutQuoteDiscount = builder.simpleObject('CheckoutQuoteDiscount', {
  fields: (t) => ({
    id: t.id(),
    type: t.string({ description: 'code or sale' }),
    name: t.string({ nullable: true }),
    amountType: t.string({ description: 'fixed or percentage' }),
    amount: t.string({ description: 'As the discount shows it: a percentage, or minor units' }),
    discountCode: t.string({ nullable: true }),
    amountOff: t.int({ description: 'What it takes off this order, minor units' }),
  }),
});

const CheckoutQuote = builder.simpleObject('CheckoutQuote', {
  fields: (t) => ({
    checkoutElementId: t.id(),
    livemode: t.boolean(),
    currency: t.string(),
    lines: t.field({ type: [CheckoutQuoteLine], description: "One per offer of the element, in the element's order" }),
    subtotal: t.int(),
    discount: t.field({ type: CheckoutQuoteDiscount, nullable: true, description: 'The discount applied: the code sent, or else the best automatic sale' }),
    discountRejection: t.string({ nullable: true, description: 'Why the discountCode sent is not applied (paying with it is 400)' }),
    tax: t.int({ description: 'The sum of the lines\' tax' }),
    taxInclusive: t.boolean({ description: 'Whether the prices include the tax (then total does not add it)' }),
    taxCalculated: t.boolean({ description: 'false while no billingDetails are sent: tax is 0 until the buyer\'s country is known' }),
    taxes: t.field({ type: [TaxComponentRef], description: 'The taxes of all lines, summed per type, rate and jurisdiction' }),
    taxReason: t.field({ type: TaxReasonEnum, nullable: true, description: "Why less tax than the location's, or none, is charged: a reason a line gives for the buyer or the location (reverse_charge, not_registered, no_data), else the one every line gives; null otherwise" }),
    total: t.int(),
    requiresPayment: t.boolean({ description: 'false when the total is 0: no card is needed' }),
  }),
});

const CheckoutQuotePayload = builder.simpleObject('CheckoutQuotePayload', { fields: (t) => ({ quote: t.field({ type: CheckoutQuote }) }) });
const CheckoutOrderPayload = builder.simpleObject('CheckoutOrderPayload', {
  fields: (t) => ({
    order: t.field({ type: Order }),
    payment: t.field({ type: Payment }),
    nextAction: t.field({ type: CardNextAction, nullable: true, description: "Set while the card payment is PENDING for the buyer's authentication (3-D Secure): complete it in the browser, then repeat the request with the same Idempotency-Key for the outcome" }),
  }),
});

const saleArgs = builder.args((t) => ({
  checkoutElementId: t.field({ type: 'UUID', required: true }),
  quantity: t.int({ description: `Units of every offer of the element, ${MIN_QUANTITY} to ${MAX_QUANTITY} (default 1; svc-quantity)` }),
  discountCode: t.string({ description: 'Matched ignoring case (svc-discount-code); without one the best automatic sale applies' }),
}));

builder.queryFields((t) => ({
  checkoutQuote: t.field({
    type: CheckoutQuotePayload,
    description: 'What an order through the checkout element would cost now: lines, the discount applied (or why not), tax, total. Takes the body of createCheckoutOrder; email, customFields, method and card are not needed and are ignored',
    args: {
      ...saleArgs,
      billingDetails: t.arg({ type: CheckoutBillingDetails, description: 'Optional here; checked when sent' }),
      email: t.arg.string({ description: 'Ignored' }),
      customFields: t.arg({ type: 'JSON', description: 'Ignored' }),
      method: t.arg({ type: CheckoutPaymentMethod, description: 'Ignored' }),
    },
    resolve: async (_root, { checkoutElementId, ...request }, ctx) => ({ quote: await sale.quoteCheckout(ctx.prisma, checkoutElementId, request) }),
  }),
}));

builder.mutationFields((t) => ({
  createCheckoutOrder: t.field({
    type: CheckoutOrderPayload,
    description:
      'Places an order through the checkout element and pays it: the order and its first payment as GET /v0/orders/{id} and GET /v0/payments/{id} show them. ' +
      'A card payment is PAID, or PENDING while the card needs authentication; paypal and manual stay PENDING until confirmed; a total of 0 is PAID at once with no card. ' +
      'A declined card is 402 (the FAILED order and payment stay). Idempotent with an Idempotency-Key header',
    args: {
      ...saleArgs,
      email: t.arg.string({ required: true, description: "The buyer: the workspace's user with this email (any case), created when new" }),
      billingDetails: t.arg({ type: CheckoutBillingDetails, required: true }),
      customFields: t.arg({ type: 'JSON', description: 'Per cart item: {<offerId>: {<fieldId>: <string>}}' }),
      method: t.arg({ type: CheckoutPaymentMethod, description: 'Default card' }),
      card: t.arg({ type: CheckoutCard, description: 'For method card when the total is above 0, or paymentMethod; refused with the Stripe processor unless ALLOW_RAW_CARD_DATA is set' }),
      paymentMethod: t.arg.string({ description: "In place of card: a payment method the buyer's browser tokenized (Stripe.js's pm_…, or the sandbox's POST /sandbox/payment-methods)" }),
    },
    resolve: async (_root, { checkoutElementId, ...request }, ctx, info) => {
      const placed = await sale.createCheckoutOrder(ctx, checkoutElementId, request, ctx.idempotencyKey);
      const read = () =>
        Promise.all([
          ctx.prisma.order.findUniqueOrThrow({ ...queryFromInfo({ context: ctx, info, path: ['order'] }), where: { id: placed.orderId } }),
          ctx.prisma.payment.findUniqueOrThrow({ ...queryFromInfo({ context: ctx, info, path: ['payment'] }), where: { id: placed.paymentId } }),
        ]);
      let [order, payment] = await read();
      // The payment's workflow moves the payment and its order in one transaction, which may commit
      // between the two reads (a repeated request while the processor's answer is applied): one
      // PENDING and the other not, read both again, after that commit. The common answer costs no more.
      if ((order.status === 'PENDING') !== (payment.status === 'PENDING')) [order, payment] = await read();
      // Only a payment the checkout left PENDING can wait for the buyer (3-D Secure): a final one reads nothing more.
      return { order, payment, nextAction: placed.status === 'PENDING' ? await paymentNextAction(ctx.prisma, ctx.processor, placed.paymentId) : null };
    },
  }),
}));
