// GET and POST /portal/{workspaceId}/…: the buyer portal. The workspace first: unknown or offline
// is 404; its subscription pages send buyers to its custom subscription-management URL when it has
// one (before anything else, as GET /v0/portal/url does); the portal turned off answers a page
// saying so. Then sign-in (the emailed link's form, a portal session's URL) and sign-out, and the
// signed-in buyer's pages (./buyer-routes.ts); without a session those send the buyer to sign in
// first and then on to the page asked for.
import type { EndpointRequest } from '../http/endpoint.js';
import { ApiError, asApiError } from '../errors.js';
import { isUuid } from '../core/uuid.js';
import { logger } from '../logger.js';
import { emailSignInLinks } from './actions.js';
import { actionAddressBudget, actionBuyerBudget, signInAddressBudget, signInEmailBudget } from './budgets.js';
import { routeBuyer } from './buyer-routes.js';
import { normalizeEmail } from './domain-calls.js';
import { portalPath } from './pages/layout.js';
import { csrfRefusedPage, disabledPage, messagePage, methodNotAllowedPage, notFoundPage, rateLimitedPage, refusedPage, unknownPortalPage } from './pages/messages.js';
import { checkEmailPage, confirmSignInPage, signInLinkRefusedPage, signInPage } from './pages/sign-in.js';
import { claimSignInLink, endSession, lookUpSignInLink, startSession, type PortalWorkspace } from './sessions.js';
import { safeNext, Visit } from './visit.js';

const log = logger.child({ component: 'portal' });

async function loadWorkspace(endpoint: EndpointRequest, id: string): Promise<PortalWorkspace | null> {
  if (!isUuid(id)) return null;
  const workspace = await endpoint.prisma.workspace.findUnique({
    where: { id: id.toLowerCase() },
    select: {
      id: true, name: true, offline: true, testMode: true, portalEnabled: true, customSubscriptionManagementUrl: true, brandColor: true, accentColor: true,
      portalPauseEnabled: true, portalSwitchOfferIds: true,
    },
  });
  if (!workspace || workspace.offline) return null;
  const { offline: _offline, ...portal } = workspace;
  return portal;
}

const segmentsOf = (pathname: string) =>
  pathname
    .split('/')
    .slice(2)
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });

export async function servePortal(endpoint: EndpointRequest): Promise<Response> {
  const [workspaceId = '', ...rest] = segmentsOf(endpoint.url.pathname);
  const workspace = await loadWorkspace(endpoint, workspaceId);
  if (!workspace) return pageOnly(unknownPortalPage());
  if (rest[0] === 'subscriptions' && workspace.customSubscriptionManagementUrl) {
    return new Response(null, { status: 303, headers: { location: workspace.customSubscriptionManagementUrl, 'cache-control': 'no-store' } });
  }
  if (!workspace.portalEnabled) return pageOnly(disabledPage(workspace));
  const visit = new Visit(endpoint, workspace);
  try {
    return await route(visit, rest);
  } catch (error) {
    return failure(visit, error);
  }
}

const pageOnly = ({ status, html, headers }: { status: number; html: string; headers: Record<string, string> }) => new Response(html, { status, headers });

/** A refusal as a page: the services' messages are written for the caller. */
async function failure(visit: Visit, error: unknown): Promise<Response> {
  const api = asApiError(error);
  const buyer = await visit.buyer().catch(() => null);
  if (!(api instanceof ApiError)) {
    log.error({ err: error, requestId: visit.endpoint.requestId }, 'portal request failed');
    return visit.page(messagePage(500, visit.workspace, buyer, { id: 'failed', title: 'Something went wrong', text: 'Nothing was changed. Please try again in a moment.' }));
  }
  if (api.status === 404) return visit.page(notFoundPage(visit.workspace, buyer));
  if (api.status === 429) return visit.page(rateLimitedPage(visit.workspace, buyer, api.retryAfterSeconds ?? 1));
  const back = visit.endpoint.url.pathname.replace(/\/(cancel|undo-cancel|pause|resume|switch|payment-method|items\/[^/]+\/download)$/, '');
  return visit.page(refusedPage(api.status, visit.workspace, buyer, api.message, { href: back, text: 'Back' }));
}

async function route(visit: Visit, rest: string[]): Promise<Response> {
  const { workspace } = visit;
  const [section, ref, ...more] = rest;
  const method = visit.method;
  if (section === undefined || section === '') return visit.redirect(portalPath(workspace.id, 'orders'));
  if (section === 'sign-in' && more.length === 0) {
    if (ref === undefined) return method === 'POST' ? requestSignIn(visit) : signInForm(visit);
    return method === 'POST' ? confirmSignIn(visit, ref) : confirmForm(visit, ref);
  }
  if (section === 'sign-out' && ref === undefined) return method === 'POST' ? signOut(visit) : visit.page(methodNotAllowedPage(workspace, await visit.buyer()));
  if (section === 'session' && ref !== undefined && more.length === 0) return method === 'GET' ? signInWithSession(visit, ref) : visit.page(methodNotAllowedPage(workspace, await visit.buyer()));
  const buyer = await visit.buyer();
  if (!buyer) return visit.redirect(signInPath(workspace.id, method === 'GET' ? `${visit.url.pathname}${visit.url.search}` : portalPath(workspace.id, section)));
  return (await routeBuyer(visit, buyer, rest)) ?? visit.page(notFoundPage(workspace, buyer));
}

const signInPath = (workspaceId: string, next: string | null, notice?: string) => {
  const query = new URLSearchParams();
  const safe = safeNext(workspaceId, next);
  if (safe) query.set('next', safe);
  if (notice) query.set('notice', notice);
  const search = query.toString();
  return `${portalPath(workspaceId, 'sign-in')}${search ? `?${search}` : ''}`;
};

