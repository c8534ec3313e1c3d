import { randomUUID } from 'node:crypto';
import { newWorkspace, raw, setWorkspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ERROR, failure, ok } from './support/responses.js';
import { eventsAbout, newCatalogue, salesDb } from './support/sales.js';
import { SLOW, TEST, OrderBody, card, pay, quote, newElement, shop, newDiscount, offerNow, discountNow, orderNow, paymentNow, ordersOf, ws } from './support/checkout-suite.js';

describe('quote', () => {
  test('lines, subtotal, tax 0 before a country is given, total; a cart has one line per offer with the quantity', async () => {
    const a = await newCatalogue(ws, 1000);
    const b = await newCatalogue(ws, 250, {}, { name: 'Second offer' });
    const element = await newElement(ws, [a.offer.id, b.offer.id]);
    const { quote: q } = await ok(quote(element.id, { quantity: 3 }));
    expect(q).toEqual({
      checkoutElementId: element.id,
      livemode: true,
      currency: 'USD',
      lines: [
        { offerId: a.offer.id, productId: a.product.id, name: a.product.name, quantity: 3, unitPrice: 1000, subtotal: 3000, discount: 0, tax: 0, total: 3000, taxInclusive: false, taxReason: null },
        { offerId: b.offer.id, productId: b.product.id, name: 'Second offer', quantity: 3, unitPrice: 250, subtotal: 750, discount: 0, tax: 0, total: 750, taxInclusive: false, taxReason: null },
      ],
      subtotal: 3750,
      discount: null,
      discountRejection: null,
      tax: 0,
      taxInclusive: false,
      taxCalculated: false,
      taxes: [],
      taxReason: null,
      total: 3750,
      requiresPayment: true,
    });
  });

  test('a code (any case) applies; an unusable one is reported, not refused', async () => {
    const { offer, element } = await shop(ws, 2000);
    const code = `Q${randomUUID().slice(0, 8)}`;
    const discount = await newDiscount(ws, { type: 'code', discountCode: code, amount: 25, amountType: 'percentage', includedOffers: [offer.id] });
    const applied = (await ok(quote(element.id, { discountCode: code.toLowerCase() }))).quote;
    expect(applied.discount).toEqual({ id: discount.id, type: 'code', name: null, amountType: 'percentage', amount: '25', discountCode: code, amountOff: 500 });
    expect(applied).toMatchObject({ total: 1500, discountRejection: null });
    expect(applied.lines[0]).toMatchObject({ discount: 500, total: 1500 });
    const unknown = (await ok(quote(element.id, { discountCode: 'NOSUCHCODE' }))).quote;
    expect(unknown).toMatchObject({ discount: null, discountRejection: 'discount code NOSUCHCODE does not exist', total: 2000 });
  });

  test('the best automatic sale applies without a code', async () => {
    const sws = await newWorkspace('Checkout sales');
    const { offer, element } = await shop(sws, 1000);
    await newDiscount(sws, { type: 'sale', amount: 10, amountType: 'percentage' });
    const best = await newDiscount(sws, { type: 'sale', amount: 300, amountType: 'fixed', includedOffers: [offer.id] });
    await newDiscount(sws, { type: 'sale', amount: 90, amountType: 'percentage', status: 'inactive' });
    const { quote: q } = await ok(quote(element.id));
    expect(q.discount).toMatchObject({ id: best.id, type: 'sale', amountOff: 300 });
    expect(q.total).toBe(700);
    // Paying applies the same sale and counts its use.
    const { order } = await ok(pay(element.id));
    expect(order).toMatchObject({ status: 'PAID', value: 700, discountId: best.id, discountAmount: 300 });
    expect((await discountNow(sws, best.id)).timesUsed).toBe(1);
  }, SLOW);

  test('400: quantity out of 1..1000, a bad country; 404: unknown, archived-offer elements still 400, inactive element', async () => {
    const { element, offer } = await shop(ws);
    for (const quantity of [0, 1001]) expect(await failure(quote(element.id, { quantity }))).toEqual({ status: 400, body: ERROR });
    expect((await failure(quote(element.id, { billingDetails: { countryCode: 'ZZ' } }))).status).toBe(400);
    expect((await failure(quote(randomUUID()))).status).toBe(404);
    const inactive = (await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id], status: 'INACTIVE' } }))).checkoutElement;
    expect((await failure(quote(inactive.id))).status).toBe(404);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId: offer.id } }, body: {} }));
    const archived = await failure(quote(element.id));
    expect(archived).toEqual({ status: 400, body: ERROR });
    expect(archived.body.error.message).toContain('no longer available');
  });

  test('a malformed element id is 400, and the routes take no keys', async () => {
    expect((await raw('POST', '/checkout/not-a-uuid/quote', { body: '{}' })).status).toBe(400);
    const { element } = await shop(ws);
    const response = await raw('POST', `/checkout/${element.id}/quote`, { body: '{}' });
    expect(response.status).toBe(200);
  });
});

