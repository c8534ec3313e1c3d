// Orders: creating one (with its items, first payment and, for a subscription offer, its
// subscription) in the caller's transaction, and reading, cancelling and updating them.
import type { LicenseKey, Offer, Order, OrderItem, Payment, Prisma, PrismaClient, Product, Subscription, User } from '../generated/prisma/client.js';
import type { OrderStatus, PaymentMethodType, PaymentProcessor, RecurringInterval } from '../generated/prisma/enums.js';
import type { Db } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { isMoney, MAX_MONEY } from '../core/money.js';
import { inScope, type Scope } from '../core/scope.js';
import { offsetPage } from '../core/list.js';
import { uuidv7 } from '../core/uuid.js';
import { recordEvent } from '../events/event-service.js';
import { isCountry } from '../reference/countries.js';
import { isCurrency } from '../reference/currencies.js';
import type { PaymentRow } from './payment-resource.js';
import { orderEventData, orderRowInclude, type OrderRow } from './events.js';
import { FEE_RULE, paymentFee, platformFee, type FeeRule } from './fee.js';
import { orderItemResource } from './item-resource.js';
import { orderListWhere, termBuyers } from './list-where.js';
import { readSaleFilters, salePage, type SaleListArgs } from './filters.js';
import { newOrderNumber, parseOrderRef } from './numbers.js';
import { deliveredKeys, notifyReservationsReleased } from './hooks.js';

/** An order that can still be called off: not yet settled one way or the other, or paid (no refund is made). */
export const CANCELLABLE: readonly OrderStatus[] = ['PENDING', 'PAID', 'PARTIALLY_REFUNDED'];

type Query = { select?: Prisma.OrderSelect; include?: Prisma.OrderInclude };

export interface NewOrderItem {
  offerId: string;
  productId: string;
  variantId?: string | null;
  quantity: number;
  /** The offer's price per unit, minor units. */
  unitPrice: number;
  /** Off the line's subtotal (unitPrice * quantity). */
  discount?: number;
  /** Added to the line, or within its price when taxInclusive. */
  tax?: number;
  taxInclusive?: boolean;
  customFields?: Record<string, string> | null;
}

export interface NewOrder {
  /** The buyer's row, as the caller read it (order_created shows it), or none. */
  user: User | null;
  currency: string;
  country?: string | null;
  /** The billing address the order is taxed on, with country. */
  billingState?: string | null;
  billingPostalCode?: string | null;
  /** Whether the items' prices include their tax (then value does not add it again). */
  taxInclusive?: boolean;
  /** A business buyer's checked VAT number (the order is reverse charged), and why less tax than the location's, or none, is charged (src/tax). */
  taxId?: string | null;
  taxReason?: string | null;
  checkoutId?: string | null;
  /** When the checkout reserved the order's stock and discount, in the same transaction (releaseOrderReservations gives them back); null: nothing reserved. */
  reservedAt?: Date | null;
  discountId?: string | null;
  items: NewOrderItem[];
  /** The first payment: who will process it (null for a free claim) and until when it may stay pending. */
  payment: { processor: PaymentProcessor | null; methodType: PaymentMethodType | null; expiresAt?: Date | null };
  /** The order's and its first payment's ids when the caller chose them (an idempotency key claimed with them). */
  ids?: { orderId: string; paymentId: string };
  /** For a subscription offer: the subscription the order starts. */
  subscription?: { recurringInterval: RecurringInterval; recurringIntervalCount?: number | null; trialInterval?: RecurringInterval | null; trialIntervalCount?: number | null } | null;
}

export interface CreatedOrder {
  order: OrderRow;
  payment: PaymentRow;
  items: OrderItem[];
  subscription: Subscription | null;
}

