import './domains.js';
import { randomUUID } from 'node:crypto';
import { createPrismaClient } from '../../src/db/client.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { createOrder, type NewOrder, type NewOrderItem } from '../../src/orders/service.js';
import { keyHeaders, type KeyChoice, type Workspace } from './api.js';
import { restClient } from './client.js';
import { ok } from './responses.js';

// Orders are made by checkout (a later part of the issue); the tests make them with the service
// function checkout will call, on the suite's database, then read them through the API.

let prisma: PrismaClient | undefined;
/** A Prisma client on the suite's database, shared by a test file and closed after it. */
export const salesDb = () => (prisma ??= createPrismaClient(process.env.DATABASE_URL!));
afterAll(async () => {
  await prisma?.$disconnect();
  prisma = undefined;
});

export const scopeOf = (ws: Workspace, key: KeyChoice = {}) => ({ workspaceId: ws.workspaceId, livemode: (key.mode ?? 'live') === 'live' });

/** A product and a one-time offer of it, through the API. */
export async function newCatalogue(ws: Workspace, price = 1000, key: KeyChoice = {}, body: Record<string, unknown> = {}) {
  const client = restClient(ws, key);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `Sold ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type: 'DigitalDownload' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price, currency: 'USD', ...body } }));
  return { product, offer, item: (quantity = 1, extra: Partial<NewOrderItem> = {}): NewOrderItem => ({ offerId: offer.id, productId: product.id, quantity, unitPrice: price, ...extra }) };
}

/** A buyer, through the API. */
export async function newBuyer(ws: Workspace, email = `buyer-${randomUUID()}@example.com`, key: KeyChoice = {}) {
  return (await ok(restClient(ws, key).POST('/v0/users/create', { body: { email } }))).user;
}

/** A NewOrder in part, its buyer by id (seedOrder reads the row in the order's transaction). */
export type OrderSeed = Partial<Omit<NewOrder, 'user'>> & { userId?: string | null; items?: NewOrderItem[] };

/** An order made as checkout makes it (one transaction), in the key's mode. */
export async function seedOrder(ws: Workspace, { userId, ...seed }: OrderSeed = {}, key: KeyChoice = {}) {
  return salesDb().$transaction(async (tx) => {
    const input: NewOrder = {
      user: userId ? await tx.user.findUniqueOrThrow({ where: { id: userId } }) : null,
      currency: 'USD',
      items: [{ offerId: randomUUID(), productId: randomUUID(), quantity: 1, unitPrice: 1000 }],
      payment: { processor: 'sandbox', methodType: 'card' },
      ...seed,
    };
    return createOrder(tx, scopeOf(ws, key), input);
  });
}

/** The stored events of a type about one record (`payload[subjectKey].id`), oldest first. */
export async function eventsAbout(ws: Workspace, type: string, subjectKey: string, id: string) {
  const rows = await salesDb().event.findMany({ where: { workspaceId: ws.workspaceId, type }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.filter((row) => ((row.payload as Record<string, { id?: string }>)[subjectKey]?.id ?? null) === id);
}

export const countEvents = (ws: Workspace) => salesDb().event.count({ where: { workspaceId: ws.workspaceId } });

/** A raw GET with the workspace's read key, for paths the typed client would encode (a `#`). */
export const readHeaders = (ws: Workspace, key: KeyChoice = {}) => keyHeaders(ws, { ...key, write: false });