describe('pay', () => {
  test('a one-time offer with 4242: PAID order and payment, soldItems counted, buyer created, events recorded', async () => {
    const { offer, element } = await shop(ws, 1500, { limit: 10 });
    const buyer = `Buyer-${randomUUID()}@Example.com`;
    const { order, payment } = await ok(pay(element.id, { email: buyer, quantity: 2, billingDetails: { countryCode: 'US', postalCode: '94107', state: 'CA' } }));
    expect(order).toMatchObject({ object: 'order', status: 'PAID', type: 'ONE_TIME', value: 3000, tax: 0, totalItems: 2, currency: 'USD', country: 'US', checkoutId: element.id });
    expect(order.number).toBe(order.orderNumber);
    expect(payment).toMatchObject({ object: 'payment', status: 'PAID', amount: 3000, processor: 'sandbox', methodType: 'card', orderId: order.id });
    expect(order.user?.email).toBe(buyer);
    // The same records through /v0.
    const details = await orderNow(ws, order.id);
    expect(details).toMatchObject({ id: order.id, status: 'PAID', lastPaymentId: payment.id });
    expect(details.items).toEqual([expect.objectContaining({ offerId: offer.id, quantity: 2, unitPrice: 1500, subtotal: 3000, discount: 0, tax: 0, total: 3000 })]);
    expect((await paymentNow(ws, payment.id)).charges).toEqual([expect.objectContaining({ status: 'succeeded', cardLast4: '4242' })]);
    expect((await offerNow(ws, offer.id)).soldItems).toBe(2);
    expect(await eventsAbout(ws, 'order_created', 'order', order.id)).toHaveLength(1);
    expect(await eventsAbout(ws, 'payment_success', 'payment', payment.id)).toHaveLength(1);
    expect(await eventsAbout(ws, 'user_created', 'user', order.userId!)).toHaveLength(1);
    // The same buyer in another case is matched, not created again.
    const again = await ok(pay(element.id, { email: buyer.toUpperCase() }));
    expect(again.order.userId).toBe(order.userId);
    expect(await eventsAbout(ws, 'user_created', 'user', order.userId!)).toHaveLength(1);
  }, SLOW);

  test('a cart with a code: each line its share, custom fields per item, timesUsed counted', async () => {
    const a = await newCatalogue(ws, 1000);
    const b = await newCatalogue(ws, 500);
    const element = await newElement(ws, [a.offer.id, b.offer.id]);
    const code = `C${randomUUID().slice(0, 8)}`;
    const discount = await newDiscount(ws, { type: 'code', discountCode: code, amount: 100, amountType: 'fixed', purchaseLimit: 3 });
    const { order } = await ok(pay(element.id, { discountCode: code, customFields: { [a.offer.id]: { nickname: 'neo' } } }));
    expect(order).toMatchObject({ status: 'PAID', value: 1400, discountId: discount.id, discountAmount: 100 });
    const items = (await orderNow(ws, order.id)).items;
    expect(items.map((i) => [i.offerId, i.discount, i.total, i.customFields])).toEqual([
      [a.offer.id, 67, 933, { nickname: 'neo' }],
      [b.offer.id, 33, 467, null],
    ]);
    expect((await discountNow(ws, discount.id)).timesUsed).toBe(1);
  }, SLOW);

  test('a subscription offer: its order, first payment and an active subscription', async () => {
    const { element } = await shop(ws, 900, { recurringInterval: 'month' });
    const { order, payment } = await ok(pay(element.id));
    expect(order).toMatchObject({ type: 'SUBSCRIPTION', status: 'PAID', subscriptionId: order.number });
    expect(order.subscription).toMatchObject({ status: 'active', recurringInterval: 'month', amount: 900 });
    expect(payment).toMatchObject({ status: 'PAID', subscriptionId: order.number });
    // The card is kept at the processor for the renewals (charged off-session).
    const subscription = await salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number: order.number } });
    expect(subscription.paymentMethodRef).toMatch(/^pm_sbx_/);
    // A trial offer: the card is saved, nothing is charged now (docs/decisions.md "Subscriptions"), and the subscription starts trialing.
    const trial = await shop(ws, 900, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 2 });
    const trialOrder = (await ok(pay(trial.element.id))).order;
    expect(trialOrder).toMatchObject({ status: 'PAID', value: 0 });
    expect(trialOrder.subscription).toMatchObject({ status: 'trialing', trialInterval: 'week', trialIntervalCount: 2 });
  }, SLOW);

  test('a free offer: PAID at once, no card, no processor', async () => {
    const { element } = await shop(ws, 0);
    expect((await ok(quote(element.id))).quote).toMatchObject({ total: 0, requiresPayment: false });
    const { order, payment } = await ok(pay(element.id, { card: undefined }));
    expect(order).toMatchObject({ type: 'FREE', status: 'PAID', value: 0, fee: 0 });
    expect(payment).toMatchObject({ status: 'PAID', processor: null, methodType: null, amount: 0 });
    expect(await eventsAbout(ws, 'payment_success', 'payment', payment.id)).toHaveLength(1);
  }, SLOW);

  test('a 100% code makes a paid order free', async () => {
    const { element } = await shop(ws, 1200);
    const code = `F${randomUUID().slice(0, 8)}`;
    await newDiscount(ws, { type: 'code', discountCode: code, amount: 100, amountType: 'percentage' });
    const { order, payment } = await ok(pay(element.id, { discountCode: code, card: undefined }));
    expect(order).toMatchObject({ status: 'PAID', value: 0, discountAmount: 1200 });
    expect(payment.processor).toBeNull();
  }, SLOW);

  test('a declined card: 402, a FAILED order and payment, reservations given back', async () => {
    const { offer, element } = await shop(ws, 700, { limit: 5 });
    const code = `D${randomUUID().slice(0, 8)}`;
    const discount = await newDiscount(ws, { type: 'code', discountCode: code, amount: 10, amountType: 'percentage', purchaseLimit: 1 });
    const declined = await failure(pay(element.id, { quantity: 2, discountCode: code, card: card('4000000000000002') }));
    expect(declined).toEqual({ status: 402, body: ERROR });
    expect(declined.body.error.message).toBe('Your card was declined.');
    const [order] = await ordersOf(ws, element.id);
    expect(order).toMatchObject({ status: 'FAILED' });
    expect(order!.lastPayment).toMatchObject({ status: 'FAILED', failureCode: 'generic_decline' });
    expect((await offerNow(ws, offer.id)).soldItems).toBe(0);
    expect((await discountNow(ws, discount.id)).timesUsed).toBe(0);
    expect(await eventsAbout(ws, 'payment_failed', 'payment', order!.lastPaymentId!)).toHaveLength(1);
    // The discount's only use was given back: another buyer can still use it.
    expect((await ok(pay(element.id, { discountCode: code }))).order.status).toBe('PAID');
  }, SLOW);

  test('a 3-D Secure card stays PENDING; paypal and manual stay PENDING without a card', async () => {
    const { offer, element } = await shop(ws, 800, { limit: 10 });
    const secure = await ok(pay(element.id, { card: card('4000002760003184') }));
    expect(secure.order.status).toBe('PENDING');
    expect(secure.payment).toMatchObject({ status: 'PENDING', methodType: 'card' });
    for (const method of ['paypal', 'manual'] as const) {
      const { order, payment } = await ok(pay(element.id, { method, card: undefined }));
      expect(order.status).toBe('PENDING');
      expect(payment).toMatchObject({ status: 'PENDING', methodType: method });
    }
    // Pending orders hold their units.
    expect((await offerNow(ws, offer.id)).soldItems).toBe(3);
  }, SLOW);

  test('sold out and purchase limits: 400 and nothing written', async () => {
    const { offer, element } = await shop(ws, 100, { limit: 2 });
    const tooMany = await failure(pay(element.id, { quantity: 3 }));
    expect(tooMany).toEqual({ status: 400, body: ERROR });
    expect(tooMany.body.error.message).toContain('sold out');
    await ok(pay(element.id, { quantity: 2 }));
    expect((await failure(pay(element.id))).body.error.message).toContain('is sold out');
    expect((await offerNow(ws, offer.id)).soldItems).toBe(2);

    const other = await shop(ws, 100);
    const code = `L${randomUUID().slice(0, 8)}`;
    await newDiscount(ws, { type: 'code', discountCode: code, amount: 5, amountType: 'percentage', purchaseLimit: 1 });
    await ok(pay(other.element.id, { discountCode: code }));
    expect((await failure(pay(other.element.id, { discountCode: code }))).body.error.message).toContain('purchase limit');
    expect(await ordersOf(ws, other.element.id)).toHaveLength(1);
  }, SLOW);

  test('every rule of the body is a 400 that writes nothing', async () => {
    const { offer, element } = await shop(ws, 1000);
    const eur = `E${randomUUID().slice(0, 8)}`;
    const expired = `X${randomUUID().slice(0, 8)}`;
    const later = `Y${randomUUID().slice(0, 8)}`;
    const elsewhere = `Z${randomUUID().slice(0, 8)}`;
    const archived = `A${randomUUID().slice(0, 8)}`;
    const now = Math.floor(Date.now() / 1000);
    await newDiscount(ws, { type: 'code', discountCode: eur, amount: 5, amountType: 'percentage', currency: 'EUR' });
    await newDiscount(ws, { type: 'code', discountCode: expired, amount: 5, amountType: 'percentage', validUntil: now - 60 });
    await newDiscount(ws, { type: 'code', discountCode: later, amount: 5, amountType: 'percentage', validFrom: now + 3600 });
    await newDiscount(ws, { type: 'code', discountCode: elsewhere, amount: 5, amountType: 'percentage', excludedOffers: [offer.id] });
    const gone = await newDiscount(ws, { type: 'code', discountCode: archived, amount: 5, amountType: 'percentage' });
    await ok(restClient(ws).PATCH('/v0/discounts/{discountId}/archive', { params: { path: { discountId: gone.id } }, body: {} }));
    const cases: [Partial<OrderBody>, string][] = [
      [{ discountCode: 'UNKNOWN-CODE' }, 'does not exist'],
      [{ discountCode: archived }, 'does not exist'],
      [{ discountCode: eur }, 'is for EUR purchases'],
      [{ discountCode: expired }, 'has expired'],
      [{ discountCode: later }, 'is not valid yet'],
      [{ discountCode: elsewhere }, 'does not apply'],
      [{ quantity: 0 }, 'quantity'],
      [{ quantity: 1001 }, 'quantity'],
      [{ email: 'not-an-email' }, 'email'],
      [{ billingDetails: { countryCode: 'QQ' } }, 'countryCode'],
      [{ billingDetails: { countryCode: 'US' } }, 'postalCode is required'],
      [{ card: undefined }, 'card is required'],
      [{ card: card('4242424242424241') }, 'card number'],
      [{ card: { ...card('4242424242424242'), expMonth: 13 } }, 'expiration month'],
      [{ method: 'paypal' }, 'card is taken only with method card'],
      [{ customFields: { [randomUUID()]: { a: 'b' } } }, 'not an offer of this checkout element'],
      [{ customFields: { [offer.id]: { a: 1 } } as never }, 'must be a string'],
      [{ customFields: { [offer.id]: 'x' } as never }, 'must be an object'],
      [{ customFields: { [offer.id]: { 'bad id!': 'x' } } }, 'field id'],
    ];
    for (const [body, message] of cases) {
      const refused = await failure(pay(element.id, body));
      expect([JSON.stringify(body), refused.status]).toEqual([JSON.stringify(body), 400]);
      expect(refused.body.error.message).toContain(message);
    }
    expect(await ordersOf(ws, element.id)).toHaveLength(0);
    expect((await offerNow(ws, offer.id)).soldItems).toBe(0);
  }, SLOW);

  test('an archived or inactive offer cannot be bought: 400', async () => {
    const archived = await shop(ws, 100);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId: archived.offer.id } }, body: {} }));
    expect((await failure(pay(archived.element.id))).body.error.message).toContain('no longer available');
    const inactive = await shop(ws, 100);
    await ok(restClient(ws).PATCH('/v0/offers/{offerId}/update', { params: { path: { offerId: inactive.offer.id } }, body: { status: 'INACTIVE' } }));
    const refused = await failure(pay(inactive.element.id));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('is not on sale');
  }, SLOW);

  test('404: unknown or inactive element, a workspace offline or without test mode', async () => {
    expect((await failure(pay(randomUUID()))).status).toBe(404);
    const { offer } = await newCatalogue(ws, 100);
    const inactive = (await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id], status: 'INACTIVE' } }))).checkoutElement;
    expect((await failure(pay(inactive.id))).status).toBe(404);
    const offline = await newWorkspace('Checkout offline');
    const { element } = await shop(offline);
    await setWorkspace(offline.workspaceId, 'offline=true');
    expect((await failure(pay(element.id))).status).toBe(404);
    const noTest = await newWorkspace('Checkout without test mode', ['testMode=true']);
    const testShop = await shop(noTest, 100, {}, TEST);
    await setWorkspace(noTest.workspaceId, 'testMode=false');
    expect((await failure(pay(testShop.element.id))).status).toBe(404);
  }, SLOW);

  test('a test-mode element makes test-mode records, seen only with test keys; another workspace sees 404', async () => {
    const { element } = await shop(ws, 500, {}, TEST);
    const { order, payment } = await ok(pay(element.id));
    expect(order.status).toBe('PAID');
    expect((await orderNow(ws, order.id, TEST)).id).toBe(order.id);
    expect((await paymentNow(ws, payment.id, TEST)).id).toBe(payment.id);
    expect((await failure(restClient(ws, { write: false }).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: order.id } } }))).status).toBe(404);
    const other = await newWorkspace('Checkout elsewhere', ['testMode=true']);
    for (const key of [{ write: false }, { mode: 'test', write: false }] as const) {
      expect((await failure(restClient(other, key).GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: order.id } } }))).status).toBe(404);
      expect((await failure(restClient(other, key).GET('/v0/payments/{paymentId}', { params: { path: { paymentId: payment.id } } }))).status).toBe(404);
    }
    const buyer = await salesDb().user.findUniqueOrThrow({ where: { id: order.userId! } });
    expect(buyer.livemode).toBe(false);
  }, SLOW);

  test('a pending payment that fails later gives its reservations back (through the payment workflow)', async () => {
    const { offer, element } = await shop(ws, 500, { limit: 3 }, TEST);
    const { payment } = await ok(pay(element.id, { quantity: 2, card: card('4000002760003184') }));
    expect(payment.status).toBe('PENDING');
    expect((await offerNow(ws, offer.id, TEST)).soldItems).toBe(2);
    const failed = await ok(restClient(ws, TEST).POST('/v0/test-helpers/payments/{paymentId}/fail', { params: { path: { paymentId: payment.id } }, body: {} }));
    expect(failed.payment.status).toBe('FAILED');
    expect((await orderNow(ws, payment.orderId, TEST)).status).toBe('FAILED');
    expect((await offerNow(ws, offer.id, TEST)).soldItems).toBe(0);
  }, SLOW);
});