function checkNewOrder(input: NewOrder) {
  if (!isCurrency(input.currency)) throw new ValidationFailed(`currency ${input.currency} is not a listed currency code`);
  if (input.country != null && !isCountry(input.country)) throw new ValidationFailed(`country ${input.country} is not a listed country code`);
  if (input.items.length === 0) throw new ValidationFailed('an order needs at least one item');
  let value = 0;
  for (const [index, item] of input.items.entries()) {
    const subtotal = item.unitPrice * item.quantity;
    const discount = item.discount ?? 0;
    const tax = item.tax ?? 0;
    if (!Number.isInteger(item.quantity) || item.quantity < 1) throw new ValidationFailed(`items[${index}].quantity must be a whole number of at least 1`);
    if (!isMoney(item.unitPrice) || !isMoney(subtotal) || !isMoney(tax) || !isMoney(discount) || discount > subtotal) {
      throw new ValidationFailed(`items[${index}]: prices must be whole minor units from 0 to ${MAX_MONEY}, the discount at most the subtotal`);
    }
    if (item.taxInclusive && tax > subtotal - discount) throw new ValidationFailed(`items[${index}]: a tax within the price is at most the price after discount`);
    value += subtotal - discount + (item.taxInclusive ? 0 : tax);
  }
  if (!isMoney(value)) throw new ValidationFailed(`an order's value is at most ${MAX_MONEY} minor units`);
  return value;
}

/** The order as the events show it, read in the transaction that changed it. */
export async function loadOrderForEvent(tx: Db, orderId: string) {
  // The items joined to the order's read: one statement (relationJoins).
  const { items, ...order } = await tx.order.findUniqueOrThrow({
    where: { id: orderId },
    include: { ...orderRowInclude, items: { orderBy: [{ position: 'asc' }, { id: 'asc' }], include: { licenseKeys: true } } },
  });
  return { order, items: items.map((item) => ({ ...item, deliveredKeys: deliveredKeys(order, item) })) };
}

/**
 * The order, its items and its first payment written in one statement, as the rows have them
 * (nothing is read back). Prisma took five (the order, its items, its read of the nested create,
 * the payment, then the order's lastPaymentId): four statements fewer in every checkout's
 * transaction. The order is inserted with its lastPaymentId: it and the payment reference each
 * other, and PostgreSQL checks foreign keys at the end of the statement.
 */
