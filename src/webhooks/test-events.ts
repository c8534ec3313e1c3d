import { randomUUID } from 'node:crypto';

import type { PrismaClient } from '../generated/prisma/client.js';
import { ValidationFailed } from '../core/errors.js';
import type { Scope } from '../core/scope.js';
import { unixSeconds } from '../core/time.js';
import type { EventDefinitions } from '../events/event-types.js';
import { sampleUser } from '../users/index.js';

// The `data` of a synthetic event (sendTestEvent): the domain that records the type builds it with
// the payload builder of its real events, over made-up records. The caller's hints become the
// order items (each keeps a string `id` it gives) and the buyer (the workspace's user it names).

export interface TestEventHints {
  items?: unknown;
  userId?: string | null;
}

const ITEMS_MAX = 100;

type Item = Record<string, unknown> & { id: string };

/** The items hint as order items, each with an id (kept when the hint gives a string one). */
function itemsFrom(hint: unknown, now: Date): Item[] {
  const sample = (overrides: Record<string, unknown> = {}): Item => {
    const id = typeof overrides.id === 'string' && overrides.id !== '' ? overrides.id : randomUUID();
    return { object: 'order_item', productId: randomUUID(), offerId: randomUUID(), quantity: 1, unitPrice: 1999, createdAt: unixSeconds(now), ...overrides, id };
  };
  if (hint === undefined || hint === null) return [sample()];
  if (!Array.isArray(hint) || hint.length > ITEMS_MAX || hint.some((item) => typeof item !== 'object' || item === null || Array.isArray(item))) {
    throw new ValidationFailed(`items must be an array of at most ${ITEMS_MAX} objects`);
  }
  return (hint as Record<string, unknown>[]).map((item) => sample(item));
}

/** The `data` of a synthetic event of this (known) type; 400 when the items hint is malformed. */
export async function testEventPayload(prisma: PrismaClient, scope: Scope, known: EventDefinitions, type: string, hints: TestEventHints): Promise<object> {
  const now = new Date();
  // Validated whether or not this type uses items, so a malformed hint is always reported.
  const items = itemsFrom(hints.items, now);
  const sample = known[type];
  if (!sample) throw new ValidationFailed(`eventType: unknown event type "${type}"`);
  return sample({ now, items: () => items, user: () => sampleUser(prisma, scope, hints.userId, now) });
}
