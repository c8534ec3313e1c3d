import type { Event, Prisma } from '../generated/prisma/client.js';
import type { Scope } from '../core/scope.js';
import { uuidv7 } from '../core/uuid.js';

// The event outbox. A state change and the event reporting it commit together: recordEvent
// writes into the caller's transaction, so a rolled-back change leaves no event and a committed
// one always has its event. Handing events to the delivery workflow happens afterwards and
// sets dispatchedAt.

/** What a webhook receiver gets for one event (the HTTP body of a delivery). */
export interface EventBody {
  id: string;
  /** Always equal to id: receivers deduplicate on it (delivery is at least once). */
  idempotencyKey: string;
  type: string;
  /** Milliseconds, like every webhook timestamp. */
  createdAt: number;
  livemode: boolean;
  data: Prisma.JsonValue;
}

/**
 * Records an event in the caller's transaction; payload is the event's `data`. In SQL of our own,
 * the row as Prisma's create wrote it (its id a UUIDv7, createdAt now, test false): three go with
 * every sale, and Prisma's client costs more CPU than the statement (docs/decisions/general.md).
 */
export async function recordEvent(tx: Prisma.TransactionClient, scope: Scope, type: string, payload: object): Promise<{ id: string }> {
  const now = new Date();
  const id = uuidv7(now.getTime());
  await tx.$executeRaw`
    INSERT INTO "Event" (id, "workspaceId", livemode, type, payload, test, "createdAt")
    VALUES (${id}::uuid, ${scope.workspaceId}::uuid, ${scope.livemode}, ${type}, ${JSON.stringify(payload)}::jsonb, false, ${now})`;
  return { id };
}

export function eventBody(event: Pick<Event, 'id' | 'type' | 'createdAt' | 'livemode' | 'payload'>): EventBody {
  return { id: event.id, idempotencyKey: event.id, type: event.type, createdAt: event.createdAt.getTime(), livemode: event.livemode, data: event.payload };
}