async function writeOrder(tx: Prisma.TransactionClient, order: Order, items: OrderItem[], payment: Payment): Promise<void> {
  // jsonb_to_recordset reads the columns it names (orderId comes from the order).
  const lines = JSON.stringify(items);
  await tx.$executeRaw`
    WITH "order" AS (
      INSERT INTO "Order" (id, "workspaceId", livemode, number, type, status, "userId", currency, value, tax, fee, "discountId", "discountAmount", "totalItems", country, "billingState",
        "billingPostalCode", "taxInclusive", "taxId", "taxReason", "checkoutId", "subscriptionId", "lastPaymentId", disputed, "itemCustomFields", "paidAt", "cancelledAt", "reservedAt",
        "releasedAt", "createdAt", "updatedAt")
      VALUES (${order.id}::uuid, ${order.workspaceId}::uuid, ${order.livemode}, ${order.number}, ${order.type}::"OrderType", ${order.status}::"OrderStatus", ${order.userId}::uuid,
        ${order.currency}, ${order.value}, ${order.tax}, ${order.fee}, ${order.discountId}::uuid, ${order.discountAmount}, ${order.totalItems}, ${order.country}, ${order.billingState},
        ${order.billingPostalCode}, ${order.taxInclusive}, ${order.taxId}, ${order.taxReason}, ${order.checkoutId}::uuid, ${order.subscriptionId}::uuid, ${order.lastPaymentId}::uuid,
        ${order.disputed}, ${JSON.stringify(order.itemCustomFields)}::jsonb, ${order.paidAt}, ${order.cancelledAt}, ${order.reservedAt}, ${order.releasedAt}, ${order.createdAt}, ${order.updatedAt})
    ), items AS (
      INSERT INTO "OrderItem" (id, "orderId", "productId", "offerId", "variantId", position, quantity, "unitPrice", discount, tax, "taxInclusive", "refundedQuantity", "customFields", "createdAt")
      SELECT x.id, ${order.id}::uuid, x."productId", x."offerId", x."variantId", x.position, x.quantity, x."unitPrice", x.discount, x.tax, x."taxInclusive", x."refundedQuantity", x."customFields", x."createdAt"
      FROM jsonb_to_recordset(${lines}::jsonb) AS x(id uuid, "productId" uuid, "offerId" uuid, "variantId" uuid, position int, quantity int, "unitPrice" int, discount int, tax int,
        "taxInclusive" boolean, "refundedQuantity" int, "customFields" jsonb, "createdAt" timestamptz)
    )
    INSERT INTO "Payment" (id, "workspaceId", livemode, "orderId", sequence, number, status, amount, tax, fee, "feeBasisPoints", "feeFixed", currency, processor, "methodType",
      "processorChargeId", "failureCode", "failureMessage", "refundedAmount", disputed, "planChange", "cancelRequestedAt", "expiresAt", "paidAt", "userId", "subscriptionId",
      "subscriptionPeriod", "createdAt", "updatedAt")
    VALUES (${payment.id}::uuid, ${payment.workspaceId}::uuid, ${payment.livemode}, ${payment.orderId}::uuid, ${payment.sequence}, ${payment.number}, ${payment.status}::"PaymentStatus",
      ${payment.amount}, ${payment.tax}, ${payment.fee}, ${payment.feeBasisPoints}, ${payment.feeFixed}, ${payment.currency}, ${payment.processor}::"PaymentProcessor",
      ${payment.methodType}::"PaymentMethodType", ${payment.processorChargeId}, ${payment.failureCode}, ${payment.failureMessage}, ${payment.refundedAmount}, ${payment.disputed},
      ${payment.planChange}, ${payment.cancelRequestedAt}, ${payment.expiresAt}, ${payment.paidAt}, ${payment.userId}::uuid, ${payment.subscriptionId}::uuid, ${payment.subscriptionPeriod},
      ${payment.createdAt}, ${payment.updatedAt})`;
}

/**
 * Creates an order in the caller's transaction: its items, its first payment (PENDING) and, for a
 * subscription offer, its subscription (`incomplete` until the first payment is paid); records
 * order_created. Prices are checked here; the offers' availability is the caller's (checkout).
 */
