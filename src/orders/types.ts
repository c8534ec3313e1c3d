import { queryFromInfo } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Order as OrderRow } from '../generated/prisma/client.js';
import { OrderStatus, OrderType, SubscriptionStatus } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { offsetListArgs } from '../graphql/pagination.js';
import { currencyDecimals } from '../reference/currencies.js';
import { Offer } from '../offers/index.js';
import { Product } from '../products/index.js';
import { type TaxReason, TaxReasonEnum } from '../tax/index.js';
import { MILLISECONDS_FROM } from './filters.js';
import { notifyOrderCancelled } from './hooks.js';
import * as orders from './service.js';

export const OrderStatusEnum = builder.enumType(OrderStatus, { name: 'OrderStatus' });
export const OrderTypeEnum = builder.enumType(OrderType, { name: 'OrderType', description: 'ONE_TIME purchase, SUBSCRIPTION start, or FREE claim' });
export const SubscriptionStatusEnum = builder.enumType(SubscriptionStatus, { name: 'SubscriptionStatus' });
export const SaleOrderBy = builder.enumType('SaleOrderBy', { values: ['createdAt', 'orderNumber', 'value'] as const });

const NUMBER = '^#?([0-9A-Za-z]{12,32}|[0-9]+)(-[0-9]+)?$';

// In the field builder shared by two object types, TypeScript cannot see what a field's `select`
// adds to the parent; these name it.
type WithNumberOf<Relation extends string> = Record<Relation, { number: string } | null>;
export const numberOf = <Relation extends string>(parent: object, relation: Relation) => (parent as WithNumberOf<Relation>)[relation]?.number ?? null;

/** The contract's order fields (plus type, discount, paidAt, updatedAt, disputed), shared by the list and details types. */
const orderFields = <Model extends PrismaTypes['Order'], Shape extends OrderRow>(t: PothosSchemaTypes.PrismaObjectFieldBuilder<typeof builder.$inferSchemaTypes, Model, Shape>) => ({
  object: t.string({ resolve: () => 'order' }),
  id: t.id({ resolve: (o) => o.id }),
  number: t.string({ resolve: (o) => o.number }),
  orderNumber: t.string({ description: 'Equal to number', resolve: (o) => o.number }),
  status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status }),
  type: t.field({ type: OrderTypeEnum, resolve: (o) => o.type }),
  value: t.int({ description: 'What the buyer pays (items less discount, plus tax unless the prices include it), minor units', resolve: (o) => o.value }),
  tax: t.int({ description: 'The tax within value, minor units', resolve: (o) => o.tax }),
  fee: t.int({ description: "The platform's fee on value without tax, minor units", resolve: (o) => o.fee }),
  discountId: t.id({ nullable: true, resolve: (o) => o.discountId }),
  discountAmount: t.int({ resolve: (o) => o.discountAmount }),
  totalItems: t.int({ description: 'Units bought (sum of the quantities)', resolve: (o) => o.totalItems }),
  country: t.string({ nullable: true, resolve: (o) => o.country }),
  billingState: t.string({ nullable: true, description: 'The state or province the order was taxed on (US and Canada)', resolve: (o) => o.billingState }),
  billingPostalCode: t.string({ nullable: true, description: 'The postal code the order was taxed on', resolve: (o) => o.billingPostalCode }),
  taxInclusive: t.boolean({ description: 'Whether the item prices included the tax (then value does not add it)', resolve: (o) => o.taxInclusive }),
  taxId: t.string({ nullable: true, description: "The business buyer's VAT number given at checkout (the order was reverse charged)", resolve: (o) => o.taxId }),
  taxReason: t.field({ type: TaxReasonEnum, nullable: true, description: "Why less tax than the location's, or none, was charged; null when it was charged in full", resolve: (o) => o.taxReason as TaxReason | null }),
  currency: t.string({ resolve: (o) => o.currency }),
  currencyDecimals: t.int({ nullable: true, resolve: (o) => currencyDecimals(o.currency) ?? null }),
  createdAt: t.field({ type: 'Timestamp', resolve: (o) => o.createdAt }),
  updatedAt: t.field({ type: 'Timestamp', resolve: (o) => o.updatedAt }),
  paidAt: t.field({ type: 'Timestamp', nullable: true, resolve: (o) => o.paidAt }),
  userId: t.id({ nullable: true, resolve: (o) => o.userId }),
  user: t.relation('user', { nullable: true }),
  lastPaymentId: t.id({ nullable: true, resolve: (o) => o.lastPaymentId }),
  lastPaymentNumber: t.string({ nullable: true, select: { lastPayment: { select: { number: true } } }, resolve: (o) => numberOf(o, 'lastPayment') }),
  lastPayment: t.relation('lastPayment', { nullable: true }),
  subscriptionId: t.string({
    nullable: true,
    description: "The subscription's id: its number",
    select: { subscription: { select: { number: true } } },
    resolve: (o) => numberOf(o, 'subscription'),
  }),
  subscription: t.relation('subscription', { nullable: true }),
  checkoutId: t.id({ nullable: true, resolve: (o) => o.checkoutId }),
  disputed: t.boolean({ description: 'Whether a payment of the order has an active or past dispute', resolve: (o) => o.disputed }),
});

