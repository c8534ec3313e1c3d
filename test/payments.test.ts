import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { operations } from './generated/openapi.js';
import { newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { advance, DAY, DECLINES_OFF_SESSION, paymentsOf, seconds, subscribe, subscriptionElement, TEST } from './support/subscriptions.js';
import { countEvents, eventsAbout, newBuyer, newCatalogue, salesDb, seedOrder } from './support/sales.js';
import {
  markPaymentCancelled,
  markPaymentDisputed,
  markPaymentExpired,
  markPaymentFailed,
  markPaymentPaid,
  PaymentTransitionRefused,
  recordCharge,
} from '../src/payments/transitions.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';

type ListQuery = NonNullable<operations['payments']['parameters']['query']>;
const READ: KeyChoice = { write: false };
const TEST_READ: KeyChoice = { mode: 'test', write: false };

const listPayments = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) => restClient(ws, key).GET('/v0/payments/list', { params: { query } });
const getPayment = (ws: Workspace, paymentId: string, key: KeyChoice = READ) => restClient(ws, key).GET('/v0/payments/{paymentId}', { params: { path: { paymentId } } });
const cancelPayment = (ws: Workspace, paymentId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/payments/{paymentId}/cancel', { params: { path: { paymentId } }, body: {} });
const inTx = <T>(work: (tx: Parameters<Parameters<ReturnType<typeof salesDb>['$transaction']>[0]>[0]) => Promise<T>) => salesDb().$transaction(work);

describe('payments: the object, details and isolation', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Payments objects', ['testMode=true']), newWorkspace('Payments elsewhere')]);
  });

  test('payment_success carries the payment as the list returns it, its order, items with ids, and user = customer', async () => {
    const buyer = await newBuyer(ws);
    const { item } = await newCatalogue(ws, 700);
    const created = await seedOrder(ws, { userId: buyer.id, items: [item(2)] });
    const first = await inTx((tx) => markPaymentPaid(tx, created.payment.id, { processorChargeId: 'ch_sbx_1' }));
    expect(first.changed).toBe(true);
    const { payments } = await ok(listPayments(ws, { ids: [created.payment.id] }));
    const [row] = payments;
    expect(row).toMatchObject({
      object: 'payment', id: created.payment.id, number: created.order.number, status: 'PAID', amount: 1400, fee: 120, currency: 'USD', processor: 'sandbox',
      methodType: 'card', processorChargeId: 'ch_sbx_1', refundedAmount: 0, disputed: false, planChange: false, cancelRequestedAt: null, orderId: created.order.id,
      orderNumber: created.order.number, userId: buyer.id, subscriptionId: null, paidAt: expect.any(Number),
    });
    const [event] = await eventsAbout(ws, 'payment_success', 'payment', created.payment.id);
    const data = event!.payload as Record<string, any>;
    expect(data.payment).toEqual(row);
    expect(data.user).toEqual(buyer);
    expect(data.customer).toEqual(data.user);
    expect(data.items).toEqual([expect.objectContaining({ id: created.items[0]!.id, quantity: 2 })]);
    expect(data.order).toMatchObject({ id: created.order.id, status: 'PAID', lastPayment: row });
  });

  test('details: user, order, subscription, charges (first attempt first) and invoice (null: a payment never paid has none)', async () => {
    const buyer = await newBuyer(ws);
    const created = await seedOrder(ws, { userId: buyer.id, subscription: { recurringInterval: 'year' } });
    // Charges the sandbox holds (a decline, then a card waiting for 3-D Secure), so that the books agree with the processor's (test/support/invariants.ts).
    const sandbox = new SandboxProcessor({ prisma: salesDb() });
    const charge = (number: string) =>
      sandbox.createCharge({
        paymentId: created.payment.id, idempotencyKey: `details-${randomUUID()}`, amount: 1000, currency: 'USD', method: 'card',
        card: { number, expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' }, email: 'details@example.com', livemode: false,
      });
    const [declined, waiting] = [await charge('4000000000000002'), await charge('4000002760003184')];
    await inTx(async (tx) => {
      await recordCharge(tx, created.payment.id, 1, { processor: 'sandbox', processorChargeId: waiting.chargeId, status: 'pending', amount: 1000, currency: 'USD', cardBrand: 'visa', cardLast4: '3184' });
      await recordCharge(tx, created.payment.id, 0, { processor: 'sandbox', processorChargeId: declined.chargeId, status: 'failed', amount: 1000, currency: 'USD', failureCode: 'card_declined' });
      // A retried activity writes the same attempt again: still one row.
      await recordCharge(tx, created.payment.id, 1, { processor: 'sandbox', processorChargeId: waiting.chargeId, status: 'pending', amount: 1000, currency: 'USD', cardBrand: 'visa', cardLast4: '3184' });
    });
    const { payment } = await ok(getPayment(ws, created.payment.id));
    expect(payment).toMatchObject({ id: created.payment.id, user: buyer, order: { id: created.order.id, number: created.order.number }, subscription: { id: created.order.number, status: 'incomplete' }, invoice: null });
    expect(payment.subscriptionId).toBe(created.order.number);
    expect(payment.charges.map((c) => [c.object, c.attempt, c.processorChargeId, c.status, c.failureCode, c.cardLast4])).toEqual([
      ['charge', 0, declined.chargeId, 'failed', 'card_declined', null],
      ['charge', 1, waiting.chargeId, 'pending', null, '3184'],
    ]);
  });

  test('one charge recorded by several callers at once (a checkout and its retry): no unique violation, one row each', async () => {
    const sandbox = new SandboxProcessor({ prisma: salesDb() });
    const created = await Promise.all(Array.from({ length: 200 }, () => seedOrder(ws)));
    // A card waiting for 3-D Secure: the charge stays pending, as its payment does.
    const charges = await Promise.all(
      created.map(({ payment }) =>
        sandbox.createCharge({
          paymentId: payment.id, idempotencyKey: `concurrent-${randomUUID()}`, amount: payment.amount, currency: 'USD', method: 'card',
          card: { number: '4000002760003184', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' }, email: 'concurrent@example.com', livemode: true,
        }),
      ),
    );
    const record = (index: number) => {
      const { payment } = created[index]!;
      return recordCharge(salesDb(), payment.id, 0, { processor: 'sandbox', processorChargeId: charges[index]!.chargeId, status: 'pending', amount: payment.amount, currency: 'USD', cardLast4: '3184' });
    };
    const outcomes = await Promise.allSettled(created.flatMap((_, index) => [record(index), record(index), record(index), record(index)]));
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const rows = await salesDb().charge.findMany({ where: { paymentId: { in: created.map(({ payment }) => payment.id) } } });
    expect(rows).toHaveLength(created.length);
    expect(new Set(rows.map((row) => row.processorChargeId))).toEqual(new Set(charges.map((charge) => charge.chargeId)));
  });

  test("another workspace's keys and the other mode get 404 for every payment route; malformed ids are 400", async () => {
    const live = await seedOrder(ws);
    const test = await seedOrder(ws, {}, { mode: 'test' });
    expect((await failure(getPayment(other, live.payment.id))).status).toBe(404);
    expect((await failure(cancelPayment(other, live.payment.id))).status).toBe(404);
    expect((await ok(listPayments(other, { ids: [live.payment.id] }))).payments).toEqual([]);
    expect((await failure(getPayment(ws, test.payment.id))).status).toBe(404);
    expect((await failure(cancelPayment(ws, test.payment.id))).status).toBe(404);
    expect((await ok(getPayment(ws, test.payment.id, { mode: 'test', write: false }))).payment.id).toBe(test.payment.id);
    expect((await failure(getPayment(ws, randomUUID()))).status).toBe(404);
    expect((await failure(getPayment(ws, 'not-a-uuid'))).status).toBe(400);
    const stored = await salesDb().payment.findUniqueOrThrow({ where: { id: live.payment.id } });
    expect(stored.cancelRequestedAt).toBeNull();
  });
});

