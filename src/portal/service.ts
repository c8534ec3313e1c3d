// GET /v0/portal/url: where a buyer lands in the self-service portal for a link type. It only
// computes the link; it neither authenticates the buyer nor mints a token. The rules, in the
// contract's order (docs/decisions.md "Customer portal"):
// 1. a subscriptions-* type with the workspace's customSubscriptionManagementUrl set: that URL;
// 2. a test-mode key: 401;  3. the portal disabled: 401;
// 4. an unknown type: 400;  5. an orderNumber not in the workspace: 404 (a subscription link to an
//    order that started none: 400); offerId and cartOfferId pass through unchecked.
import { NotFound, Unauthenticated, ValidationFailed } from '../core/errors.js';
import type { Principal } from '../core/scope.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { findOrder } from '../orders/service.js';
import { config } from '../config.js';

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

export interface PortalLinkRequest {
  /** Required; checked after the 401 rules, like its value. */
  type?: string | null;
  orderNumber?: string | null;
  offerId?: string | null;
  cartOfferId?: string | null;
}

const isPortalType = (type: string): type is PortalType => Object.hasOwn(PORTAL_TYPES, type);

/**
 * Where the portal lives: PORTAL_BASE_URL, else `/portal` of this service's public address
 * (PUBLIC_BASE_URL, else the origin the request came to). Production requires PORTAL_BASE_URL.
 */
const portalBaseUrl = (origin: string) => config.portalBaseUrl ?? `${config.publicBaseUrl ?? origin}/portal`;

export async function portalUrl(prisma: PrismaClient, principal: Principal, request: PortalLinkRequest, origin: string): Promise<{ url: string }> {
  const type = request.type?.trim() ?? '';
  const custom = principal.settings.customSubscriptionManagementUrl;
  if (type.startsWith('subscriptions-') && custom) return { url: custom };
  if (!principal.livemode) throw new Unauthenticated('The customer portal link endpoint does not take test-mode keys');
  if (!principal.settings.portalEnabled) throw new Unauthenticated('The customer portal is disabled for this workspace');
  if (!isPortalType(type)) throw new ValidationFailed(`type must be one of ${Object.keys(PORTAL_TYPES).join(', ')}`);
  const { path, needs } = PORTAL_TYPES[type];
  const reference = request.orderNumber?.trim() || null;
  let number: string | null = null;
  if (reference !== null) {
    // Any value that names no order of the workspace is 404, one that could not be a number too.
    const order = await findOrder(prisma, principal, reference, { select: { number: true, subscriptionId: true } }).catch((error: unknown) => {
      throw error instanceof ValidationFailed ? new NotFound('Order') : error;
    });
    if (needs === 'subscription' && !order.subscriptionId) throw new ValidationFailed(`order ${order.number} did not start a subscription`);
    number = order.number;
  }
  if (needs !== null && number === null) throw new ValidationFailed(`type ${type} needs an orderNumber`);
  const url = new URL(`${portalBaseUrl(origin)}/${principal.workspaceId}/${path.replace('{number}', encodeURIComponent(number ?? ''))}`);
  if (request.offerId) url.searchParams.set('offerId', request.offerId);
  if (request.cartOfferId) url.searchParams.set('cartOfferId', request.cartOfferId);
  return { url: url.href };
}
