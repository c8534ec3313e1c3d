import { randomUUID } from 'node:crypto';
import { ERROR, failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { SLOW, card, email, pay, shop, offerNow, paymentNow, ordersOf, ws } from './support/checkout-suite.js';

describe('Idempotency-Key', () => {
  test('the same key and body: the same order and payment, one order stored', async () => {
    const { offer, element } = await shop(ws, 1000);
    const key = `order-${randomUUID()}`;
    const body = { email: email() };
    const first = await ok(pay(element.id, body, key));
    const second = await ok(pay(element.id, body, key));
    expect(second.order.id).toBe(first.order.id);
    expect(second.payment.id).toBe(first.payment.id);
    expect(await ordersOf(ws, element.id)).toHaveLength(1);
    expect((await offerNow(ws, offer.id)).soldItems).toBe(1);
    expect((await paymentNow(ws, first.payment.id)).charges).toHaveLength(1);
    // Another card number with the same last four digits and expiry counts as the same body (only
    // those are kept for the comparison): the first order again, nothing charged.
    const sameLastFour = await ok(pay(element.id, { ...body, card: card('4000000000024242') }, key));
    expect([sameLastFour.order.id, sameLastFour.payment.id]).toEqual([first.order.id, first.payment.id]);
    expect((await paymentNow(ws, first.payment.id)).charges).toHaveLength(1);
    // Other last four digits, or another expiry, are another body.
    expect((await failure(pay(element.id, { ...body, card: card('4000056655665556') }, key))).status).toBe(400);
    expect((await failure(pay(element.id, { ...body, card: { ...card('4242424242424242'), expYear: 2035 } }, key))).status).toBe(400);
    const stored = await salesDb().idempotencyKey.findFirstOrThrow({ where: { key } });
    expect(JSON.stringify(stored)).not.toContain('4242424242424242');
    expect(await ordersOf(ws, element.id)).toHaveLength(1);
  }, SLOW);

  test('two concurrent requests with one key make one order', async () => {
    const { offer, element } = await shop(ws, 1000);
    const key = `parallel-${randomUUID()}`;
    const body = { email: email() };
    const [a, b] = await Promise.all([ok(pay(element.id, body, key)), ok(pay(element.id, body, key))]);
    expect(a.order.id).toBe(b.order.id);
    expect(await ordersOf(ws, element.id)).toHaveLength(1);
    expect((await offerNow(ws, offer.id)).soldItems).toBe(1);
  }, SLOW);

  test('the same key with another body is 400; a declined order replays its 402', async () => {
    const { element } = await shop(ws, 1000);
    const key = `order-${randomUUID()}`;
    const body = { email: email() };
    await ok(pay(element.id, body, key));
    expect(await failure(pay(element.id, { ...body, quantity: 2 }, key))).toEqual({ status: 400, body: ERROR });
    const declinedKey = `declined-${randomUUID()}`;
    const declinedBody = { email: email(), card: card('4000000000000002') };
    expect((await failure(pay(element.id, declinedBody, declinedKey))).status).toBe(402);
    expect((await failure(pay(element.id, declinedBody, declinedKey))).status).toBe(402);
    expect(await ordersOf(ws, element.id)).toHaveLength(2);
  }, SLOW);

  test('a key older than its 24-hour window is taken anew: another body makes a new order under it', async () => {
    const { element } = await shop(ws, 1000);
    const key = `expiring-${randomUUID()}`;
    const first = await ok(pay(element.id, { email: email() }, key));
    // Within the window another body is refused; once the key is older than 24 hours it is free again.
    expect((await failure(pay(element.id, { email: email(), quantity: 2 }, key))).status).toBe(400);
    await salesDb().idempotencyKey.updateMany({ where: { key }, data: { createdAt: new Date(Date.now() - 25 * 60 * 60 * 1000) } });
    const secondBody = { email: email(), quantity: 2 };
    const second = await ok(pay(element.id, secondBody, key));
    expect(second.order.id).not.toBe(first.order.id);
    // The key now names the new order: a repeat gets it back.
    expect((await ok(pay(element.id, secondBody, key))).order.id).toBe(second.order.id);
    const stored = await salesDb().idempotencyKey.findMany({ where: { key } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.orderId).toBe(second.order.id);
    expect(await ordersOf(ws, element.id)).toHaveLength(2);
  }, SLOW);

  test('a key of 256 characters, empty, or outside printable ASCII is 400; 255 printable characters are taken', async () => {
    const { element } = await shop(ws, 1000);
    expect((await failure(pay(element.id, {}, 'k'.repeat(256)))).status).toBe(400);
    expect((await failure(pay(element.id, {}, ''))).status).toBe(400);
    // Header values are bytes: é goes out as Latin-1 0xE9, and a tab is a control character (the
    // HTTP client refuses to send the other control characters).
    for (const outside of ['café-order', 'tab\there']) {
      expect(await failure(pay(element.id, {}, outside))).toEqual({ status: 400, body: { status: 'error', error: { message: expect.stringContaining('printable ASCII') } } });
    }
    expect(await ordersOf(ws, element.id)).toHaveLength(0);
    expect((await ok(pay(element.id, {}, `${'k'.repeat(253)} ~`))).order.status).toBe('PAID');
  }, SLOW);
});
