import { newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import {
  CARD_DECLINED,
  card,
  processorChargesOf,
  discountOf,
  eventually,
  newCheckout,
  newCodeDiscount,
  offerOf,
  orderBody,
  ordersOfCheckout,
  payCheckout,
  tally } from './support/checkout.js';
import { ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { SLOW, inParallel, statusesOf, counted, messagesOf, settledOrders } from './support/checkout-concurrency-suite.js';

describe('checkout under load: offer limits', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Checkout load: limits');
  });

  test('50 parallel buys of an offer with limit 10: exactly 10 PAID orders, 40 answers 400 (sold out), soldItems 10, nothing else written', async () => {
    const { element, offer } = await newCheckout(ws, { price: 1000, limit: 10 });
    const answers = await inParallel(element.id, Array.from({ length: 50 }, () => orderBody()));

    expect(statusesOf(answers)).toEqual({ 200: 10, 400: 40 });
    expect(messagesOf(answers, 400)).toHaveLength(1);
    const sold = answers.filter((a) => a.status === 200).map((a) => a.body.data);
    for (const { order, payment } of sold) {
      expect(order).toMatchObject({ object: 'order', checkoutId: element.id, value: 1000, totalItems: 1, currency: 'USD' });
      expect(payment).toMatchObject({ orderId: order.id, amount: 1000, processor: 'sandbox', methodType: 'card' });
    }
    expect(new Set(sold.map((s) => s.order.id)).size).toBe(10);

    const { orders, count } = await settledOrders(ws, element.id, 10);
    expect(count).toBe(10);
    expect(orders.map((o) => o.status)).toEqual(Array(10).fill('PAID'));
    expect(orders.map((o) => o.id).sort()).toEqual(sold.map((s) => s.order.id).sort());
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
    // The 40 refusals wrote nothing: no order, payment, charge or buyer beyond the 10 sales.
    expect(await tally([ws.workspaceId])).toMatchObject({ orders: 10, items: 10, payments: 10, charges: 10, users: 10, soldItems: 10 });
    const charged = await processorChargesOf(sold.map((s) => s.payment.id));
    expect(charged.map((c) => [c.status, c.amount])).toEqual(Array(10).fill(['succeeded', 1000]));
    // One more buyer afterwards: still sold out.
    const late = await payCheckout(element.id, orderBody());
    expect(late.status).toBe(400);
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
  }, SLOW);

  test('quantity above 1 near the limit: limit 10, 20 parallel buys of 3 give exactly 3 orders and soldItems 9', async () => {
    const { element, offer } = await newCheckout(ws, { price: 500, limit: 10 });
    const answers = await inParallel(element.id, Array.from({ length: 20 }, () => orderBody({ quantity: 3 })));

    expect(statusesOf(answers)).toEqual({ 200: 3, 400: 17 });
    for (const { body: { data } } of answers.filter((a) => a.status === 200)) expect(data.order).toMatchObject({ totalItems: 3, value: 1500 });
    const { orders, count } = await settledOrders(ws, element.id, 3);
    expect(count).toBe(3);
    expect(orders.map((o) => [o.status, o.totalItems])).toEqual(Array(3).fill(['PAID', 3]));
    expect((await offerOf(ws, offer.id)).soldItems).toBe(9);
    // One left: a buy of 2 is refused, a buy of 1 takes it.
    expect((await payCheckout(element.id, orderBody({ quantity: 2 }))).status).toBe(400);
    expect((await payCheckout(element.id, orderBody({ quantity: 1 }))).status).toBe(200);
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
  }, SLOW);
});

