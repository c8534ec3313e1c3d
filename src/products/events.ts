// The product events: their data is the product as the API returns it (no variants).
import { randomUUID } from 'node:crypto';
import type { Product } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';

/** The product as the API returns it (the Product type's fields): the data of its events. */
export function productResource(p: Product) {
  return {
    object: 'product',
    id: p.id,
    type: p.type,
    internalId: p.internalId,
    name: p.name,
    description: p.description,
    developer: p.developer,
    publisher: p.publisher,
    pegiRating: p.pegiRating,
    releaseDate: p.releaseDate,
    systems: p.systems,
    genres: p.genres,
    status: p.status,
    customFields: p.customFields,
    slug: p.slug,
    projectId: p.projectId,
    tags: p.tags,
    media: p.media,
    createdAt: unixSeconds(p.createdAt),
    updatedAt: unixSeconds(p.updatedAt),
  };
}

/** The data of every product event. */
export const productEventData = (product: Product) => ({ product: productResource(product) });

function sampleProduct({ now }: SampleContext): Product {
  return {
    id: randomUUID(), workspaceId: randomUUID(), livemode: false, projectId: randomUUID(), type: 'DigitalDownload', slug: 'sample-product',
    internalId: null, name: 'Sample product', description: 'A product made up for a test event', developer: null, publisher: null,
    pegiRating: 'NONE', releaseDate: null, systems: [], genres: [], tags: [], media: [], status: 'ACTIVE', customFields: null,
    lowestPrice: 1999, createdAt: now, updatedAt: now, archivedAt: null,
  };
}

const sample = (context: SampleContext) => productEventData(sampleProduct(context));

export const events = { product_created: sample, product_updated: sample, product_archived: sample } satisfies EventDefinitions;
