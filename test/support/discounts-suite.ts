// What the discounts test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { type KeyChoice, type Workspace } from './api.js';
import type { operations } from '../generated/openapi.js';
import { restClient } from './client.js';
import { useSuiteDatabase } from './responses.js';

export type CreateBody = operations['createDiscount']['requestBody']['content']['application/json'];
export type UpdateBody = NonNullable<operations['updateDiscount']['requestBody']>['content']['application/json'];
export type ListQuery = NonNullable<operations['discounts']['parameters']['query']>;

export const MAX_TIMESTAMP = 9007199254740991;

/** Direct database access: offers are seeded here (the offers endpoint is built separately) and stored state is read back. */
export const db = useSuiteDatabase();

export const createDiscount = (ws: Workspace, body: Partial<CreateBody>, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/discounts/create', { body: { type: 'code', amount: 10, amountType: 'percentage', ...body } });
export const getDiscount = (ws: Workspace, discountId: string, key: KeyChoice = { write: false }) =>
  restClient(ws, key).GET('/v0/discounts/{discountId}', { params: { path: { discountId } } });
export const updateDiscount = (ws: Workspace, discountId: string, body: UpdateBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/discounts/{discountId}/update', { params: { path: { discountId } }, body });
export const archiveDiscount = (ws: Workspace, discountId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/discounts/{discountId}/archive', { params: { path: { discountId } }, body: {} });
export const listDiscounts = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = { write: false }) =>
  restClient(ws, key).GET('/v0/discounts/list', { params: { query } });

export async function newDiscount(ws: Workspace, body: Partial<CreateBody> = {}, key: KeyChoice = {}) {
  const { data, response } = await createDiscount(ws, body, key);
  expect(response.status).toBe(200);
  return data!.data.discount;
}

export async function listIds(ws: Workspace, query: ListQuery = {}, key: KeyChoice = { write: false }) {
  const { data, response } = await listDiscounts(ws, query, key);
  expect(response.status).toBe(200);
  return data!.data.discounts.map((d: { id: string }) => d.id);
}

export const storedCount = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Discount" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

export async function newProduct(ws: Workspace, name: string) {
  const { data, response } = await restClient(ws).POST('/v0/products/create', { body: { name, projectId: ws.projectId, type: 'DigitalDownload' } });
  expect(response.status).toBe(200);
  return data!.data.product as { id: string; name: string };
}

export async function newOffer(ws: Workspace, productId: string, fields: { name?: string; internalId?: string; livemode?: boolean; archived?: boolean } = {}) {
  const { rows } = await db.query(
    `INSERT INTO "Offer" (id, "workspaceId", livemode, "productId", name, "internalId", price, currency, "updatedAt", "archivedAt")
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 1000, 'USD', now(), $6) RETURNING id`,
    [ws.workspaceId, fields.livemode ?? true, productId, fields.name ?? null, fields.internalId ?? null, fields.archived ? new Date() : null],
  );
  return rows[0].id as string;
}
