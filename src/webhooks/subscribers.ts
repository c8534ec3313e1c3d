import type { Db } from '../db/client.js';
import type { Event } from '../generated/prisma/client.js';

// Who receives an event: the webhooks domain's query, used by the outbox dispatcher (dispatcher.ts)
// and by sendTestEvent.

/** The webhooks an event goes to: active, not archived, same workspace and mode, subscribed to its type. */
export function subscribedWebhooks(prisma: Db, event: Pick<Event, 'workspaceId' | 'livemode' | 'type'>) {
  return prisma.webhook.findMany({
    where: { workspaceId: event.workspaceId, livemode: event.livemode, status: 'active', deletedAt: null, events: { has: event.type } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}
