// The orders list for bench/bare-server.ts: `GET /v0/orders/list?take=20` with the `statuses`
// (repeated) and `currency` filters, as one statement over a pg pool: the statement Prisma sends
// for the full stack's request (the order with its last payment, subscription and buyer joined),
// answered with the same bytes.
import type pg from 'pg';
import { currencyDecimals } from '../src/reference/currencies.js';

// Copied from PostgreSQL's statement log of the full stack serving the same request; the
// where-clause below is Prisma's for these two filters.
const SELECT_SQL = `SELECT "t0"."id", "t0"."workspaceId", "t0"."livemode", "t0"."number", "t0"."type"::text, "t0"."status"::text, "t0"."userId", "t0"."currency", "t0"."value", "t0"."tax", "t0"."fee", "t0"."discountId", "t0"."discountAmount", "t0"."totalItems", "t0"."country", "t0"."checkoutId", "t0"."subscriptionId", "t0"."lastPaymentId", "t0"."disputed", "t0"."itemCustomFields", "t0"."paidAt", "t0"."cancelledAt", "t0"."createdAt", "t0"."updatedAt", "Order_lastPayment"."__prisma_data__" AS "lastPayment", "Order_subscription"."__prisma_data__" AS "subscription", "Order_user"."__prisma_data__" AS "user" FROM "public"."Order" AS "t0" LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('id', "t1"."id", 'workspaceId', "t1"."workspaceId", 'livemode', "t1"."livemode", 'orderId', "t1"."orderId", 'sequence', "t1"."sequence", 'number', "t1"."number", 'status', "t1"."status", 'amount', "t1"."amount", 'tax', "t1"."tax", 'fee', "t1"."fee", 'currency', "t1"."currency", 'processor', "t1"."processor", 'methodType', "t1"."methodType", 'processorChargeId', "t1"."processorChargeId", 'failureCode', "t1"."failureCode", 'failureMessage', "t1"."failureMessage", 'refundedAmount', "t1"."refundedAmount", 'disputed', "t1"."disputed", 'planChange', "t1"."planChange", 'cancelRequestedAt', "t1"."cancelRequestedAt", 'expiresAt', "t1"."expiresAt", 'paidAt', "t1"."paidAt", 'userId', "t1"."userId", 'subscriptionId', "t1"."subscriptionId", 'createdAt', "t1"."createdAt", 'updatedAt', "t1"."updatedAt", 'orderId', "t1"."orderId", 'order', "Payment_order"."__prisma_data__", 'subscriptionId', "t1"."subscriptionId", 'subscription', "Payment_subscription"."__prisma_data__") AS "__prisma_data__" FROM "public"."Payment" AS "t1" LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('number', "t2"."number") AS "__prisma_data__" FROM "public"."Order" AS "t2" WHERE "t1"."orderId" = "t2"."id" LIMIT $1) AS "Payment_order" ON true LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('number', "t3"."number") AS "__prisma_data__" FROM "public"."Subscription" AS "t3" WHERE "t1"."subscriptionId" = "t3"."id" LIMIT $2) AS "Payment_subscription" ON true WHERE "t0"."lastPaymentId" = "t1"."id" LIMIT $3) AS "Order_lastPayment" ON true LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('id', "t4"."id", 'workspaceId', "t4"."workspaceId", 'livemode', "t4"."livemode", 'number', "t4"."number", 'status', "t4"."status", 'userId', "t4"."userId", 'currency', "t4"."currency", 'amount', "t4"."amount", 'recurringInterval', "t4"."recurringInterval", 'recurringIntervalCount', "t4"."recurringIntervalCount", 'trialInterval', "t4"."trialInterval", 'trialIntervalCount', "t4"."trialIntervalCount", 'processor', "t4"."processor", 'methodType', "t4"."methodType", 'paymentMethodRef', "t4"."paymentMethodRef", 'currentPeriodStart', "t4"."currentPeriodStart", 'currentPeriodEnd', "t4"."currentPeriodEnd", 'trialEndsAt', "t4"."trialEndsAt", 'cancelAtPeriodEnd', "t4"."cancelAtPeriodEnd", 'cancelledAt', "t4"."cancelledAt", 'endedAt', "t4"."endedAt", 'createdAt', "t4"."createdAt", 'updatedAt', "t4"."updatedAt") AS "__prisma_data__" FROM "public"."Subscription" AS "t4" WHERE "t0"."subscriptionId" = "t4"."id" LIMIT $4) AS "Order_subscription" ON true LEFT JOIN LATERAL (SELECT JSONB_BUILD_OBJECT('id', "t5"."id", 'workspaceId', "t5"."workspaceId", 'livemode', "t5"."livemode", 'email', "t5"."email", 'emailNormalized', "t5"."emailNormalized", 'username', "t5"."username", 'internalId', "t5"."internalId", 'details', "t5"."details", 'billingDetails', "t5"."billingDetails", 'passwordHash', "t5"."passwordHash", 'createdAt', "t5"."createdAt", 'updatedAt', "t5"."updatedAt", 'archivedAt', "t5"."archivedAt") AS "__prisma_data__" FROM "public"."User" AS "t5" WHERE "t0"."userId" = "t5"."id" LIMIT $5) AS "Order_user" ON true`;

const unixSeconds = (value: string | Date | null) => (value === null ? null : Math.floor(new Date(value).getTime() / 1000));

interface Json {
  [key: string]: unknown;
}

