// The checkout element events: their data is the element as the API returns it.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../generated/prisma/client.js';
import type { EventDefinitions } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';

/** What an element's offer references need (the CheckoutElement type's `offers` selects it too). */
export const withOfferReferences = { offers: { orderBy: { position: 'asc' }, select: { offer: { select: { id: true, internalId: true } } } } } as const;

type ElementWithOffers = Prisma.CheckoutElementGetPayload<{ include: typeof withOfferReferences }>;

/** The element's offers as references, in the order given at creation. */
export const offerReferences = (e: Prisma.CheckoutElementGetPayload<{ select: typeof withOfferReferences }>) =>
  e.offers.map(({ offer }) => ({ object: 'offer', id: offer.id, internalId: offer.internalId }));

/** The checkout element as the API returns it (the CheckoutElement type's fields): the data of its events. */
export function checkoutElementResource(e: ElementWithOffers) {
  return {
    object: 'checkoutElement',
    id: e.id,
    name: e.name,
    status: e.status,
    subscriptionOffer: e.subscriptionOffer,
    offers: offerReferences(e),
    createdAt: unixSeconds(e.createdAt),
  };
}

/** The data of every checkout element event. */
export const checkoutElementEventData = (element: ElementWithOffers) => ({ checkoutElement: checkoutElementResource(element) });

export const events = {
  checkout_element_created: ({ now }) =>
    checkoutElementEventData({
      id: randomUUID(), workspaceId: randomUUID(), livemode: false, name: 'Sample checkout', status: 'ACTIVE', subscriptionOffer: false,
      createdAt: now, updatedAt: now, archivedAt: null, offers: [{ offer: { id: randomUUID(), internalId: null } }],
    }),
} satisfies EventDefinitions;