export async function createOrder(tx: Prisma.TransactionClient, scope: Scope, input: NewOrder, rule: FeeRule = FEE_RULE): Promise<CreatedOrder> {
  const itemsValue = checkNewOrder(input);
  // A trial's order charges nothing now (its card is only saved); its items' prices are what the
  // first charge, at the trial's end, takes (docs/decisions.md "Subscriptions").
  const trial = Boolean(input.subscription?.trialInterval);
  const value = trial ? 0 : itemsValue;
  const tax = trial ? 0 : input.items.reduce((sum, item) => sum + (item.tax ?? 0), 0);
  const discountAmount = input.items.reduce((sum, item) => sum + (item.discount ?? 0), 0);
  // On the value without tax: tax is the authorities', not revenue (docs/decisions.md "Tax").
  const fee = platformFee(value - tax, rule);
  // Collisions need the same millisecond and 35 equal random bits; the unique index stops one.
  const number = newOrderNumber();
  const owner = { ...inScope(scope), userId: input.user?.id ?? null };
  const subscription = input.subscription
    ? await tx.subscription.create({
        data: {
          ...owner, number, currency: input.currency, amount: itemsValue, processor: input.payment.processor, methodType: input.payment.methodType,
          recurringInterval: input.subscription.recurringInterval, recurringIntervalCount: input.subscription.recurringIntervalCount ?? 1,
          trialInterval: input.subscription.trialInterval ?? null, trialIntervalCount: input.subscription.trialInterval ? (input.subscription.trialIntervalCount ?? 1) : null,
        },
      })
    : null;
  // Prisma's @default(now()) and @updatedAt: one time for every row the order writes.
  const now = new Date();
  const orderId = input.ids?.orderId ?? uuidv7(now.getTime());
  const paymentId = input.ids?.paymentId ?? uuidv7(now.getTime());
  const order: Order = {
    id: orderId, ...owner, number, type: subscription ? 'SUBSCRIPTION' : value === 0 ? 'FREE' : 'ONE_TIME', status: 'PENDING', currency: input.currency, value, tax, fee,
    discountId: input.discountId ?? null, discountAmount, totalItems: input.items.reduce((sum, item) => sum + item.quantity, 0),
    country: input.country ?? null, billingState: input.billingState ?? null, billingPostalCode: input.billingPostalCode ?? null,
    taxInclusive: input.taxInclusive ?? false, taxId: input.taxId ?? null, taxReason: input.taxReason ?? null, checkoutId: input.checkoutId ?? null,
    subscriptionId: subscription?.id ?? null, lastPaymentId: paymentId, disputed: false, itemCustomFields: input.items.map((item) => item.customFields ?? {}),
    paidAt: null, cancelledAt: null, reservedAt: input.reservedAt ?? null, releasedAt: null, createdAt: now, updatedAt: now,
  };
  const items: OrderItem[] = input.items.map((item, position) => ({
    id: uuidv7(now.getTime()), orderId, productId: item.productId, offerId: item.offerId, variantId: item.variantId ?? null, position, quantity: item.quantity, unitPrice: item.unitPrice,
    discount: item.discount ?? 0, tax: item.tax ?? 0, taxInclusive: item.taxInclusive ?? false, refundedQuantity: 0,
    // None: SQL NULL (the column Prisma left out), not a JSON null.
    customFields: item.customFields ?? null, createdAt: now,
  }));
  // The row as the database holds it (the fields in the model's order, as Prisma returns them).
  const created: Payment = {
    id: paymentId, workspaceId: owner.workspaceId, livemode: owner.livemode, orderId, sequence: 1, number, status: 'PENDING', amount: value, tax, ...paymentFee(value - tax, rule),
    currency: input.currency, processor: input.payment.processor, methodType: input.payment.methodType, processorChargeId: null, failureCode: null, failureMessage: null,
    refundedAmount: 0, disputed: false, planChange: false, cancelRequestedAt: null, expiresAt: input.payment.expiresAt ?? null, paidAt: null,
    userId: owner.userId, subscriptionId: subscription?.id ?? null, subscriptionPeriod: null, createdAt: now, updatedAt: now,
  };
  await writeOrder(tx, order, items, created);
  // The numbers paymentRowInclude reads are the ones just written: no read after the insert.
  const payment: PaymentRow = { ...created, order: { number }, subscription: subscription ? { number: subscription.number } : null };
  // The order and items as loadOrderForEvent would read them, from the rows in hand (no read after
  // the insert): the caller's buyer, the payment and subscription just made, no license keys (the
  // caller reserves them after this returns).
  const loaded: OrderRow = { ...order, user: input.user, lastPayment: payment, subscription };
  const loadedItems = items.map((item) => {
    const row = { ...item, licenseKeys: [] as LicenseKey[] };
    return { ...row, deliveredKeys: deliveredKeys(loaded, row) };
  });
  await recordEvent(tx, scope, 'order_created', orderEventData(loaded, loadedItems));
  return { order: loaded, items: loadedItems, payment, subscription };
}

/**
 * Gives back what the checkout reserved for an order (each item's quantity to its offer's
 * soldItems, one use to its discount's timesUsed; delivery, on its hook, its license keys to stock), in the caller's transaction: called when the
 * order's first payment leaves PENDING unpaid (FAILED, EXPIRED, CANCELLED). Once per order:
 * `releasedAt` is claimed by a conditional update (concurrent callers serialise on the order's
 * row), and orders the checkout did not reserve for (`reservedAt` null) are left alone. Offers
 * are updated in id order, then the discount, as the checkout locks them. Returns whether it released.
 */
