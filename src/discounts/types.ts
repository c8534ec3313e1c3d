import { queryFromInfo, type PrismaModelTypes } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import { DiscountAmountType, DiscountDuration, DiscountStatus, DiscountType } from '../generated/prisma/enums.js';
import type { Discount as DiscountRow } from '../generated/prisma/client.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { SuccessPayload } from '../graphql/payloads.js';
import { formatAmount, timestampOrNull } from './events.js';
import * as discounts from './service.js';

export const DiscountTypeEnum = builder.enumType(DiscountType, { name: 'DiscountType' });
export const DiscountAmountTypeEnum = builder.enumType(DiscountAmountType, { name: 'DiscountAmountType' });
export const DiscountStatusEnum = builder.enumType(DiscountStatus, { name: 'DiscountStatus' });
const DiscountDurationEnum = builder.enumType(DiscountDuration, {
  name: 'DiscountDuration',
  description: "Which periods of a subscription it discounts: once (the first), repeating (those starting within durationInMonths of the subscription's start), forever",
});
const DiscountOrderBy = builder.enumType('DiscountOrderBy', { values: ['createdAt', 'name', 'amount'] as const });

type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** The spec's discount fields (plus includedOffers, timezone, createdAt), shared by both discount types. */
const discountFields = <Model extends PrismaModelTypes & PrismaTypes['Discount'], Shape extends DiscountRow>(
  t: PothosSchemaTypes.PrismaObjectFieldBuilder<SchemaTypes, Model, Shape>,
) => ({
  object: t.string({ resolve: () => 'discount' }),
  id: t.id({ resolve: (d) => d.id }),
  type: t.field({ type: DiscountTypeEnum, resolve: (d) => d.type }),
  name: t.string({ nullable: true, resolve: (d) => d.name }),
  amount: t.string({ description: 'Percent (0 < x <= 100) or minor units of currency, as a decimal string', resolve: (d) => formatAmount(d.amount) }),
  amountType: t.field({ type: DiscountAmountTypeEnum, resolve: (d) => d.amountType }),
  discountCode: t.string({ nullable: true, resolve: (d) => d.discountCode }),
  validFrom: t.field({ type: 'Timestamp', nullable: true, resolve: (d) => timestampOrNull(d.validFrom) }),
  validUntil: t.field({ type: 'Timestamp', nullable: true, resolve: (d) => timestampOrNull(d.validUntil) }),
  purchaseLimit: t.int({ nullable: true, resolve: (d) => d.purchaseLimit }),
  duration: t.field({ type: DiscountDurationEnum, resolve: (d) => d.duration }),
  durationInMonths: t.int({ nullable: true, description: 'How long a repeating discount lasts; null for the others', resolve: (d) => d.durationInMonths }),
  timesUsed: t.int({ resolve: (d) => d.timesUsed }),
  status: t.field({ type: DiscountStatusEnum, resolve: (d) => d.status }),
  includesAllOffers: t.boolean({ resolve: (d) => d.includedOfferIds.length === 0 }),
  includedOffers: t.stringList({ description: 'Offer ids; empty when the discount applies to every offer', resolve: (d) => d.includedOfferIds }),
  excludedOffers: t.stringList({ description: 'Offer ids', resolve: (d) => d.excludedOfferIds }),
  currency: t.string({ resolve: (d) => d.currency }),
  timezone: t.string({ description: 'IANA zone for showing validFrom/validUntil; the Unix times themselves are absolute', resolve: (d) => d.timezone }),
  createdAt: t.field({ type: 'Timestamp', resolve: (d) => d.createdAt }),
});

export const Discount = builder.prismaObject('Discount', { fields: discountFields });

builder.asEntity(Discount, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => discounts.findDiscount(ctx.prisma, await scopeOf(ctx, 'read'), id),
});

const DiscountUsage = builder.simpleObject('DiscountUsage', {
  fields: (t) => ({
    timesUsed: t.int(),
    purchaseLimit: t.int({ nullable: true }),
    remainingUses: t.int({ nullable: true, description: 'null when the discount has no purchaseLimit' }),
  }),
});

// References, not the full Offer and Product types: the REST shape stays flat and acyclic.
const DiscountOfferRef = builder.simpleObject('DiscountOfferRef', {
  fields: (t) => ({
    object: t.string(),
    id: t.id(),
    internalId: t.string({ nullable: true }),
    name: t.string({ nullable: true }),
    productId: t.id(),
  }),
});
const DiscountProductRef = builder.simpleObject('DiscountProductRef', {
  fields: (t) => ({ object: t.string(), id: t.id(), name: t.string() }),
});

// The details type resolves offers and products from one query per discount.
const associated = new WeakMap<object, ReturnType<typeof discounts.includedOffers>>();
const includedOffersOf = (discount: DiscountRow, ctx: { prisma: Parameters<typeof discounts.includedOffers>[0] }) => {
  let offers = associated.get(discount);
  if (!offers) {
    offers = discounts.includedOffers(ctx.prisma, discount);
    associated.set(discount, offers);
  }
  return offers;
};

