import { queryFromInfo } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Offer as OfferRow } from '../generated/prisma/client.js';
import { OfferStatus, RecurringInterval } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { SuccessPayload } from '../graphql/payloads.js';
import { currencyDecimals } from '../reference/currencies.js';
import * as offers from './service.js';
import { ProductTypeEnum, Variant } from '../products/index.js';

export const OfferStatusEnum = builder.enumType(OfferStatus, { name: 'OfferStatus' });
export const RecurringIntervalEnum = builder.enumType(RecurringInterval, { name: 'RecurringInterval' });
const OfferOrderBy = builder.enumType('OfferOrderBy', { values: ['createdAt', 'price', 'name', 'soldItems'] as const });

/** The spec's offer fields (plus productId, variantId, currencyDecimals, createdAt), shared by the list and details types. */
const offerFields = <Model extends PrismaTypes['Offer'], Shape extends OfferRow>(t: PothosSchemaTypes.PrismaObjectFieldBuilder<typeof builder.$inferSchemaTypes, Model, Shape>) => ({
  object: t.string({ resolve: () => 'offer' }),
  id: t.id({ resolve: (o) => o.id }),
  internalId: t.string({ nullable: true, resolve: (o) => o.internalId }),
  price: t.int({ description: 'Minor units of currency; 0 means free', resolve: (o) => o.price }),
  originalPrice: t.int({ nullable: true, resolve: (o) => o.originalPrice }),
  recurringInterval: t.field({ type: RecurringIntervalEnum, nullable: true, description: 'null for one-time offers', resolve: (o) => o.recurringInterval }),
  recurringIntervalCount: t.int({ nullable: true, resolve: (o) => o.recurringIntervalCount }),
  trialInterval: t.field({ type: RecurringIntervalEnum, nullable: true, resolve: (o) => o.trialInterval }),
  trialIntervalCount: t.int({ nullable: true, resolve: (o) => o.trialIntervalCount }),
  currency: t.string({ resolve: (o) => o.currency }),
  limit: t.int({ nullable: true, description: 'Availability cap; null means unlimited', resolve: (o) => o.limit }),
  soldItems: t.int({ resolve: (o) => o.soldItems }),
  status: t.field({ type: OfferStatusEnum, resolve: (o) => o.status }),
  name: t.string({ nullable: true, resolve: (o) => o.name }),
  description: t.string({ nullable: true, resolve: (o) => o.description }),
  region: t.string({ resolve: (o) => o.region }),
  platform: t.string({ resolve: (o) => o.platform }),
  gtin: t.string({ nullable: true, resolve: (o) => o.gtin }),
  warningMessage: t.string({ nullable: true, resolve: (o) => o.warningMessage }),
  productId: t.id({ resolve: (o) => o.productId }),
  variantId: t.id({ nullable: true, resolve: (o) => o.variantId }),
  currencyDecimals: t.int({ nullable: true, resolve: (o) => currencyDecimals(o.currency) ?? null }),
  createdAt: t.field({ type: 'Timestamp', resolve: (o) => o.createdAt }),
});

export const Offer = builder.prismaObject('Offer', { fields: offerFields });

builder.asEntity(Offer, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => offers.findOffer(ctx.prisma, await scopeOf(ctx, 'read'), id),
});

/** The product an offer belongs to, as a reference: the details stay acyclic (no product -> offers). */
const ProductReference = builder.prismaObject('Product', {
  variant: 'ProductReference',
  fields: (t) => ({
    object: t.string({ resolve: () => 'product' }),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.expose('type', { type: ProductTypeEnum }),
    slug: t.exposeString('slug'),
  }),
});

/** GET by id: the offer with its product reference and its variant (delivery adds the key stock of key-based products: src/delivery/inventory-types.ts). */
export const OfferDetails = builder.prismaObject('Offer', {
  variant: 'OfferDetails',
  fields: (t) => ({
    ...offerFields(t),
    product: t.relation('product', { type: ProductReference }),
    variant: t.relation('variant', { nullable: true, type: Variant }),
  }),
});

