import { randomUUID } from 'node:crypto';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventsAbout, newBuyer, salesDb, seedOrder } from './support/sales.js';
import { orderEventData } from '../src/orders/events.js';
import { loadOrderForEvent } from '../src/orders/service.js';
import { FEE_RULE, platformFee } from '../src/orders/fee.js';

// createOrder writes the order, its items and its first payment in one SQL statement of its own
// and returns the payment as it built it: the rows must be the ones Prisma would have written and
// read back, column for column. Nor does it read the order back for order_created: the order and
// items it returns and records must be the ones loadOrderForEvent reads from the database.

const storedRows = async (orderId: string) => {
  const db = salesDb();
  const order = await db.order.findUniqueOrThrow({ where: { id: orderId } });
  const payments = await db.payment.findMany({ where: { orderId } });
  // Prisma reads SQL NULL and JSON null alike: the column itself says which one is stored.
  const items = await db.$queryRaw<{ position: number; sqlNull: boolean; customFields: unknown }[]>`
    SELECT position, "customFields" IS NULL AS "sqlNull", "customFields" FROM "OrderItem" WHERE "orderId" = ${orderId}::uuid ORDER BY position`;
  return { order, payments, items };
};

/** The order and items createOrder returned, and its order_created's data, are the stored ones as loadOrderForEvent reads them. */
async function expectLoadedAsStored(ws: Workspace, created: Awaited<ReturnType<typeof seedOrder>>) {
  const stored = await loadOrderForEvent(salesDb(), created.order.id);
  expect({ order: created.order, items: created.items }).toStrictEqual(stored);
  const [event] = await eventsAbout(ws, 'order_created', 'order', created.order.id);
  expect(event!.payload).toEqual(JSON.parse(JSON.stringify(orderEventData(stored.order, stored.items))));
}

