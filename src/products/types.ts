import { queryFromInfo } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Product as ProductRow } from '../generated/prisma/client.js';
import { ProductStatus, ProductType } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { inScope } from '../core/scope.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { SuccessPayload } from '../graphql/payloads.js';
import * as products from './service.js';

export const ProductTypeEnum = builder.enumType(ProductType, { name: 'ProductType' });
export const ProductStatusEnum = builder.enumType(ProductStatus, { name: 'ProductStatus' });
const ProductOrderBy = builder.enumType('ProductOrderBy', { values: ['createdAt', 'name', 'price'] as const });

export const Variant = builder.prismaObject('Variant', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'variant' }),
    id: t.exposeID('id'),
    internalId: t.exposeString('internalId', { nullable: true }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    order: t.exposeInt('order', { nullable: true }),
    productId: t.exposeID('productId'),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});

/**
 * The spec's product fields (plus slug, projectId, tags, media and timestamps), shared by the list
 * and details types. Exposed, not resolved: a field without a resolver is read in place by the
 * compiled query (graphql-jit), where a resolver is a call per field per row.
 */
type ProductFieldBuilder = PothosSchemaTypes.PrismaObjectFieldBuilder<typeof builder.$inferSchemaTypes, PrismaTypes['Product'], ProductRow>;

const productFields = (t: ProductFieldBuilder) => ({
  object: t.string({ resolve: () => 'product' }),
  id: t.exposeID('id'),
  type: t.expose('type', { type: ProductTypeEnum }),
  internalId: t.exposeString('internalId', { nullable: true }),
  name: t.exposeString('name'),
  description: t.exposeString('description'),
  developer: t.exposeString('developer', { nullable: true }),
  publisher: t.exposeString('publisher', { nullable: true }),
  pegiRating: t.exposeString('pegiRating'),
  releaseDate: t.exposeString('releaseDate', { nullable: true }),
  systems: t.exposeStringList('systems', { nullable: true }),
  genres: t.exposeStringList('genres', { nullable: true }),
  status: t.expose('status', { type: ProductStatusEnum }),
  customFields: t.expose('customFields', { type: 'JSON', nullable: true }),
  slug: t.exposeString('slug'),
  projectId: t.exposeID('projectId'),
  tags: t.exposeStringList('tags'),
  media: t.expose('media', { type: 'JSON' }),
  createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  updatedAt: t.expose('updatedAt', { type: 'Timestamp' }),
});

export const Product = builder.prismaObject('Product', { fields: productFields });

/**
 * GET by id: the product with its live variants (plans), so a duplicate's copied variants are
 * visible too. Other answers leave them out: in a list row they cost a subquery per product,
 * about 40% of the list's throughput (README, "Benchmarks").
 */
const ProductDetails = builder.prismaObject('Product', {
  variant: 'ProductDetails',
  fields: (t) => ({
    // The same fields on the same rows: only its type's relation options differ, which these fields do not use.
    ...productFields(t as unknown as ProductFieldBuilder),
    variants: t.relation('variants', { type: Variant, query: products.liveVariants }),
  }),
});

builder.asEntity(Product, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => products.findProduct(ctx.prisma, await scopeOf(ctx, 'read'), id),
});
builder.asEntity(Variant, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => {
    const scope = await scopeOf(ctx, 'read');
    return ctx.prisma.variant.findFirst({ where: { id, archivedAt: null, product: inScope(scope) } });
  },
});

const ProductList = builder.simpleObject('ProductList', {
  fields: (t) => ({ products: t.field({ type: [Product] }), count: t.int({ nullable: true }) }),
});
const ProductPayload = builder.simpleObject('ProductPayload', { fields: (t) => ({ product: t.field({ type: Product }) }) });
const ProductDetailsPayload = builder.simpleObject('ProductDetailsPayload', { fields: (t) => ({ product: t.field({ type: ProductDetails }) }) });
const VariantPayload = builder.simpleObject('VariantPayload', { fields: (t) => ({ variant: t.field({ type: Variant }) }) });
const PlanPayload = builder.simpleObject('PlanPayload', { fields: (t) => ({ plan: t.field({ type: Variant }) }) });

