import type { webhookDelivery } from '../workflows/webhook-delivery.js';
import {
  api,
  createProduct,
  createWebhook,
  deliveryResult,
  deployment,
  eventOf,
  getWebhook,
  ok,
  type Reply,
  receiver,
  temporal,
  until,
  useDeliveryDeployment,
  verify,
} from './support/webhook-delivery-suite.js';

// A delivery's tries: signing, retries with the same id, timeouts, redirects.
useDeliveryDeployment();

describe('webhook delivery', () => {
  test('a product create is delivered once, signed per Standard Webhooks, with the event as body', async () => {
    const url = receiver.on('/created', () => ({ status: 200, body: { received: true } }));
    const webhook = await createWebhook(url);
    const product = await createProduct();
    const [request] = await until('the delivery', async () => receiver.received('/created').length > 0 && receiver.received('/created'));
    const event = await eventOf('product_created', 'product', product.id);

    expect(verify(webhook.secret, request!)).toEqual({
      id: event.id,
      idempotencyKey: event.id,
      type: 'product_created',
      createdAt: event.createdAt.getTime(),
      livemode: true,
      data: { product },
    });
    expect(request!.headers).toMatchObject({
      'webhook-id': event.id,
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^CommerceAPI-Webhooks\//),
    });
    expect(request!.headers['x-svc-signature']).toBe(request!.headers['webhook-signature']);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    // Another secret, or a body changed on the way, does not verify.
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request!)).toThrow(/signature/i);
    expect(() => verify(webhook.secret, { ...request!, body: request!.body.replace('product_created', 'product_updated') })).toThrow(/signature/i);

    const { attempts, count } = await ok(api.GET('/v0/webhooks/{webhookId}/attempts', { params: { path: { webhookId: webhook.id } } }));
    expect(count).toBe(1);
    expect(attempts[0]).toEqual({
      object: 'webhook_attempt',
      id: expect.any(String),
      webhookId: webhook.id,
      eventType: 'product_created',
      sequence: 0,
      statusCode: 200,
      blockReason: null,
      request: JSON.parse(request!.body),
      response: { received: true },
      createdAt: expect.any(Number),
    });
    expect(event.dispatchedAt).not.toBeNull();

    const handle = temporal.workflow.getHandle<typeof webhookDelivery>(`webhook-delivery-${event.id}-${webhook.id}`);
    expect(await handle.result()).toBe('delivered');
    expect((await handle.describe()).taskQueue).toBe(deployment.taskQueue);
    expect(receiver.received('/created')).toHaveLength(1);
    expect((await getWebhook(webhook.id)).consecutiveFailures).toBe(0);
  });

  test('a failed try is retried with the same webhook-id; every try is recorded with its status and parsed response', async () => {
    const replies: Reply[] = [{ status: 500, body: { error: 'busy' } }, { status: 502, body: 'Bad gateway' }, { status: 200, body: { ok: true } }];
    const url = receiver.on('/flaky', (n) => replies[n] ?? { status: 200 });
    const webhook = await createWebhook(url);
    const product = await createProduct();
    await until('three tries', async () => receiver.received('/flaky').length >= 3);
    const event = await eventOf('product_created', 'product', product.id);
    expect(await deliveryResult(event.id, webhook.id)).toBe('delivered');

    const requests = receiver.received('/flaky');
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(verify(webhook.secret, request)).toMatchObject({ id: event.id });
    }
    const attempts = await deployment.attempts(webhook.id);
    expect(attempts.map((a) => [a.eventId, a.sequence, a.statusCode, a.response])).toEqual([
      [event.id, 0, 500, { error: 'busy' }],
      [event.id, 1, 502, null],
      [event.id, 2, 200, { ok: true }],
    ]);
    // Tries are the retry interval (200 ms) apart.
    expect(attempts[1].createdAt.getTime() - attempts[0].createdAt.getTime()).toBeGreaterThanOrEqual(200);
    // An event that got through on a retry is no failure.
    expect(await getWebhook(webhook.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, status: 'active' });
  });

  test('an endpoint that does not answer in time fails the try (status and response null)', async () => {
    const url = receiver.on('/slow', (n) => (n === 0 ? { status: 200, body: { late: true }, delayMs: 6000 } : { status: 200, body: { ok: true } }));
    const webhook = await createWebhook(url);
    await createProduct();
    const attempts = await until('the retry', async () => {
      const rows = await deployment.attempts(webhook.id);
      return rows.length === 2 && rows;
    });
    expect(attempts.map((a) => [a.sequence, a.statusCode, a.response])).toEqual([
      [0, null, null],
      [1, 200, { ok: true }],
    ]);
  });

  test('307/308 are followed up to 3 hops; 301 and a fourth hop fail with the redirect status', async () => {
    const chain = (prefix: string, hops: number, status = 307) => {
      for (let hop = 0; hop < hops; hop += 1) {
        receiver.on(`${prefix}/${hop}`, () => ({ status: hop % 2 ? 308 : status, headers: { location: `${prefix}/${hop + 1}` } }));
      }
      receiver.on(`${prefix}/${hops}`, () => ({ status: 200, body: { reached: prefix } }));
      return receiver.url(`${prefix}/0`);
    };
    const three = await createWebhook(chain('/three', 3));
    const four = await createWebhook(chain('/four', 4));
    const moved = await createWebhook(chain('/moved', 1, 301));
    // Absolute Location headers work too.
    receiver.on('/absolute', () => ({ status: 308, headers: { location: receiver.url('/absolute/final') } }));
    receiver.on('/absolute/final', () => ({ status: 200, body: { reached: '/absolute' } }));
    const absolute = await createWebhook(receiver.url('/absolute'));
    await createProduct();

    const firstTry = (webhookId: string) =>
      until(`the first try of ${webhookId}`, async () => (await deployment.attempts(webhookId)).find((a) => a.sequence === 0));
    expect(await firstTry(three.id)).toMatchObject({ statusCode: 200, response: { reached: '/three' } });
    expect(await firstTry(absolute.id)).toMatchObject({ statusCode: 200, response: { reached: '/absolute' } });
    // The fourth hop is not taken: its target is never asked.
    expect(await firstTry(four.id)).toMatchObject({ statusCode: 308, response: null });
    expect(receiver.received('/four/4')).toHaveLength(0);
    expect(receiver.received('/four/3').length).toBeGreaterThan(0);
    expect(await firstTry(moved.id)).toMatchObject({ statusCode: 301 });
    expect(receiver.received('/moved/1')).toHaveLength(0);
    // Every hop carried the same signed request.
    const hops = ['/three/0', '/three/1', '/three/2', '/three/3'].map((path) => receiver.received(path)[0]!);
    for (const hop of hops) expect(hop.body).toBe(hops[0]!.body);
    expect(verify(three.secret, hops[3]!)).toMatchObject({ type: 'product_created' });
  });
});
