import type { Db } from '../db/client.js';
import type { Event, Webhook } from '../generated/prisma/client.js';

// Who receives an event: the webhooks domain's query, used by the outbox dispatcher (dispatcher.ts)
// and by sendTestEvent.

type EventScope = Pick<Event, 'workspaceId' | 'livemode' | 'type'>;

/**
 * The webhooks each event goes to (active, not archived, same workspace and mode, subscribed to
 * its type), in the events' order, oldest webhook first: one statement for a whole batch.
 */
export async function webhooksByEvent(prisma: Db, events: readonly EventScope[]): Promise<Webhook[][]> {
  if (events.length === 0) return [];
  const webhooks = await prisma.webhook.findMany({
    where: { workspaceId: { in: [...new Set(events.map((e) => e.workspaceId))] }, status: 'active', deletedAt: null, events: { hasSome: [...new Set(events.map((e) => e.type))] } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return events.map((event) => webhooks.filter((w) => w.workspaceId === event.workspaceId && w.livemode === event.livemode && w.events.includes(event.type)));
}

/** The webhooks one event goes to. */
export const subscribedWebhooks = async (prisma: Db, event: EventScope): Promise<Webhook[]> => (await webhooksByEvent(prisma, [event]))[0]!;