describe('checkout under load: carts and free claims', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Checkout load: carts');
  });

  test('two elements selling the same two limited offers in opposite order, 30 parallel buys on each: no deadlock, exactly 10 orders, both offers soldItems 10', async () => {
    const first = await newCheckout(ws, { price: 400, limit: 10 });
    const second = await newCheckout(ws, { price: 600, limit: 10 });
    const client = restClient(ws);
    const ab = (await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [first.offer.id, second.offer.id] } }))).checkoutElement;
    const ba = (await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [second.offer.id, first.offer.id] } }))).checkoutElement;
    const [onAb, onBa] = await Promise.all([inParallel(ab.id, Array.from({ length: 30 }, () => orderBody())), inParallel(ba.id, Array.from({ length: 30 }, () => orderBody()))]);
    const answers = [...onAb, ...onBa];
    expect(statusesOf(answers)).toEqual({ 200: 10, 400: 50 });
    for (const { body } of answers.filter((a) => a.status === 200)) expect(body.data.order).toMatchObject({ value: 1000, totalItems: 2 });
    const [offerA, offerB] = await Promise.all([offerOf(ws, first.offer.id), offerOf(ws, second.offer.id)]);
    expect([offerA.soldItems, offerB.soldItems]).toEqual([10, 10]);
    const listed = ((await ordersOfCheckout(ws, ab.id)).count ?? 0) + ((await ordersOfCheckout(ws, ba.id)).count ?? 0);
    expect(listed).toBe(10);
  }, SLOW);

  test('a free offer with limit 10, 50 parallel claims: exactly 10 PAID orders without any charge', async () => {
    const { element, offer } = await newCheckout(ws, { price: 0, limit: 10 });
    const answers = await inParallel(element.id, Array.from({ length: 50 }, () => orderBody({ card: undefined })));
    expect(statusesOf(answers)).toEqual({ 200: 10, 400: 40 });
    const claimed = answers.filter((a) => a.status === 200).map((a) => a.body.data);
    expect(claimed.map(({ order, payment }) => [order.status, order.value, payment.status, payment.processor])).toEqual(Array(10).fill(['PAID', 0, 'PAID', null]));
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
    expect(await salesDb().charge.count({ where: { paymentId: { in: claimed.map((c) => c.payment.id) } } })).toBe(0);
    expect(await processorChargesOf(claimed.map((c) => c.payment.id))).toEqual([]);
  }, SLOW);
});

