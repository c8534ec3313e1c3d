import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';
import createClient from 'openapi-fetch';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';

import type { webhookDelivery } from '../workflows/webhook-delivery.js';
import { keyHeaders, type Workspace } from './support/api.js';
import { scratchDatabase, type ScratchDatabase } from './support/database.js';
import type { paths } from './generated/openapi.js';
import { runCli, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';

// Webhook delivery end to end: servers and workers on the suite's Temporal dev server, each on a
// task queue and a database of its own (the suite server's event dispatcher polls the suite
// database, so these events must not be there), delivering to real HTTP receivers on loopback.

const CONTACT = 'ops@example.com';
const SLOW = 120_000;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** An HTTP server that records every request and answers per path; `n` counts earlier requests to the path. */
class Receiver {
  readonly requests: Received[] = [];
  private readonly routes = new Map<string, (n: number, request: Received) => Reply | Promise<Reply>>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const n = this.received(request.path).length;
      this.requests.push(request);
      const route = this.routes.get(request.path);
      const reply = route ? await route(n, request) : { status: 404 };
      if (reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      const text = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/plain' : 'application/json', ...reply.headers });
      res.end(text);
    });
  });

  async listen() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  /** host:port of the receiver, as an allow-list entry. */
  get host() {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  url(path: string) {
    return `http://${this.host}${path}`;
  }
  on(path: string, reply: (n: number, request: Received) => Reply | Promise<Reply>) {
    this.routes.set(path, reply);
    return this.url(path);
  }
  received(path: string) {
    return this.requests.filter((request) => request.path === path);
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const verify = (secret: string, request: Received) => new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);

/** A dedicated API (and maybe worker) on its own database and task queue. */
class Deployment {
  db!: ScratchDatabase;
  pg!: pg.Client;
  taskQueue = `webhooks-${randomUUID()}`;
  processes: Array<ServerProcess | StartedProcess> = [];
  server!: ServerProcess;

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      DATABASE_URL: this.db.url,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_INTERVAL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1000',
      EVENT_DISPATCH_INTERVAL_MS: '100',
      RATE_LIMIT_POINTS: '1000000',
      ...extra,
    };
  }

  async start(extra: Record<string, string> = {}) {
    this.db = await scratchDatabase();
    this.server = await startServerProcess(this.env(extra));
    this.processes.push(this.server);
    this.pg = new pg.Client({ connectionString: this.db.url });
    await this.pg.connect();
  }

  async startWorker(extra: Record<string, string> = {}) {
    const worker = await startWorkerProcess(this.env(extra));
    this.processes.push(worker);
    return worker;
  }

  async stop() {
    for (const child of this.processes) await child.stop('SIGKILL');
    await this.pg?.end();
    await this.db?.drop();
  }

  async workspace(name: string): Promise<Workspace> {
    const env = { DATABASE_URL: this.db.url };
    const ws = await runCli<Workspace>(['workspace', 'create', '--name', name], env);
    await runCli(['workspace', 'set', ws.workspaceId, `contactEmail=${CONTACT}`], env);
    return ws;
  }

  api(ws: Workspace) {
    return createClient<paths>({ baseUrl: this.server.url, headers: keyHeaders(ws) });
  }

  async query<R extends pg.QueryResultRow = any>(text: string, values: unknown[] = []) {
    return (await this.pg.query<R>(text, values)).rows;
  }

  attempts(webhookId: string) {
    return this.query(`SELECT * FROM "WebhookAttempt" WHERE "webhookId" = $1 ORDER BY "eventId", sequence`, [webhookId]);
  }

  async webhookRow(webhookId: string) {
    return (await this.query(`SELECT * FROM "Webhook" WHERE id = $1`, [webhookId]))[0];
  }

  emails(webhookId: string) {
    return this.query(`SELECT kind, "to", subject, text FROM "Email" WHERE text LIKE '%' || $1 || '%' ORDER BY "createdAt"`, [webhookId]);
  }
}

/** The data of a 200 answer; fails with the error envelope otherwise. */
async function ok<T extends { data?: any; error?: any; response: Response }>(call: Promise<T>) {
  const { data, error, response } = await call;
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
}

let temporal: Client;
const receiver = new Receiver();
// Another port of the receiver's host: the main deployment's allow-list names the receiver's port only.
const otherPort = new Receiver();
// One with an in-process worker; one without, whose workers the crash test starts and kills.
const deployment = new Deployment();
const crashDeployment = new Deployment();
let ws: Workspace;
let crashWs: Workspace;

beforeAll(async () => {
  temporal = new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });
  await Promise.all([receiver.listen(), otherPort.listen()]);
  // Side by side: each migrates a fresh database and starts a server. The main deployment allows
  // the receiver (host:port); the crash deployment its whole host (a bare host is every port).
  [ws, crashWs] = await Promise.all([
    deployment.start({ WEBHOOK_ALLOWED_HOSTS: receiver.host }).then(() => deployment.workspace('Webhook delivery')),
    crashDeployment.start({ WORKER_IN_PROCESS: 'false' }).then(() => crashDeployment.workspace('Webhook crash')),
  ]);
}, SLOW);