describe('createOrder: the rows it writes in one statement', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Orders rows');
  });

  test('a one-time order: every column of the order, its items and its payment; the payment returned is the stored row', async () => {
    const buyer = await newBuyer(ws);
    const [offerId, productId, variantId, discountId, checkoutId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const reservedAt = new Date(Date.now() - 1000);
    const expiresAt = new Date(Date.now() + 3_600_000);
    const created = await seedOrder(ws, {
      userId: buyer.id, country: 'US', billingState: 'CA', billingPostalCode: '94107', taxInclusive: false, taxId: null, taxReason: 'not_taxable', checkoutId, reservedAt, discountId,
      items: [
        { offerId, productId, variantId, quantity: 2, unitPrice: 1500, discount: 100, tax: 50, customFields: { nick: 'neo' } },
        { offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice: 700, customFields: null },
        { offerId: randomUUID(), productId: randomUUID(), quantity: 3, unitPrice: 10, taxInclusive: true, tax: 2, customFields: {} },
      ],
      payment: { processor: 'sandbox', methodType: 'card', expiresAt },
    });
    const { order, payments, items } = await storedRows(created.order.id);
    const { order: orderNumbers, subscription, ...returned } = created.payment;
    expect(orderNumbers).toEqual({ number: order.number });
    expect(subscription).toBeNull();
    expect(payments).toHaveLength(1);
    expect(payments[0]).toStrictEqual(returned);
    // In the model's order, as Prisma returns a row.
    expect(Object.keys(returned)).toEqual(Object.keys(payments[0]!));
    const now = order.createdAt;
    // 2 * 1500 - 100 + 50, 700, and 30 with its tax within: the fee is on the value without tax.
    const fee = platformFee(3680 - 52, FEE_RULE);
    expect(returned).toStrictEqual({
      id: order.lastPaymentId, workspaceId: ws.workspaceId, livemode: true, orderId: order.id, sequence: 1, number: order.number, status: 'PENDING',
      amount: 3680, tax: 52, fee, feeBasisPoints: FEE_RULE.basisPoints, feeFixed: FEE_RULE.fixed, currency: 'USD', processor: 'sandbox', methodType: 'card', processorChargeId: null, failureCode: null,
      failureMessage: null, refundedAmount: 0, disputed: false, planChange: false, cancelRequestedAt: null, expiresAt, paidAt: null, userId: buyer.id, subscriptionId: null,
      subscriptionPeriod: null, createdAt: now, updatedAt: now,
    });
    expect(order).toStrictEqual({
      id: created.order.id, workspaceId: ws.workspaceId, livemode: true, number: order.number, type: 'ONE_TIME', status: 'PENDING', userId: buyer.id, currency: 'USD',
      value: 3680, tax: 52, fee, discountId, discountAmount: 100, totalItems: 6, country: 'US', billingState: 'CA', billingPostalCode: '94107', taxInclusive: false,
      taxId: null, taxReason: 'not_taxable', checkoutId, subscriptionId: null, lastPaymentId: returned.id, disputed: false, itemCustomFields: [{ nick: 'neo' }, {}, {}],
      paidAt: null, cancelledAt: null, reservedAt, releasedAt: null, createdAt: now, updatedAt: now,
    });
    // No custom fields is SQL NULL (as Prisma left the column out), not a JSON null.
    expect(items).toEqual([
      { position: 0, sqlNull: false, customFields: { nick: 'neo' } },
      { position: 1, sqlNull: true, customFields: null },
      { position: 2, sqlNull: false, customFields: {} },
    ]);
    // (The rows as loadOrderForEvent reads them, with their license keys.)
    expect(created.items).toMatchObject([
      {
        id: created.items[0]!.id, orderId: order.id, productId, offerId, variantId, position: 0, quantity: 2, unitPrice: 1500, discount: 100, tax: 50, taxInclusive: false,
        refundedQuantity: 0, customFields: { nick: 'neo' }, createdAt: now,
      },
      { position: 1, variantId: null, discount: 0, tax: 0, taxInclusive: false, refundedQuantity: 0, customFields: null, createdAt: now },
      { position: 2, quantity: 3, tax: 2, taxInclusive: true, customFields: {}, createdAt: now },
    ]);
    expect(created.order.lastPayment).toEqual({ ...returned, order: { number: order.number }, subscription: null });
    const [event] = await eventsAbout(ws, 'order_created', 'order', order.id);
    expect(event!.payload).toEqual(JSON.parse(JSON.stringify(orderEventData(created.order, created.items))));
    await expectLoadedAsStored(ws, created);
  });

  test('a trial subscription order (nothing charged now) and a free claim: type, amounts, processor and subscription as stored', async () => {
    const trial = await seedOrder(ws, {
      items: [{ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice: 900 }],
      subscription: { recurringInterval: 'month', trialInterval: 'day', trialIntervalCount: 7 },
    });
    const stored = await storedRows(trial.order.id);
    const { order: trialNumbers, subscription, ...trialPayment } = trial.payment;
    expect(stored.payments).toStrictEqual([trialPayment]);
    expect(subscription).toEqual({ number: trial.subscription!.number });
    expect(trialNumbers).toEqual({ number: stored.order.number });
    expect(trialPayment).toMatchObject({ amount: 0, tax: 0, fee: 0, subscriptionId: trial.subscription!.id, processor: 'sandbox', userId: null });
    expect(stored.order).toMatchObject({ type: 'SUBSCRIPTION', value: 0, fee: 0, subscriptionId: trial.subscription!.id, lastPaymentId: trialPayment.id, itemCustomFields: [{}] });
    expect(stored.items).toEqual([{ position: 0, sqlNull: true, customFields: null }]);
    await expectLoadedAsStored(ws, trial);

    const free = await seedOrder(ws, { items: [{ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice: 0 }], payment: { processor: null, methodType: null } });
    const freeRows = await storedRows(free.order.id);
    const { order: _numbers, subscription: _none, ...freePayment } = free.payment;
    expect(freeRows.payments).toStrictEqual([freePayment]);
    expect(freePayment).toMatchObject({ amount: 0, fee: 0, processor: null, methodType: null, expiresAt: null });
    expect(freeRows.order).toMatchObject({ type: 'FREE', value: 0, reservedAt: null, checkoutId: null, lastPaymentId: freePayment.id });
    await expectLoadedAsStored(ws, free);
  });
});
