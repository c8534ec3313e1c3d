// Who is signed in to a workspace's portal. A session is a random token in an HTTP-only cookie
// (stored as its SHA-256), bound to one buyer (a user: one workspace, one mode), 12 hours, ended
// by sign-out. A buyer signs in with a one-time link emailed to them (15 minutes, single use) or
// with the signed grant of a portal link (./tokens.ts).
import type { PrismaClient } from '../generated/prisma/client.js';
import { normalizeEmail } from './domain-calls.js';
import { csrfToken, hashToken, isToken, newToken } from './tokens.js';

export const SESSION_SECONDS = 12 * 60 * 60;
export const SIGN_IN_LINK_SECONDS = 15 * 60;

/** What the portal's pages need of its workspace. */
export interface PortalWorkspace {
  id: string;
  name: string;
  testMode: boolean;
  portalEnabled: boolean;
  customSubscriptionManagementUrl: string | null;
  brandColor: string | null;
  accentColor: string | null;
  portalPauseEnabled: boolean;
  portalSwitchOfferIds: string | null;
}

/** A signed-in buyer: the session, the user and the scope their records are read in. */
export interface Buyer {
  sessionId: string;
  userId: string;
  email: string;
  workspaceId: string;
  livemode: boolean;
  /** The CSRF token of this session's forms. */
  csrf: string;
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/** A user who may sign in: of the workspace, not archived, and in test mode only while the workspace has it. */
async function signableUser(prisma: PrismaClient, workspace: PortalWorkspace, userId: string) {
  const user = await prisma.user.findFirst({ where: { id: userId, workspaceId: workspace.id, archivedAt: null }, select: { id: true, email: true, livemode: true } });
  return user && (user.livemode || workspace.testMode) ? user : null;
}

/** A new session for the user (when they may sign in): its cookie token. */
export async function startSession(prisma: PrismaClient, workspace: PortalWorkspace, userId: string, now: Date): Promise<string | null> {
  const user = await signableUser(prisma, workspace, userId);
  if (!user) return null;
  const token = newToken('pps');
  // The user's ended and expired sessions go as a new one starts: the table holds live sessions, not history.
  await prisma.portalSession.deleteMany({ where: { userId: user.id, OR: [{ expiresAt: { lte: now } }, { endedAt: { not: null } }] } });
  await prisma.portalSession.create({
    data: { workspaceId: workspace.id, livemode: user.livemode, userId: user.id, tokenHash: hashToken(token), expiresAt: later(now, SESSION_SECONDS) },
  });
  return token;
}

/** The buyer a session cookie names in this workspace, or null (unknown, ended, expired, another workspace's, a user no longer signable). */
export async function buyerOf(prisma: PrismaClient, workspace: PortalWorkspace, token: string | undefined, now: Date): Promise<Buyer | null> {
  if (!token || !isToken('pps', token)) return null;
  const session = await prisma.portalSession.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!session || session.workspaceId !== workspace.id || session.endedAt || session.expiresAt <= now) return null;
  const user = await signableUser(prisma, workspace, session.userId);
  if (!user) return null;
  return { sessionId: session.id, userId: user.id, email: user.email, workspaceId: workspace.id, livemode: user.livemode, csrf: csrfToken(`session:${session.id}`) };
}

/** Sign-out: the session's token opens nothing from now on. */
export async function endSession(prisma: PrismaClient, sessionId: string, now: Date): Promise<void> {
  await prisma.portalSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { endedAt: now } });
}

/**
 * One-time sign-in links for whoever bought with this email in the workspace: its live buyer, and
 * its test-mode buyer while the workspace has test mode. Each link signs in one of them. None when
 * the address bought nothing (the caller answers the same either way).
 */
export async function createSignInLinks(prisma: PrismaClient, workspace: PortalWorkspace, email: string, next: string | null, now: Date) {
  const users = await prisma.user.findMany({
    where: { workspaceId: workspace.id, emailNormalized: normalizeEmail(email), archivedAt: null, ...(workspace.testMode ? {} : { livemode: true }) },
    orderBy: { livemode: 'desc' },
    select: { id: true, email: true, livemode: true },
  });
  const links: { token: string; livemode: boolean; email: string }[] = [];
  for (const user of users) {
    const token = newToken('psl');
    await prisma.portalSignInLink.deleteMany({ where: { userId: user.id, expiresAt: { lte: now } } });
    await prisma.portalSignInLink.create({
      data: { workspaceId: workspace.id, livemode: user.livemode, userId: user.id, tokenHash: hashToken(token), next, expiresAt: later(now, SIGN_IN_LINK_SECONDS) },
    });
    links.push({ token, livemode: user.livemode, email: user.email });
  }
  return links;
}

export type SignInLinkLookup = { state: 'open'; id: string; userId: string; livemode: boolean; next: string | null } | { state: 'unknown' | 'expired' | 'used' };

/** An emailed link's state in this workspace (another workspace's token is unknown, as a made-up one). */
export async function lookUpSignInLink(prisma: PrismaClient, workspace: PortalWorkspace, token: string, now: Date): Promise<SignInLinkLookup> {
  if (!isToken('psl', token)) return { state: 'unknown' };
  const link = await prisma.portalSignInLink.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!link || link.workspaceId !== workspace.id) return { state: 'unknown' };
  if (link.usedAt) return { state: 'used' };
  if (link.expiresAt <= now) return { state: 'expired' };
  return { state: 'open', id: link.id, userId: link.userId, livemode: link.livemode, next: link.next };
}

/** Uses the link once: true for the one request that claimed it (a concurrent second use gets false). */
export async function claimSignInLink(prisma: PrismaClient, linkId: string, now: Date): Promise<boolean> {
  const { count } = await prisma.portalSignInLink.updateMany({ where: { id: linkId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return count === 1;
}
