import { newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { newCatalogue, salesDb } from './support/sales.js';
import { lockOffers, sellingElement } from '../src/checkout/sale-reads.js';

// The checkout reads what it sells in SQL of its own (src/checkout/sale-reads.ts), naming every
// column of the offer: the rows must be the ones Prisma reads, column for column, so that a
// column added to the model and not to the statement fails here.

const prismaOffers = (ids: string[]) =>
  salesDb().offer.findMany({ where: { id: { in: ids } }, include: { product: { select: { name: true, archivedAt: true, type: true } } }, orderBy: { id: 'asc' } });

describe('the checkout’s reads of what it sells', () => {
  let ws: Workspace;
  let offerIds: string[];
  let elementOfferIds: string[];
  let elementId: string;
  beforeAll(async () => {
    ws = await newWorkspace('Sale reads');
    const plain = await newCatalogue(ws, 1500);
    const limited = await newCatalogue(ws, 700, {}, { limit: 7, name: 'Limited' });
    const recurring = await newCatalogue(ws, 900, {}, { recurringInterval: 'month', trialInterval: 'week', trialIntervalCount: 2, name: 'Monthly' });
    offerIds = [recurring.offer.id, limited.offer.id, plain.offer.id];
    // A subscription offer sells alone: the element has the two others, in this order.
    elementOfferIds = [limited.offer.id, plain.offer.id];
    const { checkoutElement } = await ok(restClient(ws).POST('/v0/elements/checkout/create', { body: { offersIds: elementOfferIds } }));
    elementId = checkoutElement.id;
    // A product's archivedAt set, so that both of its kinds of value are read.
    await salesDb().product.update({ where: { id: plain.product.id }, data: { archivedAt: new Date() } });
  });

  test('the locked offers are the rows Prisma reads, with their products', async () => {
    const locked = await salesDb().$transaction((tx) => lockOffers(tx, offerIds));
    expect([...locked.values()].sort((a, b) => (a.id < b.id ? -1 : 1))).toStrictEqual(await prismaOffers(offerIds));
  });

  test('the selling element gives its offers in its order, as Prisma reads them, and its workspace’s tax settings', async () => {
    const { element, offers, workspace } = await sellingElement(salesDb(), elementId);
    expect(element.id).toBe(elementId);
    const byId = new Map((await prismaOffers(elementOfferIds)).map((offer) => [offer.id, offer]));
    expect(offers).toStrictEqual(elementOfferIds.map((id) => byId.get(id)));
    const stored = await salesDb().workspace.findUniqueOrThrow({ where: { id: ws.workspaceId }, select: { offline: true, testMode: true, pricesIncludeTax: true, taxRegistrations: true, noTaxData: true } });
    expect(workspace).toEqual(stored);
  });
});