describe('checkout under load: discount purchaseLimit', () => {
  test('50 parallel checkouts with a code whose purchaseLimit is 5: exactly 5 discounted orders, timesUsed 5, the rest 400', async () => {
    const ws = await newWorkspace('Checkout load: discount');
    const { element } = await newCheckout(ws, { price: 1000 });
    const discount = await newCodeDiscount(ws, { purchaseLimit: 5 });
    const answers = await inParallel(element.id, Array.from({ length: 50 }, () => orderBody({ discountCode: discount.discountCode })));

    expect(statusesOf(answers)).toEqual({ 200: 5, 400: 45 });
    expect(messagesOf(answers, 400)).toHaveLength(1);
    for (const { body: { data } } of answers.filter((a) => a.status === 200)) expect(data.order).toMatchObject({ value: 900, checkoutId: element.id, discountId: discount.id, discountAmount: 100 });
    const { orders, count } = await settledOrders(ws, element.id, 5);
    expect(count).toBe(5);
    expect(orders.map((o) => [o.status, o.value, o.discountId])).toEqual(Array(5).fill(['PAID', 900, discount.id]));
    expect((await discountOf(ws, discount.id)).timesUsed).toBe(5);
    expect(await tally([ws.workspaceId])).toMatchObject({ orders: 5, payments: 5, charges: 5, users: 5, timesUsed: 5 });
    // Exhausted for the next buyer too; without the code the offer still sells.
    expect((await payCheckout(element.id, orderBody({ discountCode: discount.discountCode }))).status).toBe(400);
    expect((await payCheckout(element.id, orderBody())).status).toBe(200);
    expect((await discountOf(ws, discount.id)).timesUsed).toBe(5);
  }, SLOW);

  test('one code on two elements, 25 parallel checkouts on each, purchaseLimit 5: 5 uses in all', async () => {
    const ws = await newWorkspace('Checkout load: shared code');
    const [one, two] = await Promise.all([newCheckout(ws, { price: 1000 }), newCheckout(ws, { price: 2000 })]);
    const discount = await newCodeDiscount(ws, { purchaseLimit: 5 });
    const body = () => orderBody({ discountCode: discount.discountCode!.toLowerCase() });
    const answers = (await Promise.all([one, two].map(({ element }) => inParallel(element.id, Array.from({ length: 25 }, body))))).flat();
    expect(statusesOf(answers)).toEqual({ 200: 5, 400: 45 });
    expect((await discountOf(ws, discount.id)).timesUsed).toBe(5);
    expect(((await ordersOfCheckout(ws, one.element.id)).count ?? 0) + ((await ordersOfCheckout(ws, two.element.id)).count ?? 0)).toBe(5);
  }, SLOW);

  test('a sale (applied without a code) with purchaseLimit 5, 30 parallel buys: all sell, exactly 5 with the sale, timesUsed 5', async () => {
    const ws = await newWorkspace('Checkout load: sale');
    const { element } = await newCheckout(ws, { price: 1000 });
    const { discount: sale } = await ok(
      restClient(ws).POST('/v0/discounts/create', { body: { type: 'sale', name: 'Five only', amount: 20, amountType: 'percentage', currency: 'USD', purchaseLimit: 5 } as never }),
    );
    const answers = await inParallel(element.id, Array.from({ length: 30 }, () => orderBody()));
    expect(statusesOf(answers)).toEqual({ 200: 30 });
    const orders = answers.map((a) => a.body.data.order);
    expect(orders.filter((o) => o.discountId === sale.id).map((o) => o.value)).toEqual(Array(5).fill(800));
    expect(orders.filter((o) => o.discountId === null).map((o) => o.value)).toEqual(Array(25).fill(1000));
    expect((await discountOf(ws, sale.id)).timesUsed).toBe(5);
  }, SLOW);
});

describe('checkout under load: declined cards give their reservations back', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Checkout load: declines');
  });

  test('limit 10: 10 parallel declines answer 402 and leave FAILED orders; then 10 parallel good buys all succeed', async () => {
    const { element, offer } = await newCheckout(ws, { price: 1000, limit: 10 });
    const declined = await inParallel(element.id, Array.from({ length: 10 }, () => orderBody({ card: card(CARD_DECLINED) })));
    expect(statusesOf(declined)).toEqual({ 402: 10 });
    expect((await offerOf(ws, offer.id)).soldItems).toBe(0);
    const failed = await ordersOfCheckout(ws, element.id);
    expect(failed.count).toBe(10);
    expect(failed.orders.map((o) => [o.status, o.lastPayment?.status])).toEqual(Array(10).fill(['FAILED', 'FAILED']));

    const good = await inParallel(element.id, Array.from({ length: 10 }, () => orderBody()));
    expect(statusesOf(good)).toEqual({ 200: 10 });
    const { orders } = await settledOrders(ws, element.id, 20);
    expect(orders.filter((o) => o.status === 'PAID')).toHaveLength(10);
    expect(orders.filter((o) => o.status === 'FAILED')).toHaveLength(10);
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
  }, SLOW);

  test('limit 10: 10 declines and 10 good buys interleaved; a decline holds stock only while it is charged, the rest sells out exactly', async () => {
    const { element, offer } = await newCheckout(ws, { price: 1000, limit: 10 });
    const bodies = Array.from({ length: 20 }, (_, i) => orderBody({ card: card(i % 2 ? CARD_DECLINED : undefined) }));
    const answers = await inParallel(element.id, bodies);
    const declines = answers.filter((_, i) => i % 2);
    const goods = answers.filter((_, i) => i % 2 === 0);
    // Each attempt meets the stock as the others left it: a decline is charged (402) or finds it sold out
    // (400); a good buy may meet stock a decline still holds (400).
    expect(declines.every((a) => a.status === 402 || a.status === 400)).toBe(true);
    expect(goods.every((a) => a.status === 200 || a.status === 400)).toBe(true);
    const sold = goods.filter((a) => a.status === 200).length;
    const declined = declines.filter((a) => a.status === 402).length;
    // Once answered, a decline holds nothing.
    expect((await offerOf(ws, offer.id)).soldItems).toBe(sold);

    const rest = await inParallel(element.id, Array.from({ length: 10 - sold + 3 }, () => orderBody()));
    expect(statusesOf(rest)).toEqual(counted({ 200: 10 - sold, 400: 3 }));
    const { orders } = await settledOrders(ws, element.id, declined + 10);
    expect(orders.filter((o) => o.status === 'PAID')).toHaveLength(10);
    expect(orders.filter((o) => o.status === 'FAILED')).toHaveLength(declined);
    expect((await offerOf(ws, offer.id)).soldItems).toBe(10);
  }, SLOW);
});