export async function releaseOrderReservations(tx: Prisma.TransactionClient, orderId: string): Promise<boolean> {
  const { count } = await tx.order.updateMany({ where: { id: orderId, reservedAt: { not: null }, releasedAt: null }, data: { releasedAt: new Date() } });
  if (count === 0) return false;
  await notifyReservationsReleased(tx, orderId);
  // One statement: a transaction's one connection takes one query at a time.
  const { items, ...order } = await tx.order.findUniqueOrThrow({ where: { id: orderId }, select: { discountId: true, items: { select: { offerId: true, quantity: true } } } });
  const units = new Map<string, number>();
  for (const item of items) units.set(item.offerId, (units.get(item.offerId) ?? 0) + item.quantity);
  for (const offerId of [...units.keys()].sort()) {
    const quantity = units.get(offerId)!;
    await tx.offer.updateMany({ where: { id: offerId, soldItems: { gte: quantity } }, data: { soldItems: { decrement: quantity } } });
  }
  if (order.discountId) await tx.discount.updateMany({ where: { id: order.discountId, timesUsed: { gt: 0 } }, data: { timesUsed: { decrement: 1 } } });
  return true;
}

export type OrderListArgs = SaleListArgs;

export async function listOrders(prisma: PrismaClient, scope: Scope, args: OrderListArgs, query: Query) {
  const { skip, take } = offsetPage(args, 20);
  const filters = readSaleFilters(args);
  // Orders are never archived: archived=true asks for none of them.
  if (args.archived) return { orders: [], count: args.returnCount ? 0 : null };
  const where = orderListWhere(scope, args, filters, filters.term ? await termBuyers(prisma, scope, filters.term) : undefined);
  const [orders, count] = await Promise.all([
    prisma.order.findMany({ ...query, where, ...salePage(args, skip, 'value'), skip, take }),
    args.returnCount ? prisma.order.count({ where }) : null,
  ]);
  return { orders, count };
}

/** The order an `orderIdOrNumber` names in the scope (its id, or its number with or without `#`). */
export async function findOrder<Q extends Query = object>(prisma: Db, scope: Scope, orderIdOrNumber: string, query?: Q): Promise<Prisma.OrderGetPayload<Q>> {
  const order = await prisma.order.findFirst({ ...query, where: { ...inScope(scope), ...parseOrderRef(orderIdOrNumber) } });
  if (!order) throw new NotFound('Order');
  return order as Prisma.OrderGetPayload<Q>;
}

export type CatalogueItem = ReturnType<typeof orderItemResource> & { offer: Offer | null; product: Product | null };

/** An order's cart items with their offers and products as they are now (archived ones too), in cart order. */
export async function orderItemsWithCatalogue(prisma: Db, scope: Scope, orderId: string): Promise<CatalogueItem[]> {
  const [order, rows] = await Promise.all([
    prisma.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true, paidAt: true } }),
    prisma.orderItem.findMany({ where: { orderId }, orderBy: [{ position: 'asc' }, { id: 'asc' }], include: { licenseKeys: true } }),
  ]);
  const items = rows.map((item) => ({ ...item, deliveredKeys: deliveredKeys(order, item) }));
  const [offers, products] = await Promise.all([
    prisma.offer.findMany({ where: { id: { in: [...new Set(items.map((i) => i.offerId))] }, ...inScope(scope) } }),
    prisma.product.findMany({ where: { id: { in: [...new Set(items.map((i) => i.productId))] }, ...inScope(scope) } }),
  ]);
  const offerById = new Map(offers.map((o) => [o.id, o]));
  const productById = new Map(products.map((p) => [p.id, p]));
  return items.map((item) => ({ ...orderItemResource(item), offer: offerById.get(item.offerId) ?? null, product: productById.get(item.productId) ?? null }));
}

