// The customer portal's API: where a buyer lands for a link type, and a sign-in into it.
// GET /v0/portal/url only computes the link, exactly the contract's: it authenticates no buyer
// and stores nothing. POST /v0/portal/sessions (beyond the contract, as Stripe's billing-portal
// sessions) makes a short-lived, single-use URL that signs one buyer in and lands on that link's
// page. Both apply the link's rules, in the contract's order (docs/decisions.md "Customer portal"):
// 1. a subscriptions-* type with the workspace's customSubscriptionManagementUrl set: that URL;
// 2. a test-mode key: 401;  3. the portal disabled: 401;
// 4. an unknown type: 400;  5. an orderNumber not in the workspace: 404 (a subscription link to an
//    order that started none: 400); offerId and cartOfferId pass through unchecked.
import { NotFound, Unauthenticated, ValidationFailed } from '../core/errors.js';
import type { Principal } from '../core/scope.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { findOrder, findUser } from './domain-calls.js';
import { portalBaseUrl } from './base-url.js';
import { portalPath } from './pages/layout.js';
import { createSessionSignInLink } from './sessions.js';

/** Link type -> its path under the workspace in the portal; `order` types need an orderNumber, `subscription` types one that started a subscription. */
export const PORTAL_TYPES = {
  'subscriptions-list': { path: 'subscriptions', needs: null },
  'subscriptions-manage': { path: 'subscriptions/{number}', needs: 'subscription' },
  'subscriptions-update-payment-method': { path: 'subscriptions/{number}/payment-method', needs: 'subscription' },
  'subscriptions-cancel': { path: 'subscriptions/{number}/cancel', needs: 'subscription' },
  'orders-list': { path: 'orders', needs: null },
  'orders-view': { path: 'orders/{number}', needs: 'order' },
  'orders-downloads': { path: 'orders/{number}/downloads', needs: 'order' },
} as const satisfies Record<string, { path: string; needs: 'order' | 'subscription' | null }>;

type PortalType = keyof typeof PORTAL_TYPES;

/** A portal session's page when the request names no type: the portal's home, the buyer's orders. */
export const DEFAULT_SESSION_TYPE: PortalType = 'orders-list';

export interface PortalLinkRequest {
  /** Required; checked after the 401 rules, like its value. */
  type?: string | null;
  orderNumber?: string | null;
  offerId?: string | null;
  cartOfferId?: string | null;
}

const isPortalType = (type: string): type is PortalType => Object.hasOwn(PORTAL_TYPES, type);

/** Where a link lands: the custom subscription-management URL, or a page of the workspace's portal (path and query) and the order it names. */
type Landing = { custom: string } | { page: string; order: { number: string; userId: string | null } | null };

async function landing(prisma: PrismaClient, principal: Principal, request: PortalLinkRequest): Promise<Landing> {
  const type = request.type?.trim() ?? '';
  const custom = principal.settings.customSubscriptionManagementUrl;
  if (type.startsWith('subscriptions-') && custom) return { custom };
  if (!principal.livemode) throw new Unauthenticated('The customer portal does not take test-mode keys');
  if (!principal.settings.portalEnabled) throw new Unauthenticated('The customer portal is disabled for this workspace');
  if (!isPortalType(type)) throw new ValidationFailed(`type must be one of ${Object.keys(PORTAL_TYPES).join(', ')}`);
  const { path, needs } = PORTAL_TYPES[type];
  const reference = request.orderNumber?.trim() || null;
  let order: { number: string; userId: string | null } | null = null;
  if (reference !== null) {
    // Any value that names no order of the workspace is 404, one that could not be a number too.
    const found = await findOrder(prisma, principal, reference, { select: { number: true, subscriptionId: true, userId: true } }).catch((error: unknown) => {
      throw error instanceof ValidationFailed ? new NotFound('Order') : error;
    });
    if (needs === 'subscription' && !found.subscriptionId) throw new ValidationFailed(`order ${found.number} did not start a subscription`);
    order = { number: found.number, userId: found.userId };
  }
  if (needs !== null && order === null) throw new ValidationFailed(`type ${type} needs an orderNumber`);
  const query = new URLSearchParams();
  if (request.offerId) query.set('offerId', request.offerId);
  if (request.cartOfferId) query.set('cartOfferId', request.cartOfferId);
  const search = query.size ? `?${query}` : '';
  return { page: `${path.replace('{number}', encodeURIComponent(order?.number ?? ''))}${search}`, order };
}

export async function portalUrl(prisma: PrismaClient, principal: Principal, request: PortalLinkRequest, origin: string): Promise<{ url: string }> {
  const link = await landing(prisma, principal, request);
  return { url: 'custom' in link ? link.custom : new URL(`${portalBaseUrl(origin)}/${principal.workspaceId}/${link.page}`).href };
}

export interface PortalSessionRequest extends PortalLinkRequest {
  /** The buyer; else the buyer of orderNumber. */
  userId?: string | null;
}

/** The buyer a session signs in: userId (of the workspace, not archived), else the order's; when both are given they must agree. */
async function sessionBuyer(prisma: PrismaClient, principal: Principal, userId: string | null | undefined, order: { number: string; userId: string | null } | null) {
  if (userId) {
    const user = await findUser(prisma, principal, userId, { select: { id: true } });
    if (order && order.userId !== user.id) throw new ValidationFailed(`order ${order.number} is not this user's`);
    return user.id;
  }
  if (!order) throw new ValidationFailed('userId or orderNumber is required: it names the buyer to sign in');
  if (!order.userId) throw new ValidationFailed(`order ${order.number} has no buyer to sign in`);
  return (await findUser(prisma, principal, order.userId, { select: { id: true } })).id;
}

/**
 * A single-use sign-in URL for one buyer (SESSION_SIGN_IN_SECONDS of ./sessions.ts, stored as its hash like the
 * emailed links) that lands on the link's page; the type defaults to the buyer's orders. Where the
 * link is the custom subscription-management URL, that URL, signing nobody in (expiresAt null).
 */
export async function createPortalSession(prisma: PrismaClient, principal: Principal, request: PortalSessionRequest, origin: string, now: Date) {
  const link = await landing(prisma, principal, { ...request, type: request.type ?? DEFAULT_SESSION_TYPE });
  if ('custom' in link) return { url: link.custom, expiresAt: null };
  const userId = await sessionBuyer(prisma, principal, request.userId, link.order);
  const { token, expiresAt } = await createSessionSignInLink(prisma, principal, userId, portalPath(principal.workspaceId, link.page), now);
  return { url: new URL(`${portalBaseUrl(origin)}/${principal.workspaceId}/session/${token}`).href, expiresAt: Math.floor(expiresAt.getTime() / 1000) };
}
