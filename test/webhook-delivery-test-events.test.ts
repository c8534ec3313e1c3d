import { randomUUID } from 'node:crypto';
import { api, createWebhook, deployment, ok, otherPort, receiver, until, useDeliveryDeployment, verify, ws } from './support/webhook-delivery-suite.js';

// sendTestEvent with webhooks to deliver to (without: test/webhooks-attempts-tenancy.test.ts).
useDeliveryDeployment();

describe('webhook delivery', () => {
  describe('sendTestEvent', () => {
    const send = (body: Record<string, unknown>) => api.POST('/v0/webhooks/sendTestEvent', { body: body as any });
    const testEvents = async () => (await deployment.query(`SELECT * FROM "Event" WHERE "workspaceId" = $1 AND test ORDER BY "createdAt"`, [ws.workspaceId]));

    test('with no active subscribed webhook it succeeds with 0 deliveries and records nothing', async () => {
      await createWebhook(receiver.on('/other-type', () => ({ status: 200 })), ['product_created']);
      await createWebhook(receiver.on('/inactive-payments', () => ({ status: 200 })), ['payment_success'], 'inactive');
      const before = (await testEvents()).length;
      expect(await ok(send({ eventType: 'payment_success' }))).toEqual({ success: true, deliveries: 0 });
      expect(await testEvents()).toHaveLength(before);
      expect(receiver.received('/other-type')).toHaveLength(0);
      expect(receiver.received('/inactive-payments')).toHaveLength(0);
    });

    test('a synthetic, marked event goes to each subscribed webhook; the answer comes after the first try', async () => {
      const userId = randomUUID();
      const first = await createWebhook(receiver.on('/test-a', () => ({ status: 200, body: { thanks: true } })), ['payment_success', 'product_created']);
      const second = await createWebhook(receiver.on('/test-b', () => ({ status: 202 })), ['payment_success']);
      const result = await ok(send({ eventType: 'payment_success', userId, items: [{ id: 'item-1', quantity: 2 }, { quantity: 1 }] }));
      expect(result).toEqual({ success: true, deliveries: 2 });
      // Already tried when the answer came.
      expect(receiver.received('/test-a')).toHaveLength(1);
      expect(receiver.received('/test-b')).toHaveLength(1);

      const [event] = (await testEvents()).slice(-1);
      expect(event).toMatchObject({ type: 'payment_success', test: true, livemode: true, dispatchedAt: expect.any(Date) });
      const body = verify(first.secret, receiver.received('/test-a')[0]!) as any;
      expect(verify(second.secret, receiver.received('/test-b')[0]!)).toEqual(body);
      expect(body).toMatchObject({ id: event.id, idempotencyKey: event.id, type: 'payment_success', test: true, livemode: true });
      expect(body.data.user).toMatchObject({ object: 'user', id: userId });
      expect(body.data.customer).toEqual(body.data.user);
      expect(body.data.items).toEqual([
        expect.objectContaining({ id: 'item-1', quantity: 2 }),
        expect.objectContaining({ id: expect.any(String), quantity: 1 }),
      ]);
      expect(body.data.payment).toMatchObject({ object: 'payment', status: 'PAID', amount: 3 * 1999 });
      expect(await deployment.attempts(first.id)).toMatchObject([{ eventId: event.id, eventType: 'payment_success', sequence: 0, statusCode: 200 }]);
    });

    test('an endpoint refusing the test event makes it a 400 naming the endpoint and its status; retries go on', async () => {
      const url = receiver.on('/test-refuses', () => ({ status: 410, body: { gone: true } }));
      const webhook = await createWebhook(url, ['subscription_created']);
      const { error, response } = await send({ eventType: 'subscription_created' });
      expect(response.status).toBe(400);
      expect(error?.error.message).toContain(`${url} (webhook ${webhook.id}): HTTP 410`);
      await until('a retry', async () => receiver.received('/test-refuses').length >= 2);
      const [event] = (await testEvents()).slice(-1);
      expect(JSON.parse(receiver.received('/test-refuses')[0]!.body)).toMatchObject({ id: event.id, type: 'subscription_created', test: true, data: { items: [{ id: expect.any(String) }] } });
    });

    test('a redirect to a blocked URL makes it a 400 naming the redirect and the block reason', async () => {
      const elsewhere = otherPort.on('/test-elsewhere', () => ({ status: 200 }));
      const url = receiver.on('/test-redirects', () => ({ status: 308, headers: { location: elsewhere } }));
      const webhook = await createWebhook(url, ['offer_created']);
      const { error, response } = await send({ eventType: 'offer_created' });
      expect(response.status).toBe(400);
      expect(error?.error.message).toContain(`${url} (webhook ${webhook.id}): HTTP 308 redirects to a blocked URL (blocked_host)`);
      expect(otherPort.received('/test-elsewhere')).toHaveLength(0);
    });

    test('a malformed items hint is a 400 and nothing is sent', async () => {
      await createWebhook(receiver.on('/test-hints', () => ({ status: 200 })), ['payment_failed']);
      const before = (await testEvents()).length;
      const { error, response } = await send({ eventType: 'payment_failed', items: { id: 'not-a-list' } });
      expect(response.status).toBe(400);
      expect(error?.error.message).toMatch(/items must be an array/);
      expect(await testEvents()).toHaveLength(before);
      expect(receiver.received('/test-hints')).toHaveLength(0);
    });
  });
});