export const Order = builder.prismaObject('Order', { fields: orderFields });

/** A line of the cart: its offer and product as they are now, its prices as they were paid. */
export const CartItem = builder.objectRef<orders.CatalogueItem>('CartItem').implement({
  fields: (t) => ({
    object: t.exposeString('object'),
    id: t.exposeID('id', { description: 'The item id a download URL takes' }),
    orderId: t.exposeID('orderId'),
    offerId: t.exposeID('offerId'),
    productId: t.exposeID('productId'),
    variantId: t.exposeID('variantId', { nullable: true }),
    quantity: t.exposeInt('quantity'),
    unitPrice: t.exposeInt('unitPrice'),
    subtotal: t.exposeInt('subtotal', { description: 'unitPrice * quantity' }),
    discount: t.exposeInt('discount'),
    tax: t.exposeInt('tax'),
    taxInclusive: t.exposeBoolean('taxInclusive', { description: 'Whether unitPrice includes the tax' }),
    total: t.exposeInt('total', { description: 'subtotal - discount, plus tax unless taxInclusive' }),
    customFields: t.expose('customFields', { type: 'JSON', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
    offer: t.field({ type: Offer, nullable: true, resolve: (item) => item.offer }),
    product: t.field({ type: Product, nullable: true, resolve: (item) => item.product }),
  }),
});

/** GET by id or number: the order with its cart items and its payments (first to last). */
export const OrderDetails = builder.prismaObject('Order', {
  variant: 'OrderDetails',
  fields: (t) => ({
    ...orderFields(t),
    items: t.field({ type: [CartItem], resolve: async (o, _args, ctx) => orders.orderItemsWithCatalogue(ctx.prisma, await scopeOf(ctx, 'read'), o.id) }),
    payments: t.relation('payments', { query: { orderBy: { sequence: 'asc' } } }),
  }),
});

const OrderList = builder.simpleObject('OrderList', {
  fields: (t) => ({ orders: t.field({ type: [Order] }), count: t.int({ nullable: true }) }),
});
const OrderPayload = builder.simpleObject('OrderPayload', { fields: (t) => ({ order: t.field({ type: Order }) }) });
const OrderDetailsPayload = builder.simpleObject('OrderDetailsPayload', { fields: (t) => ({ order: t.field({ type: OrderDetails }) }) });

/** The filters of the orders list; the payments list takes the same (src/orders/filters.ts). */
export const saleFilterArgs = builder.args((t) => ({
  ...offsetListArgs,
  term: t.string({ description: "The number (any case), a substring of the buyer's email or username, or the id" }),
  ids: t.field({ type: ['UUID'] }),
  number: t.string({ description: `Exact number (pattern ${NUMBER}; a leading # is ignored)` }),
  userId: t.field({ type: 'UUID' }),
  subscriptionId: t.string({ description: 'Deprecated: use subscriptionNumber (the same filter)', deprecationReason: 'Use subscriptionNumber' }),
  subscriptionNumber: t.string({ description: `The subscription's number (pattern ${NUMBER})` }),
  checkoutIds: t.field({ type: ['UUID'], description: 'Checkout element ids; repeat the parameter for several' }),
  customFields: t.string({ description: 'URL-encoded JSON object of fieldId/value pairs: one cart item must carry all of them exactly' }),
  types: t.field({ type: [OrderTypeEnum] }),
  disputed: t.boolean({ description: 'Whether the charge has an active or past dispute' }),
  valueFrom: t.int({ description: 'Minor units, inclusive' }),
  valueTo: t.int({ description: 'Minor units, inclusive' }),
  currency: t.string(),
  country: t.string({ description: 'Two-letter ISO 3166-1 code' }),
  createdFrom: t.field({ type: 'Timestamp', description: `Unix seconds, or milliseconds from ${MILLISECONDS_FROM}; inclusive` }),
  createdTo: t.field({ type: 'Timestamp', description: `Unix seconds (the whole second), or milliseconds from ${MILLISECONDS_FROM}; inclusive` }),
  orderBy: t.field({ type: SaleOrderBy, description: 'Default createdAt' }),
}));

builder.queryFields((t) => ({
  orders: t.field({
    type: OrderList,
    description: 'Orders, newest first by default',
    args: { ...saleFilterArgs, statuses: t.arg({ type: [OrderStatusEnum] }) },
    resolve: async (_root, args, ctx, info) => orders.listOrders(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['orders'] })),
  }),
  order: t.field({
    type: OrderDetailsPayload,
    args: { orderIdOrNumber: t.arg.string({ required: true, description: 'The order id, or its number (a leading # is ignored)' }) },
    resolve: async (_root, args, ctx, info) => ({
      order: await orders.findOrder(ctx.prisma, await scopeOf(ctx, 'read'), args.orderIdOrNumber, queryFromInfo({ context: ctx, info, path: ['order'] })),
    }),
  }),
}));