const productFieldArgs = builder.args((t) => ({
  description: t.string(),
  internalId: t.string(),
  developer: t.string(),
  publisher: t.string(),
  pegiRating: t.string({ description: `One of ${products.PEGI_RATINGS.join(', ')}` }),
  releaseDate: t.string(),
  systems: t.stringList(),
  genres: t.stringList(),
  tags: t.stringList(),
  media: t.field({ type: 'JSON', description: 'Array of {url, type: image|video}' }),
  status: t.field({ type: ProductStatusEnum }),
  customFields: t.field({ type: 'JSON', description: 'A JSON object' }),
}));

const variantFieldArgs = builder.args((t) => ({
  description: t.string(),
  internalId: t.string(),
  order: t.int(),
}));

builder.queryFields((t) => ({
  products: t.field({
    type: ProductList,
    description: 'Products, newest first by default',
    args: {
      ...offsetListArgs,
      ids: t.arg({ type: ['UUID'] }),
      statuses: t.arg({ type: [ProductStatusEnum] }),
      termOrId: t.arg.string({ description: 'Matches name or description, or the id' }),
      tagName: t.arg.string(),
      genres: t.arg.stringList(),
      systems: t.arg.stringList(),
      types: t.arg({ type: [ProductTypeEnum] }),
      projectId: t.arg({ type: 'UUID' }),
      offers: t.arg({ type: ['UUID'], description: 'Products having any of these offers' }),
      orderBy: t.arg({ type: ProductOrderBy, description: 'price = lowest live offer price' }),
    },
    resolve: async (_root, args, ctx) => products.listProducts(ctx.prisma, await scopeOf(ctx, 'read'), args),
  }),
  product: t.field({
    type: ProductDetailsPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx, info) => ({
      product: await products.findProduct(ctx.prisma, await scopeOf(ctx, 'read'), args.productId, queryFromInfo({ context: ctx, info, path: ['product'] })),
    }),
  }),
}));

builder.mutationFields((t) => ({
  createProduct: t.field({
    type: ProductPayload,
    args: {
      name: t.arg.string({ required: true }),
      projectId: t.arg({ type: 'UUID', required: true }),
      type: t.arg({ type: ProductTypeEnum, required: true }),
      slug: t.arg.string({ description: 'Fixed at creation; generated from the name when absent' }),
      ...productFieldArgs,
    },
    resolve: async (_root, args, ctx, info) => ({
      product: await products.createProduct(ctx.prisma, await ctx.principal('write'), args, queryFromInfo({ context: ctx, info, path: ['product'] })),
    }),
  }),
  updateProduct: t.field({
    type: ProductPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }), name: t.arg.string(), ...productFieldArgs },
    resolve: async (_root, { productId, ...fields }, ctx, info) => ({
      product: await products.updateProduct(ctx.prisma, await scopeOf(ctx, 'write'), productId, fields, queryFromInfo({ context: ctx, info, path: ['product'] })),
    }),
  }),
  archiveProduct: t.field({
    type: SuccessPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => products.archiveProduct(ctx.prisma, await scopeOf(ctx, 'write'), args.productId),
  }),
  duplicateProduct: t.field({
    type: ProductPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx, info) => ({
      product: await products.duplicateProduct(ctx.prisma, await ctx.principal('write'), args.productId, queryFromInfo({ context: ctx, info, path: ['product'] })),
    }),
  }),
  addVariant: t.field({
    type: VariantPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }), name: t.arg.string({ required: true }), ...variantFieldArgs },
    resolve: async (_root, { productId, ...fields }, ctx) => ({
      variant: await products.addVariant(ctx.prisma, await scopeOf(ctx, 'write'), productId, fields),
    }),
  }),
  updateVariant: t.field({
    type: VariantPayload,
    args: { productId: t.arg({ type: 'UUID', required: true }), variantId: t.arg({ type: 'UUID', required: true }), name: t.arg.string(), ...variantFieldArgs },
    resolve: async (_root, { productId, variantId, ...fields }, ctx) => ({
      variant: await products.updateVariant(ctx.prisma, await scopeOf(ctx, 'write'), productId, variantId, fields),
    }),
  }),
  updatePlan: t.field({
    type: PlanPayload,
    description: 'Plans are the variants of a product; the result is keyed plan',
    args: { productId: t.arg({ type: 'UUID', required: true }), planId: t.arg({ type: 'UUID', required: true }), name: t.arg.string(), ...variantFieldArgs },
    resolve: async (_root, { productId, planId, ...fields }, ctx) => ({
      plan: await products.updateVariant(ctx.prisma, await scopeOf(ctx, 'write'), productId, planId, fields),
    }),
  }),
}));

