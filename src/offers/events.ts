// The offer events: their data is the offer as the API returns it.
import { randomUUID } from 'node:crypto';
import type { Offer } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';
import { currencyDecimals } from '../reference/currencies.js';

/** The offer as the API returns it (the Offer type's fields): the data of its events. */
export function offerResource(o: Offer) {
  return {
    object: 'offer',
    id: o.id,
    internalId: o.internalId,
    price: o.price,
    originalPrice: o.originalPrice,
    recurringInterval: o.recurringInterval,
    recurringIntervalCount: o.recurringIntervalCount,
    trialInterval: o.trialInterval,
    trialIntervalCount: o.trialIntervalCount,
    currency: o.currency,
    limit: o.limit,
    soldItems: o.soldItems,
    status: o.status,
    name: o.name,
    description: o.description,
    region: o.region,
    platform: o.platform,
    gtin: o.gtin,
    warningMessage: o.warningMessage,
    productId: o.productId,
    variantId: o.variantId,
    currencyDecimals: currencyDecimals(o.currency) ?? null,
    createdAt: unixSeconds(o.createdAt),
  };
}

/** The data of every offer event. */
export const offerEventData = (offer: Offer) => ({ offer: offerResource(offer) });

function sampleOffer({ now }: SampleContext): Offer {
  return {
    id: randomUUID(), workspaceId: randomUUID(), livemode: false, productId: randomUUID(), variantId: null, internalId: null,
    name: 'Sample offer', description: null, price: 1999, originalPrice: null, currency: 'USD', recurringInterval: null,
    recurringIntervalCount: null, trialInterval: null, trialIntervalCount: null, limit: null, soldItems: 0, status: 'ACTIVE',
    region: 'WORLDWIDE', platform: 'OTHER', gtin: null, warningMessage: null, createdAt: now, updatedAt: now, archivedAt: null,
  };
}

const sample = (context: SampleContext) => offerEventData(sampleOffer(context));

export const events = { offer_created: sample, offer_updated: sample, offer_archived: sample } satisfies EventDefinitions;