builder.mutationFields((t) => ({
  cancelOrder: t.field({
    type: OrderPayload,
    description: 'Sets the order CANCELLED without a refund (PENDING, PAID and PARTIALLY_REFUNDED orders); the subscription it started is cancelled now',
    args: { orderIdOrNumber: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx, info) => {
      const scope = await scopeOf(ctx, 'write');
      const order = await orders.cancelOrder(ctx.prisma, scope, args.orderIdOrNumber, queryFromInfo({ context: ctx, info, path: ['order'] }));
      const { id } = await orders.findOrder(ctx.prisma, scope, args.orderIdOrNumber, { select: { id: true } });
      // Its payments' workflows hear of it, and the subscription it started is cancelled now (docs/decisions.md "Subscriptions").
      await notifyOrderCancelled(ctx, scope, id);
      return { order: order.subscriptionId ? await orders.findOrder(ctx.prisma, scope, id, queryFromInfo({ context: ctx, info, path: ['order'] })) : order };
    },
  }),
  updateOrder: t.field({
    type: OrderPayload,
    description: 'Writes the given fields directly (prefer cancel or refund)',
    args: {
      orderIdOrNumber: t.arg.string({ required: true }),
      status: t.arg({ type: OrderStatusEnum }),
      value: t.arg.int({ description: 'Minor units' }),
      fee: t.arg.int({ description: 'Minor units, at most value' }),
      tax: t.arg.int({ description: 'Minor units, at most value' }),
      currency: t.arg.string(),
    },
    resolve: async (_root, { orderIdOrNumber, ...fields }, ctx, info) => ({
      order: await orders.updateOrder(ctx.prisma, await scopeOf(ctx, 'write'), orderIdOrNumber, fields, queryFromInfo({ context: ctx, info, path: ['order'] })),
    }),
  }),
}));