const NOTICES: Record<string, string> = {
  'link-expired': 'That link has expired. Enter your email to get a new one.',
  'link-invalid': 'That link is not valid. Enter your email to get a new one.',
  'link-used': 'That link was used already. Enter your email to get a new one.',
  'signed-out': 'You are signed out.',
};

async function signInForm(visit: Visit): Promise<Response> {
  const next = safeNext(visit.workspace.id, visit.url.searchParams.get('next'));
  // Signed in already: straight on.
  if (await visit.buyer()) return visit.redirect(next ?? portalPath(visit.workspace.id, 'orders'));
  const notice = NOTICES[visit.url.searchParams.get('notice') ?? ''] ?? null;
  return visit.page(signInPage(visit.workspace, { csrf: visit.anonymousCsrf(), next, notice }));
}

/**
 * The email form: rate limited per address and per email, answered the same whether or not the
 * address bought anything, and before the email is sent (its time would tell the difference).
 */
async function requestSignIn(visit: Visit): Promise<Response> {
  const { workspace, endpoint } = visit;
  const fields = await visit.form([{ rule: signInAddressBudget, key: endpoint.client }]);
  if (!fields) return visit.page(csrfRefusedPage(workspace, null));
  const email = (fields.get('email') ?? '').trim();
  const next = safeNext(workspace.id, fields.get('next'));
  if (!/^[^\s@]{1,64}@[^\s@]{1,190}$/.test(email)) {
    return visit.page(signInPage(workspace, { csrf: visit.anonymousCsrf(), next, notice: 'Enter the email address you bought with.' }, 400));
  }
  await endpoint.rateLimits.spend(signInEmailBudget, `${workspace.id}:${normalizeEmail(email)}`);
  emailSignInLinks(endpoint.prisma, workspace, email, next, visit.base, visit.now).catch((error: unknown) => {
    log.error({ err: error, workspaceId: workspace.id, requestId: endpoint.requestId }, 'portal sign-in email failed');
  });
  return visit.page(checkEmailPage(workspace, email));
}

async function confirmForm(visit: Visit, token: string): Promise<Response> {
  const link = await lookUpSignInLink(visit.endpoint.prisma, visit.workspace, 'email', token, visit.now);
  if (link.state !== 'open') return visit.page(signInLinkRefusedPage(visit.workspace, link.state));
  return visit.page(confirmSignInPage(visit.workspace, token, visit.anonymousCsrf(), link.livemode));
}

/** The emailed link's button: the link is used once, a session starts, the buyer goes where they were going. */
async function confirmSignIn(visit: Visit, token: string): Promise<Response> {
  const { workspace, endpoint } = visit;
  const fields = await visit.form([{ rule: actionAddressBudget, key: endpoint.client }]);
  if (!fields) return visit.page(csrfRefusedPage(workspace, null));
  const link = await lookUpSignInLink(endpoint.prisma, workspace, 'email', token, visit.now);
  if (link.state !== 'open') return visit.page(signInLinkRefusedPage(workspace, link.state));
  await endpoint.rateLimits.spend(actionBuyerBudget, link.userId);
  if (!(await claimSignInLink(endpoint.prisma, link.id, visit.now))) return visit.page(signInLinkRefusedPage(workspace, 'used'));
  const session = await startSession(endpoint.prisma, workspace, link.userId, visit.now);
  if (!session) return visit.page(signInLinkRefusedPage(workspace, 'unknown'));
  visit.signIn(session);
  return visit.redirect(safeNext(workspace.id, link.next) ?? portalPath(workspace.id, 'orders'));
}

/**
 * A portal session's URL (POST /v0/portal/sessions): opening it uses it once, signs its buyer in
 * (in place of whoever was signed in) and lands on its page. Used, expired or unknown, the
 * sign-in page says so and keeps the page it led to.
 */
async function signInWithSession(visit: Visit, token: string): Promise<Response> {
  const { workspace, endpoint } = visit;
  const link = await lookUpSignInLink(endpoint.prisma, workspace, 'session', token, visit.now);
  if (link.state === 'unknown') return visit.redirect(signInPath(workspace.id, null, 'link-invalid'));
  if (link.state !== 'open') return visit.redirect(signInPath(workspace.id, link.next, `link-${link.state}`));
  if (!(await claimSignInLink(endpoint.prisma, link.id, visit.now))) return visit.redirect(signInPath(workspace.id, link.next, 'link-used'));
  const session = await startSession(endpoint.prisma, workspace, link.userId, visit.now);
  if (!session) return visit.redirect(signInPath(workspace.id, link.next, 'link-invalid'));
  const current = await visit.buyer();
  if (current) await endSession(endpoint.prisma, current.sessionId, visit.now);
  visit.signIn(session);
  return visit.redirect(safeNext(workspace.id, link.next) ?? portalPath(workspace.id, 'orders'));
}

async function signOut(visit: Visit): Promise<Response> {
  const { workspace, endpoint } = visit;
  const fields = await visit.form([{ rule: actionAddressBudget, key: endpoint.client }]);
  const buyer = await visit.buyer();
  if (!fields) return visit.page(csrfRefusedPage(workspace, buyer));
  if (buyer) {
    await endpoint.rateLimits.spend(actionBuyerBudget, buyer.userId);
    await endSession(endpoint.prisma, buyer.sessionId, visit.now);
  }
  visit.signOut();
  return visit.redirect(signInPath(workspace.id, null, 'signed-out'));
}