/**
 * Cancels an order that allows it (CANCELLABLE; 400 otherwise): CANCELLED, no refund. Its pending
 * payments that can be cancelled get a cancel request for the payment workflow to carry to the
 * processor; a subscription whose first payment never came can no longer start.
 */
export async function cancelOrder(prisma: PrismaClient, scope: Scope, orderIdOrNumber: string, query: Query) {
  return prisma.$transaction(async (tx) => {
    const current = await findOrder(tx, scope, orderIdOrNumber, { select: { id: true, subscriptionId: true } });
    const now = new Date();
    const { count } = await tx.order.updateMany({ where: { id: current.id, status: { in: [...CANCELLABLE] } }, data: { status: 'CANCELLED', cancelledAt: now } });
    if (count === 0) {
      const { status } = await tx.order.findUniqueOrThrow({ where: { id: current.id }, select: { status: true } });
      throw new ValidationFailed(`An order in status ${status} cannot be cancelled`);
    }
    await tx.payment.updateMany({
      where: { orderId: current.id, status: 'PENDING', cancelRequestedAt: null, planChange: false, processor: { not: null }, methodType: { in: ['card', 'manual'] } },
      data: { cancelRequestedAt: now },
    });
    if (current.subscriptionId) {
      await tx.subscription.updateMany({ where: { id: current.subscriptionId, status: 'incomplete' }, data: { status: 'incomplete_expired', endedAt: now } });
    }
    const { order, items } = await loadOrderForEvent(tx, current.id);
    await recordEvent(tx, scope, 'order_cancelled', orderEventData(order, items));
    return tx.order.findUniqueOrThrow({ ...query, where: { id: current.id } });
  });
}

export interface OrderFields {
  status?: OrderStatus | null;
  value?: number | null;
  fee?: number | null;
  tax?: number | null;
  currency?: string | null;
}

/** Writes status, value, fee, tax and currency as given (the contract: "modifies records directly"), checked; order_updated when something changed. */
export async function updateOrder(prisma: PrismaClient, scope: Scope, orderIdOrNumber: string, fields: OrderFields, query: Query) {
  for (const name of ['status', 'value', 'fee', 'tax', 'currency'] as const) if (fields[name] === null) throw new ValidationFailed(`${name} cannot be null`);
  for (const name of ['value', 'fee', 'tax'] as const) {
    const amount = fields[name];
    if (amount != null && !isMoney(amount)) throw new ValidationFailed(`${name} must be whole minor units from 0 to ${MAX_MONEY}`);
  }
  const currency = fields.currency?.trim().toUpperCase();
  if (currency !== undefined && !isCurrency(currency)) throw new ValidationFailed('currency must be a three-letter currency code of the list');
  return prisma.$transaction(async (tx) => {
    const { id } = await findOrder(tx, scope, orderIdOrNumber, { select: { id: true } });
    // Locked, so the checks below see the values the update replaces.
    await tx.$queryRaw`SELECT 1 FROM "Order" WHERE id = ${id}::uuid FOR UPDATE`;
    const current = await tx.order.findUniqueOrThrow({ where: { id } });
    const next = { status: fields.status ?? current.status, value: fields.value ?? current.value, fee: fields.fee ?? current.fee, tax: fields.tax ?? current.tax, currency: currency ?? current.currency };
    if (next.fee > next.value) throw new ValidationFailed(`fee (${next.fee}) cannot be more than value (${next.value})`);
    if (next.tax > next.value) throw new ValidationFailed(`tax (${next.tax}) cannot be more than value (${next.value})`);
    const changed = (Object.keys(next) as (keyof typeof next)[]).some((key) => next[key] !== current[key]);
    if (changed) {
      await tx.order.update({ where: { id }, data: next });
      const { order, items } = await loadOrderForEvent(tx, id);
      await recordEvent(tx, scope, 'order_updated', orderEventData(order, items));
    }
    return tx.order.findUniqueOrThrow({ ...query, where: { id } });
  });
}
