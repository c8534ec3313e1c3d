// What the products test files share: their helpers, fixtures and suite-wide state (the suite is
// split along its describe blocks, each file under 400 lines).
import type { components, operations } from '../generated/openapi.js';
import { newWorkspace, setWorkspace, type KeyChoice, type Workspace } from './api.js';
import { restClient } from './client.js';
import { ok, useSuiteDatabase } from './responses.js';

export type Product = components['schemas']['Product'];
export type ProductType = components['schemas']['ProductType'];
export type CreateBody = operations['createProduct']['requestBody']['content']['application/json'];
export type UpdateBody = NonNullable<operations['updateProduct']['requestBody']>['content']['application/json'];
export type VariantBody = operations['addVariant']['requestBody']['content']['application/json'];
export type VariantUpdateBody = NonNullable<operations['updateVariant']['requestBody']>['content']['application/json'];
export type ListQuery = NonNullable<operations['products']['parameters']['query']>;

export const READ: KeyChoice = { write: false };
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const NOT_GAME: ProductType[] = ['DigitalDownload', 'GiftCard', 'SoftwareKey', 'VirtualCurrency', 'VirtualItem', 'Subscription', 'OneTimePayment'];

/**
 * One workspace per describe block, so its counts are exact, plus one to play "another
 * workspace" for all of them. Created at once, with their settings, as each admin CLI call takes
 * seconds.
 */
export const SETTINGS = {
  create: [],
  slugs: ['testMode=true'],
  reads: ['testMode=true'],
  updates: [],
  archive: [],
  duplicates: [],
  limit: ['productLimit=3', 'testMode=true'],
  variants: [],
  filters: [],
  literals: [],
  paging: [],
  elsewhere: [],
} satisfies Record<string, string[]>;
export const spaces = {} as Record<keyof typeof SETTINGS, Workspace>;

/** Direct database access: variants and a second project have no read or create endpoint. */
export const db = useSuiteDatabase();
beforeAll(async () => {
  await Promise.all(
    Object.entries(SETTINGS).map(async ([block, settings]) => {
      const ws = await newWorkspace(`Products ${block}`);
      if (settings.length) await setWorkspace(ws.workspaceId, ...settings);
      spaces[block as keyof typeof SETTINGS] = ws;
    }),
  );
  // A dozen CLI processes at once can take over a minute on a busy machine.
}, 300_000);


export const createProduct = (ws: Workspace, body: Partial<CreateBody>, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/create', { body: { name: 'Product', projectId: ws.projectId, type: 'DigitalDownload', ...body } });
export const getProduct = (ws: Workspace, productId: string, key: KeyChoice = READ) =>
  restClient(ws, key).GET('/v0/products/{productId}', { params: { path: { productId } } });
export const updateProduct = (ws: Workspace, productId: string, body: UpdateBody, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/products/{productId}/update', { params: { path: { productId } }, body });
export const archiveProduct = (ws: Workspace, productId: string, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/products/{productId}/archive', { params: { path: { productId } }, body: {} });
export const duplicateProduct = (ws: Workspace, productId: string, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/{productId}/duplicate', { params: { path: { productId } }, body: {} });
export const addVariant = (ws: Workspace, productId: string, body: VariantBody, key: KeyChoice = {}) =>
  restClient(ws, key).POST('/v0/products/{productId}/variants/add', { params: { path: { productId } }, body });
export const updateVariant = (ws: Workspace, productId: string, variantId: string, body: VariantUpdateBody) =>
  restClient(ws).PATCH('/v0/products/{productId}/variants/{variantId}/update', { params: { path: { productId, variantId } }, body });
export const updatePlan = (ws: Workspace, productId: string, planId: string, body: VariantUpdateBody) =>
  restClient(ws).PATCH('/v0/products/{productId}/plans/{planId}/update', { params: { path: { productId, planId } }, body });
export const listProducts = (ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) => restClient(ws, key).GET('/v0/products/list', { params: { query } });

export async function newProduct(ws: Workspace, body: Partial<CreateBody> = {}, key: KeyChoice = {}) {
  return (await ok(createProduct(ws, body, key))).product;
}

export async function listIds(ws: Workspace, query: ListQuery = {}, key: KeyChoice = READ) {
  return (await ok(listProducts(ws, query, key))).products.map((p) => p.id);
}

export async function newOffer(ws: Workspace, productId: string, price: number) {
  return (await ok(restClient(ws).POST('/v0/offers/create', { body: { productId, price, currency: 'USD' } }))).offer;
}

export const getOffer = (ws: Workspace, offerId: string) => restClient(ws, READ).GET('/v0/offers/{offerId}', { params: { path: { offerId } } });

export const storedProducts = async (ws: Workspace) =>
  Number((await db.query('SELECT count(*) FROM "Product" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].count);

export const storedVariants = async (productId: string) =>
  (await db.query('SELECT id, name, description, "internalId", "order" FROM "Variant" WHERE "productId" = $1 ORDER BY name, id', [productId])).rows;

/** The product as create returns it when only name, projectId and type are sent. */
export const withDefaults = (ws: Workspace, fields: Partial<Product>) => ({
  object: 'product',
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  type: 'DigitalDownload',
  internalId: null,
  description: '',
  developer: null,
  publisher: null,
  pegiRating: 'NONE',
  releaseDate: null,
  systems: [],
  genres: [],
  status: 'DRAFT',
  customFields: null,
  slug: expect.stringMatching(SLUG),
  projectId: ws.projectId,
  tags: [],
  media: [],
  createdAt: expect.any(Number),
  updatedAt: expect.any(Number),
  ...fields,
});
