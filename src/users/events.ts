// The user events: their data is the user as the API returns it. Payment and subscription events
// carry a user too; their samples take it from here (sampleUser).
import { randomUUID } from 'node:crypto';
import type { PrismaClient, User } from '../generated/prisma/client.js';
import type { EventDefinitions } from '../events/event-types.js';
import { inScope, type Scope } from '../core/scope.js';
import { unixSeconds } from '../core/time.js';

/** The user as the API returns it (the User type's fields, never the password): the data of its events. */
export function userResource(u: User) {
  return {
    object: 'user',
    id: u.id,
    username: u.username,
    email: u.email,
    details: u.details,
    internalId: u.internalId,
    billingDetails: u.billingDetails,
    createdAt: unixSeconds(u.createdAt),
  };
}

/** The data of every user event. */
export const userEventData = (user: User) => ({ user: userResource(user) });

/** The scope's own user when userId names one, otherwise a made-up user (with that id when given). */
export async function sampleUser(prisma: PrismaClient, scope: Scope, userId: string | null | undefined, now: Date) {
  const found = userId ? await prisma.user.findFirst({ where: { id: userId, ...inScope(scope) } }) : null;
  return userResource(
    found ?? {
      id: userId ?? randomUUID(), workspaceId: scope.workspaceId, livemode: scope.livemode, email: 'buyer@example.com', emailNormalized: 'buyer@example.com',
      username: 'sample-buyer', internalId: null, details: null, billingDetails: null, passwordHash: null, createdAt: now, updatedAt: now, archivedAt: null,
    },
  );
}

export const events = {
  user_created: async ({ user }) => ({ user: await user() }),
  user_archived: async ({ user }) => ({ user: await user() }),
} satisfies EventDefinitions;