describe('payments: cancel requests', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Payments cancel');
  });

  test('a PENDING card payment: success, stays PENDING with the request recorded; asking again changes nothing', async () => {
    const created = await seedOrder(ws);
    expect((await failure(cancelPayment(ws, created.payment.id, READ))).status).toBe(401);
    expect(await ok(cancelPayment(ws, created.payment.id))).toEqual({ success: true });
    const requested = (await ok(getPayment(ws, created.payment.id))).payment;
    expect(requested).toMatchObject({ status: 'PENDING', cancelRequestedAt: expect.any(Number) });
    expect(await ok(cancelPayment(ws, created.payment.id))).toEqual({ success: true });
    expect((await ok(getPayment(ws, created.payment.id))).payment.cancelRequestedAt).toBe(requested.cancelRequestedAt);
    // The processor's confirmation (the payment workflow's part) then cancels it.
    await inTx((tx) => markPaymentCancelled(tx, created.payment.id));
    expect((await ok(getPayment(ws, created.payment.id))).payment).toMatchObject({ status: 'CANCELLED', order: { status: 'CANCELLED' } });
    expect(await eventsAbout(ws, 'payment_cancelled', 'payment', created.payment.id)).toHaveLength(1);
  });

  test('400 for any other status, PayPal-type, plan-change and processor-less payments; nothing is written', async () => {
    const paid = await seedOrder(ws);
    await inTx((tx) => markPaymentPaid(tx, paid.payment.id));
    const paypal = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } });
    const free = await seedOrder(ws, { payment: { processor: null, methodType: null } });
    const cases: Array<[string, RegExp]> = [
      [paid.payment.id, /PENDING/],
      [paypal.payment.id, /PayPal/],
      [free.payment.id, /processor/],
    ];
    for (const [id, message] of cases) {
      const res = await failure(cancelPayment(ws, id));
      expect({ id, status: res.status, message: res.body.error.message }).toEqual({ id, status: 400, message: expect.stringMatching(message) });
      expect((await salesDb().payment.findUniqueOrThrow({ where: { id } })).cancelRequestedAt).toBeNull();
    }
    const manual = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'manual' } });
    expect(await ok(cancelPayment(ws, manual.payment.id))).toEqual({ success: true });
  });

  test("a plan change's payment, PENDING while its charge is at the processor: 400, nothing written", async () => {
    const subscriptions = await newWorkspace('Payments cancel: plan change', ['testMode=true']);
    const { subscription } = await subscribe(subscriptions, await subscriptionElement(subscriptions, 900));
    const { offer: pro } = await newCatalogue(subscriptions, 2000, TEST, { recurringInterval: 'month' });
    // The upgrade's charge held at the processor's door (the saved card's row locked), so that its payment stays PENDING meanwhile.
    const door = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await door.connect();
    try {
      await door.query('BEGIN');
      await door.query('SELECT 1 FROM "SandboxPaymentMethod" WHERE id = $1 FOR UPDATE', [subscription.paymentMethodRef]);
      const upgrade = ok(restClient(subscriptions, TEST).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/update', { params: { path: { subscriptionIdOrNumber: subscription.number } }, body: { items: [{ offerId: pro.id }] } }));
      const { payments } = await eventually(
        () => ok(listPayments(subscriptions, { subscriptionNumber: subscription.number }, TEST_READ)),
        ({ payments: listed }) => listed.some((p) => p.planChange),
      );
      const planChange = payments.find((p) => p.planChange)!;
      expect(planChange.status).toBe('PENDING');
      const refused = await failure(cancelPayment(subscriptions, planChange.id, TEST));
      expect({ status: refused.status, message: refused.body.error.message }).toEqual({ status: 400, message: expect.stringMatching(/plan-change/) });
      expect((await ok(getPayment(subscriptions, planChange.id, TEST_READ))).payment.cancelRequestedAt).toBeNull();
      await door.query('COMMIT');
      expect((await upgrade).payment).toMatchObject({ id: planChange.id, status: 'PAID' });
    } finally {
      await door.end();
    }
  }, 120_000);
});