/** A discount with its usage statistics and associated offers and products (GET by id). */
export const DiscountDetails = builder.prismaObject('Discount', {
  variant: 'DiscountDetails',
  fields: (t) => ({
    ...discountFields(t),
    usage: t.field({ type: DiscountUsage, resolve: (d) => discounts.usageOf(d) }),
    offers: t.field({
      type: [DiscountOfferRef],
      description: 'The included offers; empty when the discount includes all offers',
      resolve: async (d, _args, ctx) =>
        (await includedOffersOf(d, ctx)).map((o) => ({ object: 'offer', id: o.id, internalId: o.internalId, name: o.name, productId: o.productId })),
    }),
    products: t.field({
      type: [DiscountProductRef],
      description: 'The products of the included offers, each once',
      resolve: async (d, _args, ctx) => {
        const products = new Map((await includedOffersOf(d, ctx)).map((o) => [o.product.id, o.product]));
        return [...products.values()].map((p) => ({ object: 'product', id: p.id, name: p.name }));
      },
    }),
  }),
});

const DiscountList = builder.simpleObject('DiscountList', {
  fields: (t) => ({ discounts: t.field({ type: [Discount] }), count: t.int({ nullable: true }) }),
});
const DiscountPayload = builder.simpleObject('DiscountPayload', { fields: (t) => ({ discount: t.field({ type: Discount }) }) });
const DiscountDetailsPayload = builder.simpleObject('DiscountDetailsPayload', { fields: (t) => ({ discount: t.field({ type: DiscountDetails }) }) });

const discountFieldArgs = builder.args((t) => ({
  name: t.string(),
  discountCode: t.string({ description: '1 to 64 of A-Z a-z 0-9 _ -, unique ignoring case; generated for code discounts when absent; not allowed on sale discounts' }),
  validFrom: t.field({ type: 'Timestamp' }),
  validUntil: t.field({ type: 'Timestamp', description: 'Not before validFrom' }),
  purchaseLimit: t.int({ description: 'At least 1; null for unlimited' }),
  duration: t.field({ type: DiscountDurationEnum, description: 'Default once (a subscription\'s first period only)' }),
  durationInMonths: t.int({ description: 'Repeating only (required there): 1 to 120' }),
  status: t.field({ type: DiscountStatusEnum, description: 'Default active' }),
  includedOffers: t.field({ type: ['UUID'], description: 'Offer ids; empty or absent includes every offer' }),
  excludedOffers: t.field({ type: ['UUID'], description: 'Offer ids' }),
  currency: t.string({ description: 'Currency code; default USD' }),
  timezone: t.string({ description: 'IANA time zone; default UTC' }),
}));
const amountDescription = 'percentage: greater than 0, at most 100, up to 4 decimals; fixed: whole minor currency units';

builder.queryFields((t) => ({
  discounts: t.field({
    type: DiscountList,
    description: 'Discounts, newest first by default',
    args: {
      ...offsetListArgs,
      ids: t.arg({ type: ['UUID'] }),
      termOrId: t.arg.string({ description: 'Matches name or discountCode, or the id' }),
      status: t.arg({ type: DiscountStatusEnum }),
      type: t.arg({ type: DiscountTypeEnum }),
      currency: t.arg.string(),
      validFrom: t.arg({ type: 'Timestamp', description: 'Discounts valid from this time or later' }),
      validUntil: t.arg({ type: 'Timestamp', description: 'Discounts valid until this time or earlier' }),
      expired: t.arg.boolean({ description: 'true: validUntil has passed; false: no validUntil or not passed yet' }),
      orderBy: t.arg({ type: DiscountOrderBy, description: 'amount compares the numbers regardless of amountType' }),
    },
    resolve: async (_root, args, ctx, info) =>
      discounts.listDiscounts(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['discounts'] })),
  }),
  discount: t.field({
    type: DiscountDetailsPayload,
    args: { discountId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx, info) => ({
      discount: await discounts.findDiscount(ctx.prisma, await scopeOf(ctx, 'read'), args.discountId, queryFromInfo({ context: ctx, info, path: ['discount'] })),
    }),
  }),
}));

builder.mutationFields((t) => ({
  createDiscount: t.field({
    type: DiscountPayload,
    args: {
      type: t.arg({ type: DiscountTypeEnum, required: true }),
      amount: t.arg.float({ required: true, description: amountDescription }),
      amountType: t.arg({ type: DiscountAmountTypeEnum, required: true }),
      ...discountFieldArgs,
    },
    resolve: async (_root, args, ctx, info) => ({
      discount: await discounts.createDiscount(ctx.prisma, await scopeOf(ctx, 'write'), args, queryFromInfo({ context: ctx, info, path: ['discount'] })),
    }),
  }),
  updateDiscount: t.field({
    type: DiscountPayload,
    args: {
      discountId: t.arg({ type: 'UUID', required: true }),
      id: t.arg({ type: 'UUID', description: 'When sent, must equal discountId' }),
      type: t.arg({ type: DiscountTypeEnum }),
      amount: t.arg.float({ description: amountDescription }),
      amountType: t.arg({ type: DiscountAmountTypeEnum }),
      ...discountFieldArgs,
    },
    resolve: async (_root, { discountId, ...fields }, ctx, info) => ({
      discount: await discounts.updateDiscount(ctx.prisma, await scopeOf(ctx, 'write'), discountId, fields, queryFromInfo({ context: ctx, info, path: ['discount'] })),
    }),
  }),
  archiveDiscount: t.field({
    type: SuccessPayload,
    args: { discountId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => discounts.archiveDiscount(ctx.prisma, await scopeOf(ctx, 'write'), args.discountId),
  }),
}));
