import { randomBytes } from 'node:crypto';
import { events } from '../src/domains.js';
import { subscribedWebhooks } from '../src/webhooks/subscribers.js';
import { baseUrl, call, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { archiveWebhook, createWebhook, db, getWebhook, listAttempts, listWebhooks, ok, prisma, publicUrl, storedWebhooks, updateWebhook } from './support/webhooks-suite.js';

const EVENT_TYPES = Object.keys(events);
const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const MASK = /^••••.{4}$/;

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
