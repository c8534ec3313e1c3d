import { randomUUID } from 'node:crypto';
import { subscribedWebhooks } from '../src/webhooks/subscribers.js';
import { call, keyHeaders, newWorkspace, raw, setWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { archiveWebhook, createWebhook, db, getWebhook, listAttempts, listWebhooks, ok, prisma, publicUrl, storedWebhooks, updateWebhook } from './support/webhooks-suite.js';

describe('delivery attempts', () => {
  let ws: Workspace;
  let webhookId: string;
  let otherId: string;
  const ids: string[] = [];
  beforeAll(async () => {
    ws = await newWorkspace('Webhook attempts');
    webhookId = (await ok(createWebhook(ws, {}))).webhook.id;
    otherId = (await ok(createWebhook(ws, { url: publicUrl('other') }))).webhook.id;
    const base = Date.now() - 60_000;
    const eventId = randomUUID();
    // 13 attempts one second apart: ids[0] oldest.
    for (let i = 0; i < 13; i += 1) {
      const id = randomUUID();
      ids.push(id);
      await db.query(
        `INSERT INTO "WebhookAttempt" (id, "webhookId", "eventId", "eventType", sequence, "statusCode", request, response, "createdAt")
         VALUES ($1, $2, $3, 'product_created', $4, $5, $6, $7, $8)`,
        [id, webhookId, eventId, i, i % 2 ? 500 : null, JSON.stringify({ id: eventId, n: i }), i % 2 ? JSON.stringify({ error: 'boom' }) : null, new Date(base + i * 1000)],
      );
    }
    await db.query(`INSERT INTO "WebhookAttempt" (id, "webhookId", sequence, "statusCode") VALUES ($1, $2, 0, 200)`, [randomUUID(), otherId]);
  });

  test('default take is 10, newest first, count always present', async () => {
    const { response, data } = await listAttempts(ws, webhookId);
    expect(response.status).toBe(200);
    const { attempts, count } = data!.data;
    expect(Object.keys(data!.data).sort()).toEqual(['attempts', 'count']);
    expect(count).toBe(13);
    expect(attempts.map((a: { id: string }) => a.id)).toEqual([...ids].reverse().slice(0, 10));
    expect(attempts[0]).toEqual({
      object: 'webhook_attempt',
      id: ids[12],
      webhookId,
      eventType: 'product_created',
      sequence: 12,
      statusCode: null,
      blockReason: null,
      request: { id: expect.any(String), n: 12 },
      response: null,
      createdAt: expect.any(Number),
    });
    expect(attempts[1]).toMatchObject({ sequence: 11, statusCode: 500, response: { error: 'boom' } });
    expect(attempts[0]!.createdAt - attempts[1]!.createdAt).toBe(1000);
  });

  test('skip and take page through; take is clamped to 1..100; skip < 0 is 400', async () => {
    const page2 = (await ok(listAttempts(ws, webhookId, { skip: 10, take: 10 })));
    expect(page2.attempts.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(page2.count).toBe(13);
    expect((await ok(listAttempts(ws, webhookId, { take: 1000 }))).attempts).toHaveLength(13);
    const one = await ok(listAttempts(ws, webhookId, { take: 0 }));
    expect(one.attempts.map((a: { id: string }) => a.id)).toEqual([ids[12]]);
    const asc = await ok(listAttempts(ws, webhookId, { take: 2, orderDirection: 'ASC' }));
    expect(asc.attempts.map((a: { id: string }) => a.id)).toEqual([ids[0], ids[1]]);
    expect((await listAttempts(ws, webhookId, { skip: -1 })).response.status).toBe(400);
    const other = await ok(listAttempts(ws, otherId));
    expect(other).toMatchObject({ count: 1, attempts: [{ webhookId: otherId, eventType: null, statusCode: 200 }] });
  });
});

describe('authentication, tenancy and modes', () => {
  let ws: Workspace;
  let intruder: Workspace;
  let webhookId: string;
  beforeAll(async () => {
    ws = await newWorkspace('Webhook tenant');
    intruder = await newWorkspace('Webhook intruder');
    await setWorkspace(ws.workspaceId, 'testMode=true');
    webhookId = (await ok(createWebhook(ws, {}))).webhook.id;
  });

  test('no key is 401; writes with only the public key are 401 and change nothing', async () => {
    expect((await raw('GET', '/v0/webhooks/list')).status).toBe(401);
    expect((await raw('GET', `/v0/webhooks/${webhookId}`)).status).toBe(401);
    const before = await storedWebhooks(ws);
    expect((await createWebhook(ws, {}, { write: false })).response.status).toBe(401);
    expect((await updateWebhook(ws, webhookId, { status: 'inactive' }, { write: false })).response.status).toBe(401);
    expect((await archiveWebhook(ws, webhookId, { write: false })).response.status).toBe(401);
    expect((await restClient(ws, { write: false }).POST('/v0/webhooks/sendTestEvent', { body: { eventType: 'product_created' } })).response.status).toBe(401);
    expect(await storedWebhooks(ws)).toEqual(before);
    expect((await listWebhooks(ws, { write: false })).response.status).toBe(200);
  });

  test("another workspace's webhook is 404 everywhere and missing from its list", async () => {
    for (const res of [
      await getWebhook(intruder, webhookId),
      await updateWebhook(intruder, webhookId, { status: 'inactive' }),
      await archiveWebhook(intruder, webhookId),
      await listAttempts(intruder, webhookId),
    ]) {
      expect(res.response.status).toBe(404);
    }
    expect((await ok(listWebhooks(intruder))).webhooks).toEqual([]);
    expect((await ok(getWebhook(ws, webhookId))).webhook.status).toBe('active');
    expect((await raw('GET', '/v0/webhooks/not-a-uuid', { headers: keyHeaders(ws) })).status).toBe(400);
  });

  test('test mode has its own webhooks and its own five slots', async () => {
    const testKey = { mode: 'test' as const };
    expect((await getWebhook(ws, webhookId, testKey)).response.status).toBe(404);
    expect((await ok(listWebhooks(ws, testKey))).webhooks).toEqual([]);
    for (let i = 0; i < 5; i += 1) await ok(createWebhook(ws, { url: publicUrl(`t${i}`) }, testKey));
    expect((await createWebhook(ws, {}, testKey)).response.status).toBe(400);
    const [testHook] = (await ok(listWebhooks(ws, testKey))).webhooks;
    expect((await getWebhook(ws, testHook.id)).response.status).toBe(404);
    const rows = await storedWebhooks(ws);
    expect(rows.filter((r) => !r.livemode)).toHaveLength(5);
    expect(rows.filter((r) => r.livemode)).toHaveLength(1);
    // The live slot count is untouched by the five test-mode webhooks.
    await ok(createWebhook(ws, { url: publicUrl('live2') }));
  });
});

describe('sendTestEvent', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Webhook test events');
  });
  const send = (body: Record<string, unknown>) => restClient(ws).POST('/v0/webhooks/sendTestEvent', { body: body as any });

  test('the event type is checked against the known types', async () => {
    const unknown = await send({ eventType: 'order_shipped' });
    expect(unknown.response.status).toBe(400);
    expect(unknown.error?.error.message).toMatch(/unknown event type "order_shipped"; known types: product_created/);
    expect((await call('POST', '/v0/webhooks/sendTestEvent', ws, {})).status).toBe(400);
    expect((await send({ eventType: 'payment_success', userId: 'nope' })).response.status).toBe(400);
  });

  test('with no webhook subscribed it succeeds with 0 deliveries and records nothing (deliveries: webhook-delivery-test-events.test.ts)', async () => {
    const res = await send({ eventType: 'payment_success', items: [{ id: 'x' }], userId: randomUUID() });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ status: 'success', data: { success: true, deliveries: 0 } });
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = $1`, [ws.workspaceId]);
    expect(rows[0].n).toBe(0);
  });
});

describe('subscribedWebhooks', () => {
  test('active, unarchived webhooks of the same workspace and mode subscribed to the type', async () => {
    const ws = await newWorkspace('Webhook subscriptions');
    await setWorkspace(ws.workspaceId, 'testMode=true');
    const wanted = (await ok(createWebhook(ws, { url: publicUrl('a'), events: ['offer_created', 'product_created'] }))).webhook;
    await ok(createWebhook(ws, { url: publicUrl('b'), events: ['offer_created'] }));
    await ok(createWebhook(ws, { url: publicUrl('c'), events: ['product_created'], status: 'inactive' }));
    const archived = (await ok(createWebhook(ws, { url: publicUrl('d'), events: ['product_created'] }))).webhook;
    await ok(archiveWebhook(ws, archived.id));
    await ok(createWebhook(ws, { url: publicUrl('e'), events: ['product_created'] }, { mode: 'test' }));
    const found = await subscribedWebhooks(prisma, { workspaceId: ws.workspaceId, livemode: true, type: 'product_created' });
    expect(found.map((w) => w.id)).toEqual([wanted.id]);
    expect(found[0]!.secret).toBe(wanted.secret);
  });
});