const OfferList = builder.simpleObject('OfferList', {
  fields: (t) => ({ offers: t.field({ type: [Offer] }), count: t.int({ nullable: true }) }),
});
const OfferPayload = builder.simpleObject('OfferPayload', { fields: (t) => ({ offer: t.field({ type: Offer }) }) });
const OfferDetailsPayload = builder.simpleObject('OfferDetailsPayload', { fields: (t) => ({ offer: t.field({ type: OfferDetails }) }) });

const offerFieldArgs = builder.args((t) => ({
  internalId: t.string(),
  name: t.string(),
  description: t.string(),
  originalPrice: t.int({ description: 'Minor units, >= 0' }),
  recurringInterval: t.field({ type: RecurringIntervalEnum, description: 'Makes a subscription offer; null makes it one-time' }),
  recurringIntervalCount: t.int({ description: '>= 1; default 1 with recurringInterval' }),
  trialInterval: t.field({ type: RecurringIntervalEnum, description: 'Subscription offers only' }),
  trialIntervalCount: t.int({ description: '>= 1; default 1 with trialInterval' }),
  limit: t.int({ description: 'Availability cap (>= 0); null means unlimited' }),
  status: t.field({ type: OfferStatusEnum, description: 'Default ACTIVE' }),
  region: t.string({ description: '1 to 64 characters; default WORLDWIDE' }),
  platform: t.string({ description: '1 to 64 characters; default OTHER' }),
  gtin: t.string({ description: '8, 12, 13 or 14 digits' }),
  warningMessage: t.string(),
  variantId: t.field({ type: 'UUID', description: "A live variant of the offer's product" }),
}));

builder.queryFields((t) => ({
  offers: t.field({
    type: OfferList,
    description: 'Offers, newest first by default',
    args: {
      ...offsetListArgs,
      termOrId: t.arg.string({ description: 'Matches name or description, or the id' }),
      regions: t.arg.stringList(),
      platforms: t.arg.stringList(),
      minPrice: t.arg.int(),
      maxPrice: t.arg.int(),
      minAvailability: t.arg.int({ description: 'limit - soldItems at least this; unlimited offers always match' }),
      maxAvailability: t.arg.int({ description: 'limit - soldItems at most this; unlimited offers never match' }),
      recurringInterval: t.arg({ type: RecurringIntervalEnum }),
      recurringIntervalCount: t.arg.int(),
      product: t.arg({ type: 'UUID', description: 'A product id' }),
      tags: t.arg.stringList({ description: 'Offers whose product has any of these tags' }),
      orderBy: t.arg({ type: OfferOrderBy }),
    },
    resolve: async (_root, args, ctx, info) =>
      offers.listOffers(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['offers'] })),
  }),
  offer: t.field({
    type: OfferDetailsPayload,
    args: { offerId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx, info) => ({
      offer: await offers.findOffer(ctx.prisma, await scopeOf(ctx, 'read'), args.offerId, queryFromInfo({ context: ctx, info, path: ['offer'] })),
    }),
  }),
}));

builder.mutationFields((t) => ({
  createOffer: t.field({
    type: OfferPayload,
    args: {
      productId: t.arg({ type: 'UUID', required: true }),
      price: t.arg.int({ required: true, description: 'Minor units of currency; 0 makes a free offer' }),
      currency: t.arg.string({ required: true }),
      ...offerFieldArgs,
    },
    resolve: async (_root, args, ctx, info) => ({
      offer: await offers.createOffer(ctx.prisma, await scopeOf(ctx, 'write'), args, queryFromInfo({ context: ctx, info, path: ['offer'] })),
    }),
  }),
  updateOffer: t.field({
    type: OfferPayload,
    args: {
      offerId: t.arg({ type: 'UUID', required: true }),
      id: t.arg({ type: 'UUID', description: 'When sent, must equal offerId' }),
      price: t.arg.int(),
      currency: t.arg.string(),
      ...offerFieldArgs,
    },
    resolve: async (_root, { offerId, ...fields }, ctx, info) => ({
      offer: await offers.updateOffer(ctx.prisma, await scopeOf(ctx, 'write'), offerId, fields, queryFromInfo({ context: ctx, info, path: ['offer'] })),
    }),
  }),
  archiveOffer: t.field({
    type: SuccessPayload,
    args: { offerId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => offers.archiveOffer(ctx.prisma, await scopeOf(ctx, 'write'), args.offerId),
  }),
}));
