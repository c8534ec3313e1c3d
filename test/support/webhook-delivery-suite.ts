// What the webhook delivery test files share: receivers, deployments and the main deployment's
// setup and helpers (the suite is split along its describe blocks, each file under 400 lines).
import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client, Connection } from '@temporalio/client';
import createClient from 'openapi-fetch';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';

import type { webhookDelivery } from '../../workflows/webhook-delivery.js';
import { keyHeaders, type Workspace } from './api.js';
import { scratchDatabase, type ScratchDatabase } from './database.js';
import type { paths } from '../generated/openapi.js';
import { runCli, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './processes.js';

// Webhook delivery end to end: servers and workers on the suite's Temporal dev server, each on a
// task queue and a database of its own (the suite server's event dispatcher polls the suite
// database, so these events must not be there), delivering to real HTTP receivers on loopback.

export const CONTACT = 'ops@example.com';
export const SLOW = 120_000;

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

/** An HTTP server that records every request and answers per path; `n` counts earlier requests to the path. */
export class Receiver {
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

/** Polls `probe` until it gives a value; a minute at most, as `eventually` (./checkout.ts). */
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export const verify = (secret: string, request: Received) => new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);

/** A dedicated API (and maybe worker) on its own database and task queue. */
export class Deployment {
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
      // Long enough for an endpoint on a loaded CI machine that answers at once (1 s was not: a try
      // of an endpoint answering at once timed out with two test passes on two cores).
      WEBHOOK_TIMEOUT_MS: '4000',
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
export async function ok<T extends { data?: any; error?: any; response: Response }>(call: Promise<T>) {
  const { data, error, response } = await call;
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
}

export const connectTemporal = async () => new Client({ connection: await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! }) });

// The main deployment, with an in-process worker, whose allow-list names the receiver's port only;
// `otherPort` is another port of the receiver's host. A file that calls useDeliveryDeployment()
// starts its own.
export let temporal: Client;
export const receiver = new Receiver();
export const otherPort = new Receiver();
export const deployment = new Deployment();
export let ws: Workspace;
export let api: ReturnType<Deployment['api']>;

export function useDeliveryDeployment() {
  beforeAll(async () => {
    temporal = await connectTemporal();
    await Promise.all([receiver.listen(), otherPort.listen()]);
    await deployment.start({ WEBHOOK_ALLOWED_HOSTS: receiver.host });
    ws = await deployment.workspace('Webhook delivery');
    api = deployment.api(ws);
  }, SLOW);

  afterAll(async () => {
    await deployment.stop();
    await Promise.all([receiver.close(), otherPort.close()]);
    await temporal.connection.close();
  });

  // Archiving frees the slot (5 per workspace) and stops whatever a test left retrying.
  afterEach(async () => {
    const { webhooks } = await ok(api.GET('/v0/webhooks/list', {}));
    for (const webhook of webhooks) await ok(api.PATCH('/v0/webhooks/{webhookId}/archive', { params: { path: { webhookId: webhook.id } }, body: {} }));
  });
}

export const createWebhook = async (url: string, events: string[] = ['product_created'], status = 'active') =>
  (await ok(api.POST('/v0/webhooks/create', { body: { url, events, status } as any }))).webhook;

export const createProduct = async (name = `Product ${randomUUID()}`) =>
  (await ok(api.POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'DigitalDownload' } as any }))).product;

export const eventOf = async (type: string, key: string, id: string) =>
  until(`the ${type} event`, async () => (await deployment.query(`SELECT * FROM "Event" WHERE type = $1 AND payload->$2->>'id' = $3`, [type, key, id]))[0]);

/** The delivery workflow's result, once the dispatcher has started it. */
export const deliveryResult = async (eventId: string, webhookId: string) => {
  await until('the event to be dispatched', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [eventId]))[0].dispatchedAt);
  return temporal.workflow.getHandle<typeof webhookDelivery>(`webhook-delivery-${eventId}-${webhookId}`).result();
};

export const getWebhook = async (webhookId: string) => (await ok(api.GET('/v0/webhooks/{webhookId}', { params: { path: { webhookId } } }))).webhook;