describe('checkout under load: pending payments hold their reservations until they end', () => {
  test('3-D Secure payments pending hold the stock and the code; when they fail, both come back, even while other buyers race for them', async () => {
    const ws = await newWorkspace('Checkout load: pending', ['testMode=true']);
    const TEST: KeyChoice = { mode: 'test' };
    const { element, offer } = await newCheckout(ws, { price: 1000, limit: 5, key: TEST });
    const discount = await newCodeDiscount(ws, { purchaseLimit: 5 }, TEST);
    const withCode = (number?: string) => orderBody({ discountCode: discount.discountCode, card: card(number) });

    const pending = await inParallel(element.id, Array.from({ length: 5 }, () => withCode('4000002760003184')));
    expect(statusesOf(pending)).toEqual({ 200: 5 });
    expect(pending.map((a) => a.body.data.payment.status)).toEqual(Array(5).fill('PENDING'));
    expect([(await offerOf(ws, offer.id, TEST)).soldItems, (await discountOf(ws, discount.id, TEST)).timesUsed]).toEqual([5, 5]);
    expect((await payCheckout(element.id, withCode())).status).toBe(400);

    // The processor fails the five (as the cardholder's bank would) while ten buyers try at once.
    const fail = (paymentId: string) => restClient(ws, TEST).POST('/v0/test-helpers/payments/{paymentId}/fail', { params: { path: { paymentId } }, body: {} });
    const [failed, racing] = await Promise.all([Promise.all(pending.map((a) => fail(a.body.data.payment.id))), inParallel(element.id, Array.from({ length: 10 }, () => withCode()))]);
    expect(failed.map(({ response }) => response.status)).toEqual(Array(5).fill(200));
    expect(racing.every((a) => a.status === 200 || a.status === 400)).toBe(true);
    const won = racing.filter((a) => a.status === 200).length;
    expect(won).toBeLessThanOrEqual(5);
    await eventually(
      () => ordersOfCheckout(ws, element.id, TEST),
      ({ orders }) => orders.filter((o) => o.status === 'FAILED').length === 5,
    );
    expect([(await offerOf(ws, offer.id, TEST)).soldItems, (await discountOf(ws, discount.id, TEST)).timesUsed]).toEqual([won, won]);

    // What the failures gave back sells, and no more.
    const rest = await inParallel(element.id, Array.from({ length: 5 - won + 2 }, () => withCode()));
    expect(statusesOf(rest)).toEqual(counted({ 200: 5 - won, 400: 2 }));
    expect([(await offerOf(ws, offer.id, TEST)).soldItems, (await discountOf(ws, discount.id, TEST)).timesUsed]).toEqual([5, 5]);
    const { orders } = await settledOrders(ws, element.id, 10, TEST);
    expect(orders.filter((o) => o.status === 'PAID')).toHaveLength(5);
  }, SLOW);
});