describe('payments: state changes', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Payments transitions');
  });

  test('20 concurrent confirmations: one PAID, one payment_success; a repeat later changes nothing', async () => {
    const created = await seedOrder(ws);
    const results = await Promise.all(Array.from({ length: 20 }, () => inTx((tx) => markPaymentPaid(tx, created.payment.id))));
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(await eventsAbout(ws, 'payment_success', 'payment', created.payment.id)).toHaveLength(1);
    const before = await countEvents(ws);
    expect((await inTx((tx) => markPaymentPaid(tx, created.payment.id))).changed).toBe(false);
    expect(await countEvents(ws)).toBe(before);
    expect((await ok(getPayment(ws, created.payment.id))).payment).toMatchObject({ status: 'PAID', order: { status: 'PAID', paidAt: expect.any(Number) } });
  });

  test('refused changes throw PaymentTransitionRefused and write nothing (the event rolls back with the change)', async () => {
    const paid = await seedOrder(ws);
    await inTx((tx) => markPaymentPaid(tx, paid.payment.id));
    const before = await countEvents(ws);
    for (const change of [
      (tx: never) => markPaymentFailed(tx, paid.payment.id, { failureCode: 'x', failureMessage: 'x' }),
      (tx: never) => markPaymentCancelled(tx, paid.payment.id),
      (tx: never) => markPaymentExpired(tx, paid.payment.id),
    ]) {
      await expect(inTx((tx) => change(tx as never))).rejects.toBeInstanceOf(PaymentTransitionRefused);
    }
    expect(await countEvents(ws)).toBe(before);
    const failed = await seedOrder(ws);
    await inTx((tx) => markPaymentFailed(tx, failed.payment.id, { failureCode: 'insufficient_funds', failureMessage: 'Insufficient funds' }));
    await expect(inTx((tx) => markPaymentPaid(tx, failed.payment.id))).rejects.toThrow(/is FAILED; it cannot become PAID/);
    await expect(inTx((tx) => markPaymentPaid(tx, randomUUID()))).rejects.toThrow(/Payment not found/);
    // A change and its event commit together: a transaction that fails after them keeps neither.
    const rolledBack = await seedOrder(ws);
    const count = await countEvents(ws);
    await expect(inTx(async (tx) => {
      await markPaymentPaid(tx, rolledBack.payment.id);
      throw new Error('caller failed');
    })).rejects.toThrow('caller failed');
    expect(await countEvents(ws)).toBe(count);
    expect((await salesDb().payment.findUniqueOrThrow({ where: { id: rolledBack.payment.id } })).status).toBe('PENDING');
  });

  test('FAILED, EXPIRED and CANCELLED move a pending order with them, each with its event; a failed first payment ends its subscription', async () => {
    const failed = await seedOrder(ws, { subscription: { recurringInterval: 'month' } });
    await inTx((tx) => markPaymentFailed(tx, failed.payment.id, { failureCode: 'card_declined', failureMessage: 'The card was declined', processorChargeId: 'ch_sbx_f' }));
    expect((await ok(getPayment(ws, failed.payment.id))).payment).toMatchObject({
      status: 'FAILED', failureCode: 'card_declined', processorChargeId: 'ch_sbx_f', order: { status: 'FAILED' }, subscription: { status: 'incomplete_expired' },
    });
    const [failedEvent] = await eventsAbout(ws, 'payment_failed', 'payment', failed.payment.id);
    expect(failedEvent!.payload).toMatchObject({ payment: { status: 'FAILED' }, user: null, customer: null, items: [{ id: failed.items[0]!.id }] });
    expect(await eventsAbout(ws, 'subscription_created', 'subscription', failed.order.number)).toHaveLength(0);
    const expired = await seedOrder(ws);
    expect((await inTx((tx) => markPaymentExpired(tx, expired.payment.id))).changed).toBe(true);
    expect((await inTx((tx) => markPaymentExpired(tx, expired.payment.id))).changed).toBe(false);
    expect((await ok(getPayment(ws, expired.payment.id))).payment).toMatchObject({ status: 'EXPIRED', order: { status: 'EXPIRED' } });
    expect(await eventsAbout(ws, 'payment_expired', 'payment', expired.payment.id)).toHaveLength(1);
  });

  test('a charge confirmed after its order was cancelled: the payment is PAID (the money moved), the order stays CANCELLED', async () => {
    const created = await seedOrder(ws);
    await ok(restClient(ws).PATCH('/v0/orders/{orderIdOrNumber}/cancel', { params: { path: { orderIdOrNumber: created.order.id } }, body: {} }));
    await inTx((tx) => markPaymentPaid(tx, created.payment.id));
    expect((await ok(getPayment(ws, created.payment.id))).payment).toMatchObject({ status: 'PAID', order: { status: 'CANCELLED' } });
  });

  test('a dispute marks the payment and its order for good; the disputed filters find them', async () => {
    const created = await seedOrder(ws);
    await inTx((tx) => markPaymentPaid(tx, created.payment.id));
    expect((await inTx((tx) => markPaymentDisputed(tx, created.payment.id))).changed).toBe(true);
    expect((await inTx((tx) => markPaymentDisputed(tx, created.payment.id))).changed).toBe(false);
    expect((await ok(listPayments(ws, { disputed: true }))).payments.map((p) => p.id)).toEqual([created.payment.id]);
    const orders = await ok(restClient(ws, READ).GET('/v0/orders/list', { params: { query: { disputed: true } } }));
    expect(orders.orders.map((o) => o.id)).toEqual([created.order.id]);
  });
});

