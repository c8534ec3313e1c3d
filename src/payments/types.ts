import { queryFromInfo } from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import type { Payment as PaymentRow } from '../generated/prisma/client.js';
import { ChargeStatus, PaymentMethodType, PaymentProcessor, PaymentStatus } from '../generated/prisma/enums.js';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import { SuccessPayload } from '../graphql/payloads.js';
import { currencyDecimals } from '../reference/currencies.js';
import { numberOf, saleFilterArgs } from '../orders/index.js';
import { signalCancelRequested } from './processor-callbacks.js';
import * as payments from './service.js';
import { runPaymentTestHelper, type TestHelperAction } from './test-helpers.js';

const PaymentStatusEnum = builder.enumType(PaymentStatus, { name: 'PaymentStatus' });
const PaymentProcessorEnum = builder.enumType(PaymentProcessor, { name: 'PaymentProcessor' });
const PaymentMethodTypeEnum = builder.enumType(PaymentMethodType, { name: 'PaymentMethodType' });
const ChargeStatusEnum = builder.enumType(ChargeStatus, { name: 'ChargeStatus' });

/** The payment's fields (its list row and an order's lastPayment), shared with the details type. */
const paymentFields = <Model extends PrismaTypes['Payment'], Shape extends PaymentRow>(t: PothosSchemaTypes.PrismaObjectFieldBuilder<typeof builder.$inferSchemaTypes, Model, Shape>) => ({
  object: t.string({ resolve: () => 'payment' }),
  id: t.id({ resolve: (p) => p.id }),
  number: t.string({ description: "The order's number for its first payment, {orderNumber}-{n} for the n-th", resolve: (p) => p.number }),
  status: t.field({ type: PaymentStatusEnum, resolve: (p) => p.status }),
  amount: t.int({ description: 'Minor units', resolve: (p) => p.amount }),
  tax: t.int({ resolve: (p) => p.tax }),
  fee: t.int({ resolve: (p) => p.fee }),
  currency: t.string({ resolve: (p) => p.currency }),
  currencyDecimals: t.int({ nullable: true, resolve: (p) => currencyDecimals(p.currency) ?? null }),
  processor: t.field({ type: PaymentProcessorEnum, nullable: true, description: 'null when no processor is involved (a free claim)', resolve: (p) => p.processor }),
  methodType: t.field({ type: PaymentMethodTypeEnum, nullable: true, resolve: (p) => p.methodType }),
  processorChargeId: t.string({ nullable: true, resolve: (p) => p.processorChargeId }),
  failureCode: t.string({ nullable: true, resolve: (p) => p.failureCode }),
  failureMessage: t.string({ nullable: true, resolve: (p) => p.failureMessage }),
  refundedAmount: t.int({ resolve: (p) => p.refundedAmount }),
  disputed: t.boolean({ resolve: (p) => p.disputed }),
  planChange: t.boolean({ description: "A subscription's plan change", resolve: (p) => p.planChange }),
  cancelRequestedAt: t.field({ type: 'Timestamp', nullable: true, description: 'When a cancel was requested (the processor confirms it)', resolve: (p) => p.cancelRequestedAt }),
  paidAt: t.field({ type: 'Timestamp', nullable: true, resolve: (p) => p.paidAt }),
  orderId: t.id({ resolve: (p) => p.orderId }),
  orderNumber: t.string({ select: { order: { select: { number: true } } }, resolve: (p) => numberOf(p, 'order') ?? '' }),
  userId: t.id({ nullable: true, resolve: (p) => p.userId }),
  subscriptionId: t.string({
    nullable: true,
    description: "The subscription's id: its number",
    select: { subscription: { select: { number: true } } },
    resolve: (p) => numberOf(p, 'subscription'),
  }),
  createdAt: t.field({ type: 'Timestamp', resolve: (p) => p.createdAt }),
  updatedAt: t.field({ type: 'Timestamp', resolve: (p) => p.updatedAt }),
});

export const Payment = builder.prismaObject('Payment', { fields: paymentFields });