interface OrderRow {
  id: string;
  number: string;
  type: string;
  status: string;
  userId: string | null;
  currency: string;
  value: number;
  tax: number;
  fee: number;
  discountId: string | null;
  discountAmount: number;
  totalItems: number;
  country: string | null;
  checkoutId: string | null;
  lastPaymentId: string | null;
  disputed: boolean;
  paidAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  lastPayment: Json | null;
  subscription: Json | null;
  user: Json | null;
}

const numberOf = (related: unknown) => ((related as { number: string } | null)?.number ?? null);

// Keys in the order the GraphQL response has them (the schema is sorted lexicographically).
const billingDetailsJson = (b: Json | null) =>
  b && { city: b.city ?? null, countryCode: b.countryCode, line1: b.line1 ?? null, line2: b.line2 ?? null, name: b.name ?? null, postalCode: b.postalCode ?? null, state: b.state ?? null };

const userJson = (u: Json | null) =>
  u && {
    billingDetails: billingDetailsJson(u.billingDetails as Json | null),
    createdAt: unixSeconds(u.createdAt as string),
    details: u.details,
    email: u.email,
    id: u.id,
    internalId: u.internalId,
    object: 'user',
    username: u.username,
  };

const paymentJson = (p: Json | null) =>
  p && {
    amount: p.amount,
    cancelRequestedAt: unixSeconds(p.cancelRequestedAt as string | null),
    createdAt: unixSeconds(p.createdAt as string),
    currency: p.currency,
    currencyDecimals: currencyDecimals(p.currency as string) ?? null,
    disputed: p.disputed,
    failureCode: p.failureCode,
    failureMessage: p.failureMessage,
    fee: p.fee,
    id: p.id,
    methodType: p.methodType,
    number: p.number,
    object: 'payment',
    orderId: p.orderId,
    orderNumber: numberOf(p.order) ?? '',
    paidAt: unixSeconds(p.paidAt as string | null),
    planChange: p.planChange,
    processor: p.processor,
    processorChargeId: p.processorChargeId,
    refundedAmount: p.refundedAmount,
    status: p.status,
    subscriptionId: numberOf(p.subscription),
    tax: p.tax,
    updatedAt: unixSeconds(p.updatedAt as string),
    userId: p.userId,
  };

const subscriptionJson = (s: Json | null) =>
  s && {
    amount: s.amount,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    cancelledAt: unixSeconds(s.cancelledAt as string | null),
    createdAt: unixSeconds(s.createdAt as string),
    currency: s.currency,
    currentPeriodEnd: unixSeconds(s.currentPeriodEnd as string | null),
    currentPeriodStart: unixSeconds(s.currentPeriodStart as string | null),
    id: s.number,
    object: 'subscription',
    recurringInterval: s.recurringInterval,
    recurringIntervalCount: s.recurringIntervalCount,
    status: s.status,
    trialEndsAt: unixSeconds(s.trialEndsAt as string | null),
    trialInterval: s.trialInterval,
    trialIntervalCount: s.trialIntervalCount,
    userId: s.userId,
  };

const orderJson = (o: OrderRow) => ({
  checkoutId: o.checkoutId,
  country: o.country,
  createdAt: unixSeconds(o.createdAt),
  currency: o.currency,
  currencyDecimals: currencyDecimals(o.currency) ?? null,
  discountAmount: o.discountAmount,
  discountId: o.discountId,
  disputed: o.disputed,
  fee: o.fee,
  id: o.id,
  lastPayment: paymentJson(o.lastPayment),
  lastPaymentId: o.lastPaymentId,
  lastPaymentNumber: numberOf(o.lastPayment),
  number: o.number,
  object: 'order',
  orderNumber: o.number,
  paidAt: unixSeconds(o.paidAt),
  status: o.status,
  subscription: subscriptionJson(o.subscription),
  subscriptionId: numberOf(o.subscription),
  tax: o.tax,
  totalItems: o.totalItems,
  type: o.type,
  updatedAt: unixSeconds(o.updatedAt),
  user: userJson(o.user),
  userId: o.userId,
  value: o.value,
});

/** The response body for the key's scope; `statuses` and `currency` as the query gives them (other filters are not served). */
export async function listOrders(pool: pg.Pool, key: { workspaceId: string; mode: string }, params: URLSearchParams): Promise<string> {
  const take = Math.min(100, Math.max(1, Number(params.get('take') ?? 20)));
  const values: unknown[] = [1, 1, 1, 1, 1, key.workspaceId, key.mode === 'live'];
  const where = ['"t0"."workspaceId" = $6', '"t0"."livemode" = $7'];
  const statuses = params.getAll('statuses');
  if (statuses.length) {
    where.push(`"t0"."status" IN (${statuses.map((status) => (values.push(status), `CAST($${values.length}::text AS "public"."OrderStatus")`)).join(',')})`);
  }
  const currency = params.get('currency');
  if (currency) where.push(`"t0"."currency" = $${values.push(currency.trim().toUpperCase())}`);
  values.push(take, 0);
  const text = `${SELECT_SQL} WHERE (${where.join(' AND ')}) ORDER BY "t0"."createdAt" DESC, "t0"."id" DESC LIMIT $${values.length - 1} OFFSET $${values.length}`;
  const { rows } = await pool.query<OrderRow>(text, values);
  return JSON.stringify({ status: 'success', data: { count: null, orders: rows.map(orderJson) } });
}