describe('payments: list filters (the orders list\'s, on payments)', () => {
  let ws: Workspace;
  const p: Record<string, string> = {};
  const checkoutId = randomUUID();
  let subscriptionNumber: string;
  let buyerEmail: string;

  let amount: number;

  // Test mode: the subscription is bought through the hosted checkout (a card saved fine whose
  // off-session charges are declined) and its renewal is made by its workflow on the test clock
  // (test keys only): PENDING while dunning retries it. The other payments are seeded in that mode.
  beforeAll(async () => {
    ws = await newWorkspace('Payments filters', ['testMode=true']);
    const buyer = await newBuyer(ws, `carol-${randomUUID()}@example.com`, TEST);
    buyerEmail = buyer.email!;
    const line = (unitPrice: number, customFields?: Record<string, string>) => ({ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice, customFields });
    const one = await seedOrder(ws, { userId: buyer.id, country: 'FR', checkoutId, items: [line(1500, { seat: '12A' })] }, TEST);
    const element = await subscriptionElement(ws, 800, { recurringInterval: 'month', currency: 'EUR' });
    const sub = await subscribe(ws, element, { cardNumber: DECLINES_OFF_SESSION, billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    const free = await seedOrder(ws, { items: [line(0)], payment: { processor: null, methodType: null } }, TEST);
    subscriptionNumber = sub.order.number;
    await inTx(async (tx) => {
      await markPaymentPaid(tx, one.payment.id);
      await markPaymentPaid(tx, free.payment.id);
    });
    await ok(advance(ws, subscriptionNumber, seconds(sub.subscription.currentPeriodEnd!) + DAY));
    const [first, renewal] = await paymentsOf(sub.subscription.id);
    const seen = [renewal?.number, renewal?.status, renewal?.currency, renewal?.amount];
    if (JSON.stringify(seen) !== JSON.stringify([`${subscriptionNumber}-2`, 'PENDING', 'EUR', first!.amount])) throw new Error(`not the retried renewal: ${JSON.stringify(seen)}`);
    amount = first!.amount;
    Object.assign(p, { one: one.payment.id, sub: first!.id, free: free.payment.id, renewal: renewal!.id });
    // Time travel, which no route does: the payments one month apart.
    const months = { one: 1, sub: 2, free: 3, renewal: 4 } as const;
    for (const [name, month] of Object.entries(months)) await salesDb().payment.update({ where: { id: p[name]! }, data: { createdAt: new Date(Date.UTC(2026, month - 1, 1)) } });
  }, 120_000);

  const names = async (query: ListQuery) => (await ok(listPayments(ws, query, TEST_READ))).payments.map((row) => Object.keys(p).find((name) => p[name] === row.id) ?? row.id);

  test('order, number, subscription and the order-level filters', async () => {
    expect(await names({})).toEqual(['renewal', 'free', 'sub', 'one']);
    expect(await names({ statuses: ['PENDING'] })).toEqual(['renewal']);
    expect(await names({ number: `${subscriptionNumber}-2` })).toEqual(['renewal']);
    expect(await names({ number: `#${subscriptionNumber}` })).toEqual(['sub']);
    expect(await names({ subscriptionNumber })).toEqual(['renewal', 'sub']);
    expect(await names({ subscriptionId: subscriptionNumber })).toEqual(['renewal', 'sub']);
    expect(await names({ checkoutIds: [checkoutId] })).toEqual(['one']);
    expect(await names({ customFields: JSON.stringify({ seat: '12A' }) })).toEqual(['one']);
    expect(await names({ types: ['SUBSCRIPTION'] })).toEqual(['renewal', 'sub']);
    expect(await names({ types: ['FREE', 'ONE_TIME'] })).toEqual(['free', 'one']);
    expect(await names({ country: 'de' })).toEqual(['renewal', 'sub']);
    expect(await names({ currency: 'EUR', valueFrom: amount, valueTo: amount })).toEqual(['renewal', 'sub']);
    expect(await names({ valueFrom: 1000 })).toEqual(['one']);
    expect(await names({ term: buyerEmail.slice(0, 10) })).toEqual(['one']);
    expect(await names({ term: `${subscriptionNumber.toLowerCase()}-2` })).toEqual(['renewal']);
    expect(await names({ createdFrom: Date.UTC(2026, 1, 1) / 1000, createdTo: Date.UTC(2026, 2, 1) })).toEqual(['free', 'sub']);
    expect(await names({ orderBy: 'value', orderDirection: 'ASC' })).toEqual(['free', 'sub', 'renewal', 'one']);
    expect(await names({ orderBy: 'orderNumber', orderDirection: 'ASC' })).toEqual(
      Object.keys(p).sort((a, b) => (numberOf(a) < numberOf(b) ? -1 : 1)),
    );
    expect(await ok(listPayments(ws, { archived: true, returnCount: true }, TEST_READ))).toEqual({ payments: [], count: 0 });
    for (const query of [{ customFields: '{' }, { number: 'bad number' }, { currency: 'ABC' }, { statuses: ['SHIPPED'] }] as unknown as ListQuery[]) {
      expect((await failure(listPayments(ws, query, TEST_READ))).status).toBe(400);
    }
  });

  const numbers: Record<string, string> = {};
  const numberOf = (name: string) => numbers[name]!;
  beforeAll(async () => {
    for (const [name, id] of Object.entries(p)) numbers[name] = (await salesDb().payment.findUniqueOrThrow({ where: { id } })).number;
  });
});
