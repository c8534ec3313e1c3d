// Who is signed in to a workspace's portal. A session is a random token in an HTTP-only cookie
// (stored as its SHA-256), bound to one buyer (a user: one workspace, one mode), 12 hours, ended
// by sign-out. A buyer signs in with a one-time link: emailed to them (`psl_`, 15 minutes, a
// button on its page signs in) or minted by POST /v0/portal/sessions (`psu_`, 5 minutes, opening
// it signs in). Both are single use and stored only as their SHA-256.
import type { PrismaClient } from '../generated/prisma/client.js';
import { normalizeEmail } from './domain-calls.js';
import { csrfToken, hashToken, isToken, newToken } from './tokens.js';

export const SESSION_SECONDS = 12 * 60 * 60;
export const SIGN_IN_LINK_SECONDS = 15 * 60;
/** How long a portal session's sign-in URL works: Stripe's billing-portal sessions are as short, made as the buyer asks. */
export const SESSION_SIGN_IN_SECONDS = 5 * 60;

/** The token prefix of each kind of sign-in link: the emailed ones, and the portal sessions' URLs. */
const SIGN_IN_LINK_KINDS = { email: 'psl', session: 'psu' } as const;
type SignInLinkKind = keyof typeof SIGN_IN_LINK_KINDS;

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

/** A one-time sign-in link for the user (their expired ones go: the table holds what can still be used): its token. */
async function createSignInLink(prisma: PrismaClient, user: { id: string; livemode: boolean; workspaceId: string }, kind: SignInLinkKind, next: string | null, expiresAt: Date, now: Date) {
  const token = newToken(SIGN_IN_LINK_KINDS[kind]);
  await prisma.portalSignInLink.deleteMany({ where: { userId: user.id, expiresAt: { lte: now } } });
  await prisma.portalSignInLink.create({ data: { workspaceId: user.workspaceId, livemode: user.livemode, userId: user.id, tokenHash: hashToken(token), next, expiresAt } });
  return token;
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
    const token = await createSignInLink(prisma, { ...user, workspaceId: workspace.id }, 'email', next, later(now, SIGN_IN_LINK_SECONDS), now);
    links.push({ token, livemode: user.livemode, email: user.email });
  }
  return links;
}

/** A portal session's sign-in link for a user of the scope, landing on `next`: its token and expiry. */
export async function createSessionSignInLink(prisma: PrismaClient, scope: { workspaceId: string; livemode: boolean }, userId: string, next: string, now: Date) {
  // Whole seconds, as the API answers it.
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + SESSION_SIGN_IN_SECONDS) * 1000);
  return { token: await createSignInLink(prisma, { id: userId, ...scope }, 'session', next, expiresAt, now), expiresAt };
}

export type SignInLinkLookup =
  | { state: 'open'; id: string; userId: string; livemode: boolean; next: string | null }
  | { state: 'expired' | 'used'; next: string | null }
  | { state: 'unknown' };

/** A sign-in link's state in this workspace (another workspace's token, or another kind's, is unknown, as a made-up one). */
export async function lookUpSignInLink(prisma: PrismaClient, workspace: PortalWorkspace, kind: SignInLinkKind, token: string, now: Date): Promise<SignInLinkLookup> {
  if (!isToken(SIGN_IN_LINK_KINDS[kind], token)) return { state: 'unknown' };
  const link = await prisma.portalSignInLink.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!link || link.workspaceId !== workspace.id) return { state: 'unknown' };
  if (link.usedAt) return { state: 'used', next: link.next };
  if (link.expiresAt <= now) return { state: 'expired', next: link.next };
  return { state: 'open', id: link.id, userId: link.userId, livemode: link.livemode, next: link.next };
}

/** Uses the link once: true for the one request that claimed it (a concurrent second use gets false). */
export async function claimSignInLink(prisma: PrismaClient, linkId: string, now: Date): Promise<boolean> {
  const { count } = await prisma.portalSignInLink.updateMany({ where: { id: linkId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return count === 1;
}
