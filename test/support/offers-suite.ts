// What the offers test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import { type KeyChoice, type Workspace } from './api.js';
import { restClient } from './client.js';
import { ok, useSuiteDatabase } from './responses.js';

export const READ: KeyChoice = { write: false };

export interface OfferBody {
  productId: string;
  price: number;
  currency: string;
  [field: string]: unknown;
}

/** Direct database access: license keys and sold items have no endpoint of their own yet. */
export const db = useSuiteDatabase();


export const createOffer = (ws: Workspace, body: OfferBody, key: KeyChoice = {}) => restClient(ws, key).POST('/v0/offers/create', { body });
export const getOffer = (ws: Workspace, offerId: string, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/offers/{offerId}', { params: { path: { offerId } } });
export const updateOffer = (ws: Workspace, offerId: string, body: Record<string, unknown>, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/offers/{offerId}/update', { params: { path: { offerId } }, body });
export const archiveOffer = (ws: Workspace, offerId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/offers/{offerId}/archive', { params: { path: { offerId } }, body: {} });
export const listOffers = (ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/offers/list', { params: { query } });

export async function newProduct(ws: Workspace, body: { name: string; type?: 'DigitalDownload' | 'SoftwareKey' | 'GiftCard'; tags?: string[] }, key: KeyChoice = {}) {
  const data = await ok(restClient(ws, key).POST('/v0/products/create', { body: { projectId: ws.projectId, type: 'DigitalDownload', ...body } }));
  return data.product as { id: string; name: string; slug: string };
}

export async function newVariant(ws: Workspace, productId: string, name: string) {
  const data = await ok(restClient(ws).POST('/v0/products/{productId}/variants/add', { params: { path: { productId } }, body: { name } }));
  return data.variant as { id: string };
}

export async function newOffer(ws: Workspace, body: OfferBody, key: KeyChoice = {}) {
  return (await ok(createOffer(ws, body, key))).offer;
}

export async function listIds(ws: Workspace, query: Record<string, unknown> = {}, key: KeyChoice = READ) {
  const data = await ok(listOffers(ws, query, key));
  return data.offers.map((o: { id: string }) => o.id);
}

export const storedOffers = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Offer" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);
