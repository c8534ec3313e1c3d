import { queryFromInfo } from '@pothos/plugin-prisma';
import { CheckoutElementStatus } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { inScope } from '../core/scope.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { offerReferences, withOfferReferences } from './events.js';
import * as elements from './service.js';

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
