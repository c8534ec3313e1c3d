import { startServerProcess, startWorkerProcess } from './support/processes.js';
import {
  CONTACT,
  SLOW,
  api,
  createProduct,
  createWebhook,
  deliveryResult,
  deployment,
  eventOf,
  getWebhook,
  ok,
  otherPort,
  receiver,
  temporal,
  until,
  useDeliveryDeployment,
} from './support/webhook-delivery-suite.js';

// What a failing or unusable endpoint does to its webhook: inactive after failures, emails, blocks,
// the allow-list.
useDeliveryDeployment();

describe('webhook delivery', () => {
  test('after 10 events that used all their retries the webhook turns inactive; emails at 3 and 10; the 11th event is not sent', async () => {
    const url = receiver.on('/down', () => ({ status: 503, body: { down: true } }));
    const webhook = await createWebhook(url);
    for (let i = 0; i < 10; i += 1) await createProduct();
    // 60 deliveries through the workflows: on a loaded 2-core machine (the kill test beside it) that takes more than the default wait.
    const row = await until(
      'the webhook to be disabled',
      async () => {
        const current = await deployment.webhookRow(webhook.id);
        return current.status === 'inactive' && current;
      },
      100_000,
    );
    expect(row.consecutiveFailures).toBe(10);
    expect(row.failingSince).toBeInstanceOf(Date);
    expect(receiver.received('/down')).toHaveLength(60);
    const attempts = await deployment.attempts(webhook.id);
    expect(attempts).toHaveLength(60);
    expect(new Set(attempts.map((a) => `${a.eventId}:${a.sequence}`)).size).toBe(60);

    const emails = await deployment.emails(webhook.id);
    expect(emails.map((e) => [e.kind, e.to])).toEqual([
      ['webhook_failing', CONTACT],
      ['webhook_disabled', CONTACT],
    ]);
    expect(emails[0].subject).toBe(`Webhook failing: ${url}`);
    expect(emails[1].text).toMatch(/disabled \(status inactive\)/);
    expect(await getWebhook(webhook.id)).toMatchObject({ status: 'inactive', consecutiveFailures: 10, failingSince: row.failingSince.getTime() });

    const eleventh = await createProduct();
    const event = await eventOf('product_created', 'product', eleventh.id);
    // The dispatcher starts an event's deliveries before it marks the event dispatched: once marked,
    // a delivery it did not start never will be.
    await until('the 11th event to be dispatched', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt);
    expect(receiver.received('/down')).toHaveLength(60);
    expect(await deployment.attempts(webhook.id)).toHaveLength(60);
    expect(await deployment.emails(webhook.id)).toHaveLength(2);
    await expect(temporal.workflow.getHandle(`webhook-delivery-${event.id}-${webhook.id}`).describe()).rejects.toThrow(/not found/i);
  }, SLOW);

  test('the failure count resets on the next successful delivery; no email below 3 or on recovery', async () => {
    let healthy = false;
    const url = receiver.on('/recovering', () => (healthy ? { status: 204 } : { status: 500 }));
    const webhook = await createWebhook(url);
    await Promise.all([createProduct(), createProduct()]);
    const { failingSince } = await until('two failed events', async () => {
      const current = await deployment.webhookRow(webhook.id);
      return current.consecutiveFailures === 2 && current;
    });
    // The streak started with the first try of the first event that failed for good.
    const firstTries = await deployment.query(`SELECT "createdAt" FROM "WebhookAttempt" WHERE "webhookId" = $1 AND sequence = 0`, [webhook.id]);
    expect(firstTries.map((row) => row.createdAt.getTime())).toContain(failingSince.getTime());
    expect(await getWebhook(webhook.id)).toMatchObject({ consecutiveFailures: 2, failingSince: failingSince.getTime(), status: 'active' });

    healthy = true;
    const product = await createProduct();
    const event = await eventOf('product_created', 'product', product.id);
    expect(await deliveryResult(event.id, webhook.id)).toBe('delivered');
    expect(await getWebhook(webhook.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, status: 'active' });
    expect(await deployment.emails(webhook.id)).toEqual([]);
  }, SLOW);

  test('webhooks not subscribed to the type, inactive or archived receive nothing; one archived mid-retries gets no more tries', async () => {
    const unsubscribed = await createWebhook(receiver.on('/unsubscribed', () => ({ status: 200 })), ['offer_created']);
    const inactive = await createWebhook(receiver.on('/inactive', () => ({ status: 200 })), ['product_created'], 'inactive');
    const archived = await createWebhook(receiver.on('/archived', () => ({ status: 200 })));
    await ok(api.PATCH('/v0/webhooks/{webhookId}/archive', { params: { path: { webhookId: archived.id } }, body: {} }));
    const control = await createWebhook(receiver.on('/control', () => ({ status: 200 })));
    let leaving = '';
    const archivedLater = await createWebhook(
      receiver.on('/leaving', async () => {
        // Archived while its first try fails: the retries find it archived.
        await deployment.query(`UPDATE "Webhook" SET "deletedAt" = now() WHERE id = $1`, [leaving]);
        return { status: 500 };
      }),
    );
    leaving = archivedLater.id;

    const product = await createProduct();
    const event = await eventOf('product_created', 'product', product.id);
    expect(await deliveryResult(event.id, control.id)).toBe('delivered');
    expect(await deliveryResult(event.id, archivedLater.id)).toBe('skipped');
    // Started with the others or never (the event is marked dispatched after its deliveries start).
    for (const webhook of [unsubscribed, inactive, archived]) {
      await expect(temporal.workflow.getHandle(`webhook-delivery-${event.id}-${webhook.id}`).describe()).rejects.toThrow(/not found/i);
    }
    for (const path of ['/unsubscribed', '/inactive', '/archived']) expect(receiver.received(path)).toHaveLength(0);
    for (const webhook of [unsubscribed, inactive, archived]) expect(await deployment.attempts(webhook.id)).toEqual([]);
    expect(receiver.received('/control')).toHaveLength(1);
    expect(receiver.received('/leaving')).toHaveLength(1);
    expect((await deployment.attempts(archivedLater.id)).map((a) => a.sequence)).toEqual([0]);
    expect((await deployment.webhookRow(archivedLater.id)).consecutiveFailures).toBe(0);
  });

  // Two deliveries through the workflows, one of them six tries: over the default 60 s in a CI run
  // whose two cores were fully busy.
  test('a URL that becomes unusable is recorded as blocked and emailed once; fixing it clears the block and emails again', async () => {
    const url = receiver.on('/blockable', () => ({ status: 200, body: { ok: true } }));
    const webhook = await createWebhook(url);
    // As if its DNS now answered with a private address: stored directly, past the create-time check.
    await deployment.query(`UPDATE "Webhook" SET url = 'http://10.0.0.1/' WHERE id = $1`, [webhook.id]);
    const blockedProduct = await createProduct();
    const blockedEvent = await eventOf('product_created', 'product', blockedProduct.id);
    expect(await deliveryResult(blockedEvent.id, webhook.id)).toBe('exhausted');

    const blocked = await getWebhook(webhook.id);
    expect(blocked).toMatchObject({ lastBlockReason: 'blocked_host', lastBlockedAt: expect.any(Number), consecutiveFailures: 1 });
    const attempts = await deployment.attempts(webhook.id);
    expect(attempts.map((a) => [a.sequence, a.statusCode, a.response])).toEqual([0, 1, 2, 3, 4, 5].map((sequence) => [sequence, null, null]));
    expect(attempts[0].request).toMatchObject({ id: blockedEvent.id, type: 'product_created' });
    let emails = await deployment.emails(webhook.id);
    expect(emails.map((e) => [e.kind, e.to])).toEqual([['webhook_blocked', CONTACT]]);
    expect(emails[0].text).toMatch(/blocked_host/);

    await ok(api.PATCH('/v0/webhooks/{webhookId}/update', { params: { path: { webhookId: webhook.id } }, body: { url } as any }));
    const product = await createProduct();
    const event = await eventOf('product_created', 'product', product.id);
    expect(await deliveryResult(event.id, webhook.id)).toBe('delivered');
    expect(await getWebhook(webhook.id)).toMatchObject({ lastBlockReason: null, lastBlockedAt: blocked.lastBlockedAt, consecutiveFailures: 0 });
    emails = await deployment.emails(webhook.id);
    expect(emails.map((e) => [e.kind, e.to])).toEqual([
      ['webhook_blocked', CONTACT],
      ['webhook_unblocked', CONTACT],
    ]);
    expect(receiver.received('/blockable')).toHaveLength(1);
  }, SLOW);

  test('a 307 to another port of the allowed host is not followed: the try records the 307 and the block reason', async () => {
    const elsewhere = otherPort.on('/elsewhere', () => ({ status: 200 }));
    const webhook = await createWebhook(receiver.on('/to-other-port', () => ({ status: 307, body: { moved: true }, headers: { location: elsewhere } })));
    await createProduct();
    const first = await until('the first try', async () => (await deployment.attempts(webhook.id)).find((a) => a.sequence === 0));
    expect(first).toMatchObject({ sequence: 0, statusCode: 307, blockReason: 'blocked_host', response: { moved: true } });
    const { attempts } = await ok(api.GET('/v0/webhooks/{webhookId}/attempts', { params: { path: { webhookId: webhook.id } } }));
    expect(attempts.find((a: { sequence: number }) => a.sequence === 0)).toMatchObject({ statusCode: 307, blockReason: 'blocked_host', response: { moved: true } });
    expect(await getWebhook(webhook.id)).toMatchObject({ lastBlockReason: 'blocked_host' });
    expect(otherPort.received('/elsewhere')).toHaveLength(0);
  });

  test('the allow-list entry host:port allows that receiver only: a webhook on another port of the host is refused at create', async () => {
    const { error, response } = await api.POST('/v0/webhooks/create', { body: { url: otherPort.url('/hook'), events: ['product_created'] } as any });
    expect(response.status).toBe(400);
    expect(error?.error.message).toMatch(/127\.0\.0\.1 is a non-public address \(loopback\)/);
  });

  test('a malformed WEBHOOK_ALLOWED_HOSTS entry stops the server and the worker at start, naming the entry', async () => {
    const env = deployment.env({ WEBHOOK_ALLOWED_HOSTS: `${receiver.host},127.0.0.1:99999` });
    const message = /WEBHOOK_ALLOWED_HOSTS entry "127\.0\.0\.1:99999" has the port 99999, outside 1-65535/;
    await expect(startServerProcess(env)).rejects.toThrow(message);
    await expect(startWorkerProcess(env)).rejects.toThrow(message);
  });
});
