import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPrismaClient } from '../src/db/client.js';
import { events } from '../src/domains.js';
import { eventBody } from '../src/events/event-service.js';
import { sampleUser } from '../src/users/events.js';
import { createOrder } from '../src/orders/service.js';
import { markPaymentCancelled, markPaymentExpired, markPaymentFailed, markPaymentPaid } from '../src/payments/transitions.js';
import { subscribedWebhooks } from '../src/webhooks/subscribers.js';
import type { PrismaClient } from '../src/generated/prisma/client.js';
import { baseUrl, call, keyHeaders, newWorkspace, raw, setWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';

const EVENT_TYPES = Object.keys(events);

let db: pg.Client;
let prisma: PrismaClient;
beforeAll(async () => {
  db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  prisma = createPrismaClient(process.env.DATABASE_URL!);
});
afterAll(async () => {
  await db.end();
  await prisma.$disconnect();
});

// A public IP literal: accepted by the SSRF rules without DNS (no delivery happens in this suite).
const publicUrl = (path = 'hook') => `https://93.184.215.14/${path}`;
const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const MASK = /^••••.{4}$/;

type WebhookBody = { url?: unknown; events?: unknown; status?: unknown; secret?: unknown };
const createWebhook = (ws: Workspace, body: WebhookBody, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/webhooks/create', { body: { url: publicUrl(), events: ['product_created'], ...body } as any });
const getWebhook = (ws: Workspace, webhookId: string, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/webhooks/{webhookId}', { params: { path: { webhookId } } });
const updateWebhook = (ws: Workspace, webhookId: string, body: WebhookBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/webhooks/{webhookId}/update', { params: { path: { webhookId } }, body: body as any });
const archiveWebhook = (ws: Workspace, webhookId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/webhooks/{webhookId}/archive', { params: { path: { webhookId } }, body: {} });
const listWebhooks = (ws: Workspace, key: KeyChoice = {}) => restClient(ws, key).GET('/v0/webhooks/list', {});
const listAttempts = (ws: Workspace, webhookId: string, query: Record<string, unknown> = {}, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/webhooks/{webhookId}/attempts', { params: { path: { webhookId }, query: query as any } });

/** The data of a successful call; fails the test with the error envelope otherwise. */
async function ok<T extends { data?: any; error?: any; response: Response }>(call: Promise<T>) {
  const { data, error, response } = await call;
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(error)}`);
  expect(data.status).toBe('success');
  return data.data;
}

async function storedWebhooks(ws: Workspace) {
  const { rows } = await db.query(`SELECT * FROM "Webhook" WHERE "workspaceId" = $1 ORDER BY "createdAt"`, [ws.workspaceId]);
  return rows;
}

describe('webhook create, read and masking', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Webhooks');
  });

  test('create returns the webhook with a generated whsec_ secret in full, timestamps in ms', async () => {
    const before = Date.now();
    const { webhook } = await ok(createWebhook(ws, { events: ['product_created', 'payment_success'] }));
    expect(webhook).toEqual({
      object: 'webhook',
      id: expect.any(String),
      url: publicUrl(),
      status: 'active',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      events: ['product_created', 'payment_success'],
      consecutiveFailures: 0,
      failingSince: null,
      lastBlockReason: null,
      lastBlockedAt: null,
      createdAt: expect.any(Number),
      deletedAt: null,
    });
    expect(Buffer.from(webhook.secret.slice(6), 'base64')).toHaveLength(32);
    expect(webhook.createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(webhook.createdAt).toBeLessThanOrEqual(Date.now() + 1000);
    const [row] = (await storedWebhooks(ws)).filter((r) => r.id === webhook.id);
    expect(row).toMatchObject({ secret: webhook.secret, livemode: true, status: 'active', events: ['product_created', 'payment_success'] });
  });

  test('a sent secret is kept and returned in full; malformed secrets are refused', async () => {
    const secret = secretOf(24);
    const { webhook } = await ok(createWebhook(ws, { secret, status: 'inactive' }));
    expect(webhook).toMatchObject({ secret, status: 'inactive' });
    const count = (await storedWebhooks(ws)).length;
    const bad = [
      'not-a-whsec-secret-but-long-enough-0123456789',
      secretOf(16),
      secretOf(65),
      // URL-safe alphabet, a missing pad, and a non-canonical last character (spare bits set).
      `whsec_${'-_'.repeat(21)}A=`,
      `whsec_${randomBytes(32).toString('base64').replace(/=$/, '')}`,
      `whsec_${'A'.repeat(42)}B=`,
      'whsec_',
      '',
    ];
    for (const candidate of bad) {
      const { error, response } = await createWebhook(ws, { secret: candidate });
      expect({ candidate, status: response.status }).toEqual({ candidate, status: 400 });
      expect(error?.error.message).toMatch(/whsec_/);
    }
    expect(await storedWebhooks(ws)).toHaveLength(count);
  });

  test('list and get mask the secret to its last four characters; list is newest first', async () => {
    const own = await newWorkspace('Webhook masking');
    const first = (await ok(createWebhook(own, { url: publicUrl('first') }))).webhook;
    const second = (await ok(createWebhook(own, { url: publicUrl('second') }))).webhook;
    const listed = await listWebhooks(own);
    expect(listed.response.status).toBe(200);
    const { webhooks } = listed.data!.data;
    expect(Object.keys(listed.data!.data)).toEqual(['webhooks']);
    expect(webhooks.map((w: any) => w.id)).toEqual([second.id, first.id]);
    expect(webhooks[1]).toEqual({ ...first, secret: `••••${first.secret.slice(-4)}` });
    const text = JSON.stringify(listed.data);
    expect(text).not.toContain(first.secret.slice(6, 20));
    expect(text).not.toContain(second.secret.slice(6, 20));
    const got = await ok(getWebhook(own, first.id, { write: false }));
    expect(got.webhook).toEqual({ ...first, secret: `••••${first.secret.slice(-4)}` });
    expect(got.webhook.secret).toMatch(MASK);
  });

  test('GraphQL masks the same way: the query shows the mask, createWebhook the full secret', async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}) =>
      fetch(`${baseUrl()}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...keyHeaders(ws) }, body: JSON.stringify({ query, variables }) }).then((r) => r.json());
    const created = await gql('mutation($url: String!) { createWebhook(url: $url, events: ["user_created"]) { webhook { id secret } } }', { url: publicUrl('gql') });
    const { id, secret } = created.data.createWebhook.webhook;
    expect(secret).toMatch(/^whsec_/);
    const read = await gql('query($id: UUID!) { webhook(webhookId: $id) { webhook { secret createdAt } } webhooks { webhooks { id secret } } }', { id });
    expect(read.data.webhook.webhook.secret).toBe(`••••${secret.slice(-4)}`);
    expect(read.data.webhooks.webhooks.every((w: { secret: string }) => MASK.test(w.secret))).toBe(true);
  });

  test('update with a secret returns it in full, and get masks the new one', async () => {
    const { webhook } = await ok(createWebhook(ws, {}));
    const secret = secretOf(32);
    const updated = (await ok(updateWebhook(ws, webhook.id, { secret }))).webhook;
    expect(updated).toEqual({ ...webhook, secret });
    expect((await ok(getWebhook(ws, webhook.id))).webhook.secret).toBe(`••••${secret.slice(-4)}`);
    const bad = await updateWebhook(ws, webhook.id, { secret: 'short' });
    expect(bad.response.status).toBe(400);
    const [row] = (await storedWebhooks(ws)).filter((r) => r.id === webhook.id);
    expect(row.secret).toBe(secret);
  });

  test('update changes url (validated again) and events; absent fields stay; null is refused', async () => {
    const { webhook } = await ok(createWebhook(ws, {}));
    const updated = (await ok(updateWebhook(ws, webhook.id, { url: publicUrl('moved'), events: ['offer_created', 'offer_updated'] }))).webhook;
    expect(updated).toMatchObject({ url: publicUrl('moved'), events: ['offer_created', 'offer_updated'], status: 'active', secret: webhook.secret });
    for (const body of [{ url: 'http://127.0.0.1/' }, { url: 'ftp://93.184.215.14/' }, { events: ['nope'] }, { events: [] }, { url: null }, { events: null }, { status: null }, { secret: null }]) {
      const res = await updateWebhook(ws, webhook.id, body);
      expect({ body, status: res.response.status }).toEqual({ body, status: 400 });
    }
    const [row] = (await storedWebhooks(ws)).filter((r) => r.id === webhook.id);
    expect(row).toMatchObject({ url: publicUrl('moved'), events: ['offer_created', 'offer_updated'] });
  });

  test('status active re-enables an inactive webhook and resets its failure streak; an active one keeps its count', async () => {
    const own = await newWorkspace('Webhook re-enable');
    const { webhook } = await ok(createWebhook(own, {}));
    const since = new Date(Date.now() - 3_600_000);
    await db.query(`UPDATE "Webhook" SET status = 'inactive', "consecutiveFailures" = 10, "failingSince" = $2 WHERE id = $1`, [webhook.id, since]);
    expect((await ok(getWebhook(own, webhook.id))).webhook).toMatchObject({ status: 'inactive', consecutiveFailures: 10, failingSince: since.getTime() });
    const enabled = (await ok(updateWebhook(own, webhook.id, { status: 'active' }))).webhook;
    expect(enabled).toMatchObject({ status: 'active', consecutiveFailures: 0, failingSince: null, secret: webhook.secret });

    await db.query(`UPDATE "Webhook" SET "consecutiveFailures" = 3, "failingSince" = $2 WHERE id = $1`, [webhook.id, since]);
    const still = (await ok(updateWebhook(own, webhook.id, { status: 'active' }))).webhook;
    expect(still).toMatchObject({ status: 'active', consecutiveFailures: 3, failingSince: since.getTime() });
    const disabled = (await ok(updateWebhook(own, webhook.id, { status: 'inactive' }))).webhook;
    expect(disabled).toMatchObject({ status: 'inactive', consecutiveFailures: 3 });
  });

  test('event types are checked: known types only, at least one, no repeats', async () => {
    const own = await newWorkspace('Webhook events');
    const all = (await ok(createWebhook(own, { events: [...EVENT_TYPES] }))).webhook;
    expect(all.events).toEqual([...EVENT_TYPES]);
    const cases: [unknown, RegExp][] = [
      [['product_created', 'order_shipped'], /events\[1\]: unknown event type "order_shipped"/],
      [[], /at least one/],
      [['user_created', 'user_created'], /repeats user_created/],
      [['PRODUCT_CREATED'], /unknown event type/],
    ];
    for (const [events, message] of cases) {
      const { error, response } = await createWebhook(own, { events });
      expect(response.status).toBe(400);
      expect(error?.error.message).toMatch(message);
    }
    for (const body of [{ url: publicUrl() }, { url: publicUrl(), events: [1] }, { url: publicUrl(), events: null }, { events: ['product_created'] }]) {
      const res = await call('POST', '/v0/webhooks/create', own, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    expect(await storedWebhooks(own)).toHaveLength(1);
  });
});

describe('webhook URLs must be public http(s) addresses', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Webhook URLs');
  });

  const hostile = [
    'http://127.0.0.1/',
    'http://127.0.0.1:3000/hook',
    'http://127.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://017700000001/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://[::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://10.0.0.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fd12:3456:789a::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://198.18.0.1/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://localhost/',
    'http://localhost:3000/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://metadata.google.internal/',
    'http://printer.local/',
    'http://intranet/',
    'http://user:pw@example.com/',
    'https://user@93.184.215.14/',
    'ftp://x/',
    'file:///etc/passwd',
    'gopher://93.184.215.14/',
    'javascript:alert(1)',
    'data:text/plain,hello',
    'not a url',
    '//93.184.215.14/relative',
    '',
    'https://no-such-host.invalid/',
    `https://93.184.215.14/${'a'.repeat(2100)}`,
  ];

  test(`${hostile.length} hostile URLs are refused at create with 400 and the rule's message; nothing is stored`, async () => {
    expect(hostile.length).toBeGreaterThanOrEqual(30);
    const outcomes = await Promise.all(
      hostile.map(async (url) => {
        const { error, response } = await createWebhook(ws, { url });
        return { url, status: response.status, message: error?.error?.message };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome).toEqual({ url: outcome.url, status: 400, message: expect.any(String) });
      expect(outcome.message!.length).toBeGreaterThan(10);
    }
    expect(await storedWebhooks(ws)).toHaveLength(0);
  });

  test("the rules explain themselves; without WEBHOOK_ALLOWED_HOSTS even this server's own address is refused", async () => {
    const messages = async (url: string) => (await createWebhook(ws, { url })).error?.error?.message as string;
    expect(await messages('ftp://x/')).toMatch(/scheme "ftp" is not allowed/);
    expect(await messages('http://169.254.169.254/')).toMatch(/non-public address \(link-local\)/);
    expect(await messages('http://localhost/')).toMatch(/local-network name/);
    expect(await messages('http://user:pw@example.com/')).toMatch(/Credentials/);
    expect(await messages(`${baseUrl()}/v0/webhooks/list`)).toMatch(/non-public address \(loopback\)/);
  });

  test('an accepted URL is stored as the WHATWG parser normalises it', async () => {
    const { webhook } = await ok(createWebhook(ws, { url: 'HTTPS://93.184.215.14:443/a/../hook?x=1' }));
    expect(webhook.url).toBe('https://93.184.215.14/hook?x=1');
    await ok(archiveWebhook(ws, webhook.id));
  });
});

