// The discount events: their data is the discount as the API returns it.
import { randomUUID } from 'node:crypto';
import { Prisma, type Discount } from '../generated/prisma/client.js';
import type { EventDefinitions, SampleContext } from '../events/event-types.js';
import { unixSeconds } from '../core/time.js';

/** The stored amount as the spec's string: plain notation, no trailing zeros ("12.5", "500"). */
export const formatAmount = (amount: Prisma.Decimal) => amount.toFixed();

export const timestampOrNull = (value: bigint | null) => (value === null ? null : Number(value));

/** The discount as the API returns it (the Discount type's fields): the data of its events. */
export function discountResource(d: Discount) {
  return {
    object: 'discount',
    id: d.id,
    type: d.type,
    name: d.name,
    amount: formatAmount(d.amount),
    amountType: d.amountType,
    discountCode: d.discountCode,
    validFrom: timestampOrNull(d.validFrom),
    validUntil: timestampOrNull(d.validUntil),
    purchaseLimit: d.purchaseLimit,
    duration: d.duration,
    durationInMonths: d.durationInMonths,
    timesUsed: d.timesUsed,
    status: d.status,
    includesAllOffers: d.includedOfferIds.length === 0,
    includedOffers: d.includedOfferIds,
    excludedOffers: d.excludedOfferIds,
    currency: d.currency,
    timezone: d.timezone,
    createdAt: unixSeconds(d.createdAt),
  };
}

/** The data of every discount event. */
export const discountEventData = (discount: Discount) => ({ discount: discountResource(discount) });

function sampleDiscount({ now }: SampleContext): Discount {
  return {
    id: randomUUID(), workspaceId: randomUUID(), livemode: false, type: 'code', name: 'Sample discount', amount: new Prisma.Decimal(10),
    amountType: 'percentage', discountCode: 'SAMPLE10', validFrom: null, validUntil: null, timezone: 'UTC', purchaseLimit: null, duration: 'once', durationInMonths: null,
    timesUsed: 0, status: 'active', currency: 'USD', includedOfferIds: [], excludedOfferIds: [], createdAt: now, updatedAt: now, archivedAt: null,
  };
}

const sample = (context: SampleContext) => discountEventData(sampleDiscount(context));

export const events = { discount_created: sample, discount_updated: sample, discount_archived: sample } satisfies EventDefinitions;
