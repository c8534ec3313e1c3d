// What the webhook management test files share: database access, the REST calls and a public URL
// (the suite is split along its describe blocks, each file under 400 lines).
import pg from 'pg';
import { createPrismaClient } from '../../src/db/client.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import type { KeyChoice, Workspace } from './api.js';
import { restClient } from './client.js';

export let db: pg.Client;
export let prisma: PrismaClient;
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
export const publicUrl = (path = 'hook') => `https://93.184.215.14/${path}`;

type WebhookBody = { url?: unknown; events?: unknown; status?: unknown; secret?: unknown };
export const createWebhook = (ws: Workspace, body: WebhookBody, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/webhooks/create', { body: { url: publicUrl(), events: ['product_created'], ...body } as any });
export const getWebhook = (ws: Workspace, webhookId: string, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/webhooks/{webhookId}', { params: { path: { webhookId } } });
export const updateWebhook = (ws: Workspace, webhookId: string, body: WebhookBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/webhooks/{webhookId}/update', { params: { path: { webhookId } }, body: body as any });
export const archiveWebhook = (ws: Workspace, webhookId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/webhooks/{webhookId}/archive', { params: { path: { webhookId } }, body: {} });
export const listWebhooks = (ws: Workspace, key: KeyChoice = {}) => restClient(ws, key).GET('/v0/webhooks/list', {});
export const listAttempts = (ws: Workspace, webhookId: string, query: Record<string, unknown> = {}, key: KeyChoice = {}) =>
  restClient(ws, key).GET('/v0/webhooks/{webhookId}/attempts', { params: { path: { webhookId }, query: query as any } });

/** The data of a successful call; fails the test with the error envelope otherwise. */
export async function ok<T extends { data?: any; error?: any; response: Response }>(call: Promise<T>) {
  const { data, error, response } = await call;
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(error)}`);
  expect(data.status).toBe('success');
  return data.data;
}

export async function storedWebhooks(ws: Workspace) {
  const { rows } = await db.query(`SELECT * FROM "Webhook" WHERE "workspaceId" = $1 ORDER BY "createdAt"`, [ws.workspaceId]);
  return rows;
}
