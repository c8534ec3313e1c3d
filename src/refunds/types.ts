import { RefundStatus } from '../generated/prisma/enums.js';
import { systemClock } from '../core/time.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { OrderDetails, OrderStatusEnum } from '../orders/index.js';
import { refundOrder } from './flow.js';
import { refundResource, type RefundResource } from './resource.js';
import { refundableOf, refundsOfOrder } from './service.js';

const RefundStatusEnum = builder.enumType(RefundStatus, { name: 'RefundStatus', description: "Stripe's refund statuses (pending until the processor settles it), plus partially_failed: split over several payments, some shares failed; and requires_attention: the processor never answered within its idempotency key's window, the money stays reserved until its word comes" });

const RefundedUnits = builder.simpleObject('RefundedUnits', {
  fields: (t) => ({ id: t.id({ description: 'The cart item' }), quantity: t.int({ description: 'Units given back' }) }),
});

const RefundPaymentShare = builder.simpleObject('RefundPaymentShare', {
  description: "The refund's share of one payment (newest paid payment first)",
  fields: (t) => ({
    paymentId: t.id(),
    amount: t.int({ description: 'Minor units' }),
    status: t.field({ type: RefundStatusEnum }),
    processorRefundId: t.string({ nullable: true }),
    feeRefunded: t.int({ description: "The platform fee's share given back" }),
  }),
});

const RefundResult = builder.objectRef<RefundResource>('RefundResult').implement({
  description: 'A refund (the contract\'s Refund result)',
  fields: (t) => ({
    object: t.exposeString('object'),
    refundId: t.exposeID('refundId'),
    orderId: t.exposeID('orderId'),
    amount: t.exposeInt('amount', { description: 'Minor units' }),
    currency: t.exposeString('currency'),
    status: t.expose('status', { type: RefundStatusEnum }),
    createdAt: t.exposeString('createdAt', { description: 'ISO 8601 (the contract types it as a string)' }),
    replayed: t.exposeBoolean('replayed', { description: 'True when an earlier identical refund was returned instead of creating a new one' }),
    orderStatus: t.expose('orderStatus', { type: OrderStatusEnum, description: "The order's status now" }),
    reason: t.exposeString('reason', { nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    items: t.field({ type: [RefundedUnits], description: 'Units given back per cart item', resolve: (r) => r.items }),
    feeRefunded: t.exposeInt('feeRefunded', { description: 'The platform fee given back (the percentage part, proportionally)' }),
    source: t.exposeString('source', { description: 'api, or expired_payment for money that arrived after its payment expired' }),
    failureCode: t.exposeString('failureCode', { nullable: true }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    workflowId: t.exposeString('workflowId', { description: 'Its Temporal workflow: temporal workflow show --workflow-id <workflowId>' }),
    payments: t.field({ type: [RefundPaymentShare], resolve: (r) => r.payments }),
  }),
});

const RefundablePayment = builder.simpleObject('RefundablePayment', {
  fields: (t) => ({
    paymentId: t.id(),
    number: t.string(),
    amount: t.int({ description: 'Minor units still refundable on this payment' }),
    fee: t.int({ description: 'The platform fee that would come back' }),
    blockedBy: t.string({ nullable: true, description: 'not_paid, manual_method, unsupported, dispute_open or dispute_lost; null when refundable' }),
  }),
});

const RefundableItem = builder.simpleObject('RefundableItem', {
  fields: (t) => ({
    id: t.id({ description: 'The cart item' }),
    quantity: t.int({ description: 'Units bought' }),
    refundedQuantity: t.int({ description: 'Units refunded or being refunded' }),
    refundableQuantity: t.int(),
    amount: t.int({ description: 'What its refundable units are worth, minor units' }),
  }),
});

const Refundable = builder.simpleObject('Refundable', {
  fields: (t) => ({
    object: t.string(),
    orderId: t.id(),
    currency: t.string(),
    amount: t.int({ description: 'Minor units still refundable in total' }),
    fee: t.int({ description: 'The platform fee that would come back with all of it' }),
    reason: t.string({ nullable: true, description: 'Why nothing is refundable (the refund would answer 400 with it); null when something is' }),
    disputeBlocked: t.boolean({ description: 'Whether a dispute (open or lost) keeps money from being refunded' }),
    payments: t.field({ type: [RefundablePayment], description: 'Newest first: the order a refund draws from them' }),
    items: t.field({ type: [RefundableItem] }),
  }),
});
const RefundablePayload = builder.simpleObject('RefundablePayload', { fields: (t) => ({ refundable: t.field({ type: Refundable }) }) });

const RefundItemInput = builder.inputType('RefundItemInput', {
  fields: (t) => ({ id: t.field({ type: 'UUID', required: true, description: 'A cart item of the order' }), quantity: t.int({ required: true, description: 'Units to give back' }) }),
});

builder.objectField(OrderDetails, 'refunds', (t) =>
  t.field({ type: [RefundResult], description: 'Its refunds, oldest first', resolve: async (order, _args, ctx) => (await refundsOfOrder(ctx.prisma, order.id)).map((r) => refundResource(r)) }),
);

builder.queryFields((t) => ({
  orderRefundable: t.field({
    type: RefundablePayload,
    description: 'What a refund could take now: in total, per payment and per cart item, the fee that would come back, and whether a dispute blocks it',
    args: { orderIdOrNumber: t.arg.string({ required: true, description: 'The order id, or its number (a leading # is ignored)' }) },
    resolve: async (_root, args, ctx) => {
      const { order, view } = await refundableOf({ prisma: ctx.prisma, processor: ctx.processor, now: systemClock }, await scopeOf(ctx, 'read'), args.orderIdOrNumber);
      return {
        refundable: {
          object: 'refundable', orderId: order.id, currency: order.currency, amount: view.amount, fee: view.fee, reason: view.reason, disputeBlocked: view.disputeBlocked,
          payments: view.payments.map((row) => ({ paymentId: row.payment.id, number: row.payment.number, amount: row.amount, fee: row.fee, blockedBy: row.block })),
          items: view.items.map((row) => ({ id: row.item.id, quantity: row.item.quantity, refundedQuantity: row.item.refundedQuantity, refundableQuantity: row.quantity, amount: row.amount })),
        },
      };
    },
  }),
}));

builder.mutationFields((t) => ({
  refundOrder: t.field({
    type: RefundResult,
    description: 'Refunds the order in full or in part through its payments\' processor; waits for the outcome up to REFUND_WAIT_MS',
    args: {
      orderIdOrNumber: t.arg.string({ required: true }),
      amount: t.arg.int({ description: 'Minor units; omit for everything still refundable (or the value of the given items)' }),
      reason: t.arg.string(),
      idempotencyKey: t.arg.string({ description: "1 to 255 characters; derive it from your own refund record" }),
      metadata: t.arg({ type: 'JSON', description: 'A JSON object kept with the refund' }),
      items: t.arg({ type: [RefundItemInput], description: 'Units of cart items to give back' }),
    },
    resolve: async (_root, { orderIdOrNumber, ...body }, ctx) => {
      const principal = await ctx.principal('write');
      const deps = { prisma: ctx.prisma, processor: ctx.processor, temporal: ctx.temporal, notifications: ctx.notifications, now: systemClock };
      return refundOrder(deps, { workspaceId: principal.workspaceId, livemode: principal.livemode }, principal.settings, orderIdOrNumber, body);
    },
  }),
}));