/** One attempt at the processor. */
builder.prismaObject('Charge', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'charge' }),
    id: t.exposeID('id'),
    attempt: t.exposeInt('attempt'),
    processor: t.expose('processor', { type: PaymentProcessorEnum }),
    processorChargeId: t.exposeString('processorChargeId', { nullable: true }),
    status: t.expose('status', { type: ChargeStatusEnum }),
    amount: t.exposeInt('amount'),
    currency: t.exposeString('currency'),
    failureCode: t.exposeString('failureCode', { nullable: true }),
    failureMessage: t.exposeString('failureMessage', { nullable: true }),
    cardBrand: t.exposeString('cardBrand', { nullable: true }),
    cardLast4: t.exposeString('cardLast4', { nullable: true }),
    disputeStatus: t.exposeString('disputeStatus', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});

/** Invoices are not issued yet (docs/decisions.md): payment details carry `invoice: null` until they are. */
const Invoice = builder.simpleObject('Invoice', {
  fields: (t) => ({ object: t.string(), id: t.id(), number: t.string(), createdAt: t.field({ type: 'Timestamp' }) }),
});

/** GET by id: the payment with its buyer, order, subscription, charges (first attempt first) and invoice. */
const PaymentDetails = builder.prismaObject('Payment', {
  variant: 'PaymentDetails',
  fields: (t) => ({
    ...paymentFields(t),
    user: t.relation('user', { nullable: true }),
    order: t.relation('order'),
    subscription: t.relation('subscription', { nullable: true }),
    charges: t.relation('charges', { query: { orderBy: { attempt: 'asc' } } }),
    invoice: t.field({ type: Invoice, nullable: true, resolve: () => null }),
  }),
});

const PaymentList = builder.simpleObject('PaymentList', {
  fields: (t) => ({ payments: t.field({ type: [Payment] }), count: t.int({ nullable: true }) }),
});
const PaymentDetailsPayload = builder.simpleObject('PaymentDetailsPayload', { fields: (t) => ({ payment: t.field({ type: PaymentDetails }) }) });

builder.queryFields((t) => ({
  payments: t.field({
    type: PaymentList,
    description: "Payments, newest first by default; the orders list's filters (value is the payment's amount, the order's checkout, type, country and custom fields)",
    args: { ...saleFilterArgs, statuses: t.arg({ type: [PaymentStatusEnum] }) },
    resolve: async (_root, args, ctx, info) => payments.listPayments(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['payments'] })),
  }),
  payment: t.field({
    type: PaymentDetailsPayload,
    args: { paymentId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx, info) => ({
      payment: await payments.findPayment(ctx.prisma, await scopeOf(ctx, 'read'), args.paymentId, queryFromInfo({ context: ctx, info, path: ['payment'] })),
    }),
  }),
}));

builder.mutationFields((t) => ({
  cancelPayment: t.field({
    type: SuccessPayload,
    description: 'Asks the processor to cancel a PENDING card payment; it stays PENDING until the processor confirms, then CANCELLED',
    args: { paymentId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => {
      const result = await payments.requestPaymentCancel(ctx.prisma, await scopeOf(ctx, 'write'), args.paymentId);
      await signalCancelRequested(ctx.temporal, args.paymentId);
      return result;
    },
  }),
  ...Object.fromEntries(
    (
      [
        ['settleTestPayment', 'settle', "Test mode: settles the payment's pending sandbox charge as the processor would (its signed webhook goes through the processor webhook path); the payment as GET shows it after the change"],
        ['failTestPayment', 'fail', "Test mode: fails the payment's pending sandbox charge as the processor would; the payment as GET shows it after the change"],
        ['disputeTestPayment', 'dispute', "Test mode: the cardholder disputes the PAID payment's sandbox charge; the payment as GET shows it after the change"],
        ['loseDisputeTestPayment', 'lose-dispute', "Test mode: the open dispute of the payment's sandbox charge is lost (the money stays with the cardholder)"],
        ['failDisputeCheckTestPayment', 'fail-dispute-check', "Test mode: from now on the live dispute check of the payment's sandbox charge fails, as if the processor were unreachable"],
      ] as const satisfies readonly (readonly [string, TestHelperAction, string])[]
    ).map(([name, action, description]) => [
      name,
      t.field({
        type: PaymentDetailsPayload,
        description,
        args: { paymentId: t.arg({ type: 'UUID', required: true }) },
        resolve: async (_root, args, ctx, info) => {
          const scope = await scopeOf(ctx, 'write');
          await runPaymentTestHelper(ctx.prisma, ctx.temporal, scope, args.paymentId, action);
          return { payment: await payments.findPayment(ctx.prisma, scope, args.paymentId, queryFromInfo({ context: ctx, info, path: ['payment'] })) };
        },
      }),
    ]),
  ),
}));