describe('the five-webhook limit and archiving', () => {
  test('five live webhooks (inactive ones count), the sixth is refused; archiving frees a slot', async () => {
    const ws = await newWorkspace('Webhook limit');
    const created: { id: string }[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await ok(createWebhook(ws, { url: publicUrl(`n${i}`), status: i < 2 ? 'inactive' : 'active' }))).webhook);
    const sixth = await createWebhook(ws, { url: publicUrl('sixth') });
    expect(sixth.response.status).toBe(400);
    expect(sixth.error?.error.message).toMatch(/at most 5 webhooks/);

    const archived = await archiveWebhook(ws, created[0]!.id);
    expect(archived.response.status).toBe(200);
    expect(archived.data).toEqual({ status: 'success', data: { success: true } });
    const [row] = (await storedWebhooks(ws)).filter((r) => r.id === created[0]!.id);
    expect(row.deletedAt).toBeInstanceOf(Date);

    const again = (await ok(createWebhook(ws, { url: publicUrl('again') }))).webhook;
    expect((await createWebhook(ws, { url: publicUrl('seventh') })).response.status).toBe(400);

    const listed = (await ok(listWebhooks(ws))).webhooks.map((w: { id: string }) => w.id);
    expect(listed).toEqual([again.id, ...created.slice(1).map((w) => w.id).reverse()]);
    expect(await storedWebhooks(ws)).toHaveLength(6);
  });

  test('concurrent creates cannot pass the limit', async () => {
    const ws = await newWorkspace('Webhook race');
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => createWebhook(ws, { url: publicUrl(`race${i}`) })));
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 200, 200, 200, 200, 400, 400, 400, 400]);
    expect((await storedWebhooks(ws)).filter((r) => r.deletedAt === null)).toHaveLength(5);
  });

  test('an archived webhook is 404 for get, update, archive and attempts, and leaves the list', async () => {
    const ws = await newWorkspace('Webhook archive');
    const { webhook } = await ok(createWebhook(ws, {}));
    await ok(archiveWebhook(ws, webhook.id));
    for (const res of [await getWebhook(ws, webhook.id), await updateWebhook(ws, webhook.id, { status: 'active' }), await archiveWebhook(ws, webhook.id), await listAttempts(ws, webhook.id)]) {
      expect(res.response.status).toBe(404);
      expect(res.error).toEqual({ status: 'error', error: { message: expect.any(String) } });
    }
    expect((await ok(listWebhooks(ws))).webhooks).toEqual([]);
    expect(await subscribedWebhooks(prisma, { workspaceId: ws.workspaceId, livemode: true, type: 'product_created' })).toEqual([]);
  });
});

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

  test('with no webhook subscribed it succeeds with 0 deliveries and records nothing (deliveries: webhook-delivery.test.ts)', async () => {
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

describe('events recorded with catalogue writes', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Webhook events outbox');
  });

  const eventsOf = async (type: string, subjectKey: string, subjectId: string) => {
    const { rows } = await db.query(`SELECT * FROM "Event" WHERE "workspaceId" = $1 AND type = $2 AND payload->($3::text)->>'id' = $4`, [ws.workspaceId, type, subjectKey, subjectId]);
    return rows;
  };
  const countEvents = async () => (await db.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = $1`, [ws.workspaceId])).rows[0].n as number;

  test('a product create writes exactly one product_created event whose data is the product as returned', async () => {
    const res = await call('POST', '/v0/products/create', ws, { name: 'Evented', projectId: ws.projectId, type: 'DigitalDownload', tags: ['a'] });
    expect(res.status).toBe(200);
    const { product } = res.body.data;
    const rows = await eventsOf('product_created', 'product', product.id);
    expect(rows).toHaveLength(1);
    const [event] = rows;
    // dispatchedAt is set by the worker's dispatcher shortly after (webhook-delivery.test.ts).
    expect(event).toMatchObject({ livemode: true, test: false, payload: { product } });
    const body = eventBody({ id: event.id, type: event.type, createdAt: event.createdAt, livemode: event.livemode, payload: event.payload });
    expect(body).toEqual({ id: event.id, idempotencyKey: event.id, type: 'product_created', createdAt: event.createdAt.getTime(), livemode: true, data: { product } });
  });

  test('a test event has the shape of the real event of its type (one payload builder feeds both)', async () => {
    /** The keys of every object, recursively; an array by its first item; other values by nothing. */
    const shapeOf = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
      if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]));
      return null;
    };
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'Shaped', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const { offer } = (await call('POST', '/v0/offers/create', ws, { productId: product.id, price: 500, currency: 'USD' })).body.data;
    const { discount } = (await call('POST', '/v0/discounts/create', ws, { type: 'code', amount: 10, amountType: 'percentage', discountCode: `SHAPE${randomBytes(3).toString('hex')}` })).body.data;
    const { user } = (await call('POST', '/v0/users/create', ws, { email: `shape-${randomUUID()}@example.com` })).body.data;
    const { checkoutElement } = (await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [offer.id] })).body.data;
    // Orders as checkout makes them, each payment then settled one way.
    const scope = { workspaceId: ws.workspaceId, livemode: true };
    const sale = (subscription = false) =>
      prisma.$transaction((tx) =>
        createOrder(tx, scope, {
          userId: user.id, currency: 'USD', items: [{ offerId: offer.id, productId: product.id, quantity: 1, unitPrice: 500 }],
          payment: { processor: 'sandbox', methodType: 'card' }, subscription: subscription ? { recurringInterval: 'month' } : null,
        }),
      );
    const [paid, failed, cancelled, expired, subscribed] = [await sale(), await sale(), await sale(), await sale(), await sale(true)];
    await prisma.$transaction(async (tx) => {
      await markPaymentPaid(tx, paid.payment.id);
      await markPaymentFailed(tx, failed.payment.id, { failureCode: 'card_declined', failureMessage: 'Declined' });
      await markPaymentCancelled(tx, cancelled.payment.id);
      await markPaymentExpired(tx, expired.payment.id);
      await markPaymentPaid(tx, subscribed.payment.id);
    });
    expect((await call('PATCH', `/v0/orders/${paid.order.id}/update`, ws, { tax: 10 })).status).toBe(200);
    const cancelledOrder = await sale();
    expect((await call('PATCH', `/v0/orders/${cancelledOrder.order.number}/cancel`, ws, {})).status).toBe(200);
    const subjects: Array<[string, string, string]> = [
      ['product_created', 'product', product.id],
      ['offer_created', 'offer', offer.id],
      ['discount_created', 'discount', discount.id],
      ['user_created', 'user', user.id],
      ['checkout_element_created', 'checkoutElement', checkoutElement.id],
      ['order_created', 'order', paid.order.id],
      ['order_updated', 'order', paid.order.id],
      ['order_cancelled', 'order', cancelledOrder.order.id],
      ['payment_success', 'payment', paid.payment.id],
      ['payment_failed', 'payment', failed.payment.id],
      ['payment_cancelled', 'payment', cancelled.payment.id],
      ['payment_expired', 'payment', expired.payment.id],
      ['subscription_created', 'subscription', subscribed.order.number],
    ];
    for (const [type, key, id] of subjects) {
      const [real] = await eventsOf(type, key, id);
      const now = new Date();
      const sample = await events[type]!({ now, items: () => [], user: () => sampleUser(prisma, { workspaceId: ws.workspaceId, livemode: true }, null, now) });
      expect({ type, shape: shapeOf(sample) }).toEqual({ type, shape: shapeOf(real.payload) });
    }
  });

  test('rejected creates write no event', async () => {
    const before = await countEvents();
    const rejected = [
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: randomUUID(), type: 'DigitalDownload' }),
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: ws.projectId, type: 'DigitalDownload', developer: 'x' }),
      await call('POST', '/v0/products/create', ws, { name: 'Bad', projectId: ws.projectId, type: 'DigitalDownload' }, { write: false }),
      await call('POST', '/v0/users/create', ws, { email: 'not-an-email' }),
    ];
    expect(rejected.map((r) => r.status)).toEqual([400, 400, 401, 400]);
    const limited = await newWorkspace('Webhook events limit', ['productLimit=0']);
    const overLimit = await call('POST', '/v0/products/create', limited, { name: 'Over', projectId: limited.projectId, type: 'DigitalDownload' });
    expect(overLimit.status).toBe(409);
    expect(await countEvents()).toBe(before);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = $1`, [limited.workspaceId]);
    expect(rows[0].n).toBe(0);
  });

  test('update, duplicate and archive of a product each record their event; test mode records livemode false', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'Lifecycle', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const updated = await call('PATCH', `/v0/products/${product.id}/update`, ws, { name: 'Lifecycle 2' });
    expect((await eventsOf('product_updated', 'product', product.id)).map((e) => e.payload)).toEqual([{ product: updated.body.data.product }]);
    const copy = (await call('POST', `/v0/products/${product.id}/duplicate`, ws, {})).body.data.product;
    expect((await eventsOf('product_created', 'product', copy.id)).map((e) => e.payload)).toEqual([{ product: copy }]);
    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(200);
    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(404);
    const archived = await eventsOf('product_archived', 'product', product.id);
    expect(archived).toHaveLength(1);
    expect(archived[0].payload.product).toMatchObject({ id: product.id, name: 'Lifecycle 2' });
    const failedUpdate = await call('PATCH', `/v0/products/${copy.id}/update`, ws, { name: '' });
    expect(failedUpdate.status).toBe(400);
    expect(await eventsOf('product_updated', 'product', copy.id)).toHaveLength(0);

    await setWorkspace(ws.workspaceId, 'testMode=true');
    const testProduct = (await call('POST', '/v0/products/create', ws, { name: 'Test mode', projectId: ws.projectId, type: 'DigitalDownload' }, { mode: 'test' })).body.data.product;
    const [testEvent] = await eventsOf('product_created', 'product', testProduct.id);
    expect(testEvent.livemode).toBe(false);
  });

  test('offer create, update and archive record their events; archiving a product archives its offers with an event each', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'With offers', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const created = await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'EUR', price: 1500 });
    expect(created.status).toBe(200);
    const { offer } = created.body.data;
    expect((await eventsOf('offer_created', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer }]);
    const updated = await call('PATCH', `/v0/offers/${offer.id}/update`, ws, { price: 1200 });
    expect((await eventsOf('offer_updated', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer: updated.body.data.offer }]);
    const rejected = await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'XXX', price: 1 });
    expect(rejected.status).toBe(400);

    const second = (await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'EUR', price: 900 })).body.data.offer;
    expect((await call('PATCH', `/v0/offers/${second.id}/archive`, ws, {})).status).toBe(200);
    const [secondArchived] = await eventsOf('offer_archived', 'offer', second.id);
    expect(secondArchived.payload).toEqual({ offer: second });

    expect((await call('PATCH', `/v0/products/${product.id}/archive`, ws, {})).status).toBe(200);
    expect((await eventsOf('offer_archived', 'offer', offer.id)).map((e) => e.payload)).toEqual([{ offer: updated.body.data.offer }]);
    expect(await eventsOf('offer_archived', 'offer', second.id)).toHaveLength(1);
    const { rows } = await db.query(`SELECT type FROM "Event" WHERE "workspaceId" = $1 AND (payload->'offer'->>'productId' = $2 OR payload->'product'->>'id' = $2) ORDER BY "createdAt", type`, [ws.workspaceId, product.id]);
    expect(rows.map((r) => r.type).sort()).toEqual(['offer_archived', 'offer_archived', 'offer_created', 'offer_created', 'offer_updated', 'product_archived', 'product_created'].sort());
  });

  test('a checkout element create records checkout_element_created with the element as returned', async () => {
    const { product } = (await call('POST', '/v0/products/create', ws, { name: 'For checkout', projectId: ws.projectId, type: 'DigitalDownload' })).body.data;
    const offers = [];
    for (const price of [500, 700]) offers.push((await call('POST', '/v0/offers/create', ws, { productId: product.id, currency: 'USD', price })).body.data.offer);
    const created = await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [offers[1].id, offers[0].id], name: 'Cart' });
    expect(created.status).toBe(200);
    const { checkoutElement } = created.body.data;
    expect(checkoutElement.offers.map((o: { id: string }) => o.id)).toEqual([offers[1].id, offers[0].id]);
    expect((await eventsOf('checkout_element_created', 'checkoutElement', checkoutElement.id)).map((e) => e.payload)).toEqual([{ checkoutElement }]);
    const before = await countEvents();
    expect((await call('POST', '/v0/elements/checkout/create', ws, { offersIds: [randomUUID()] })).status).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  test('user create and archive record user_created and user_archived with the user as returned', async () => {
    const created = await call('POST', '/v0/users/create', ws, { email: `buyer-${randomUUID()}@example.com`, billingDetails: { countryCode: 'DE', postalCode: '10115' } });
    expect(created.status).toBe(200);
    const { user } = created.body.data;
    expect((await eventsOf('user_created', 'user', user.id)).map((e) => e.payload)).toEqual([{ user }]);
    const duplicate = await call('POST', '/v0/users/create', ws, { email: user.email });
    expect(duplicate.status).toBe(400);
    expect(await eventsOf('user_created', 'user', user.id)).toHaveLength(1);
    expect((await call('PATCH', `/v0/users/${user.id}/archive`, ws, {})).status).toBe(200);
    expect((await call('PATCH', `/v0/users/${user.id}/archive`, ws, {})).status).toBe(404);
    expect((await eventsOf('user_archived', 'user', user.id)).map((e) => e.payload)).toEqual([{ user }]);
  });
});