afterAll(async () => {
  await Promise.all([deployment.stop(), crashDeployment.stop()]);
  await Promise.all([receiver.close(), otherPort.close()]);
  await temporal.connection.close();
});

describe('webhook delivery', () => {
  let api: ReturnType<Deployment['api']>;

  beforeAll(() => {
    api = deployment.api(ws);
  });

  // Archiving frees the slot (5 per workspace) and stops whatever a test left retrying.
  afterEach(async () => {
    const { webhooks } = await ok(api.GET('/v0/webhooks/list', {}));
    for (const webhook of webhooks) await ok(api.PATCH('/v0/webhooks/{webhookId}/archive', { params: { path: { webhookId: webhook.id } }, body: {} }));
  });

  const createWebhook = async (url: string, events: string[] = ['product_created'], status = 'active') =>
    (await ok(api.POST('/v0/webhooks/create', { body: { url, events, status } as any }))).webhook;

  const createProduct = async (name = `Product ${randomUUID()}`) =>
    (await ok(api.POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'DigitalDownload' } as any }))).product;

  const eventOf = async (type: string, key: string, id: string) =>
    until(`the ${type} event`, async () => (await deployment.query(`SELECT * FROM "Event" WHERE type = $1 AND payload->$2->>'id' = $3`, [type, key, id]))[0]);

  /** The delivery workflow's result, once the dispatcher has started it. */
  const deliveryResult = async (eventId: string, webhookId: string) => {
    await until('the event to be dispatched', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [eventId]))[0].dispatchedAt);
    return temporal.workflow.getHandle<typeof webhookDelivery>(`webhook-delivery-${eventId}-${webhookId}`).result();
  };

  const getWebhook = async (webhookId: string) => (await ok(api.GET('/v0/webhooks/{webhookId}', { params: { path: { webhookId } } }))).webhook;

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
    const url = receiver.on('/slow', (n) => (n === 0 ? { status: 200, body: { late: true }, delayMs: 2500 } : { status: 200, body: { ok: true } }));
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
  });

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

describe('webhook delivery across worker crashes', () => {
  // Long enough to kill the worker while a retry waits.
  const RETRY_MS = '3000';

  test('events recorded while no worker runs are dispatched at its start; a worker killed between tries loses and duplicates nothing', async () => {
    const deployment = crashDeployment;
    const ws = crashWs;
    const api = deployment.api(ws);
    const url = receiver.on('/crash', (n) => (n === 0 ? { status: 500 } : { status: 200, body: { ok: true } }));
    const webhook = (await ok(api.POST('/v0/webhooks/create', { body: { url, events: ['product_created'] } as any }))).webhook;
    const product = (await ok(api.POST('/v0/products/create', { body: { name: 'Crash', projectId: ws.projectId, type: 'DigitalDownload' } as any }))).product;
    const [event] = await deployment.query(`SELECT * FROM "Event" WHERE payload->'product'->>'id' = $1`, [product.id]);
    // No worker, no dispatcher: the event waits in the outbox.
    await sleep(1000);
    expect((await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt).toBeNull();

    const first = await deployment.startWorker({ WEBHOOK_RETRY_INTERVAL_MS: RETRY_MS });
    const handle = temporal.workflow.getHandle<typeof webhookDelivery>(`webhook-delivery-${event.id}-${webhook.id}`);
    // Killed once the first try is recorded and the workflow sleeps before the retry.
    await until('the dispatch at worker start', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt);
    await until('the retry timer', async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes));
    expect(await deployment.attempts(webhook.id)).toHaveLength(1);
    first.child.kill('SIGKILL');
    await deployment.startWorker({ WEBHOOK_RETRY_INTERVAL_MS: RETRY_MS });

    expect(await handle.result()).toBe('delivered');
    const requests = receiver.received('/crash');
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    const attempts = await deployment.attempts(webhook.id);
    expect(attempts.map((a) => [a.sequence, a.statusCode])).toEqual([
      [0, 500],
      [1, 200],
    ]);

    // A re-dispatch (as after a crash before dispatchedAt was written) starts nothing new: the
    // dispatcher's start returns before it marks the event, so the same run is proof.
    const { runId } = await handle.describe();
    await deployment.query(`UPDATE "Event" SET "dispatchedAt" = NULL WHERE id = $1`, [event.id]);
    await until('the re-dispatch', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt);
    expect(await handle.describe()).toMatchObject({ runId, status: { name: 'COMPLETED' } });
    expect(receiver.received('/crash')).toHaveLength(2);
    expect(await deployment.attempts(webhook.id)).toHaveLength(2);
  }, SLOW);
});
