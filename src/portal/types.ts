// The customer portal's GraphQL face: Query.portalUrl (GET /v0/portal/url) and
// Mutation.createPortalSession (POST /v0/portal/sessions).
import { builder } from '../graphql/builder.js';
import { DEFAULT_SESSION_TYPE, PORTAL_TYPES, createPortalSession, portalUrl } from './service.js';
import { SESSION_SIGN_IN_SECONDS } from './sessions.js';

const PortalUrl = builder.simpleObject('PortalUrl', {
  fields: (t) => ({ url: t.string({ description: 'Where the buyer lands; the custom subscription-management URL for subscriptions-* types when the workspace has one' }) }),
});

const PortalSession = builder.simpleObject('PortalSession', {
  fields: (t) => ({
    url: t.string({
      description:
        "Send the buyer's browser here: it signs that buyer in to the portal and lands on the type's page. Once, within expiresAt; a credential, so give it to that buyer only. " +
        'The custom subscription-management URL instead for subscriptions-* types when the workspace has one',
    }),
    expiresAt: t.field({ type: 'Timestamp', nullable: true, description: `Unix seconds, ${SESSION_SIGN_IN_SECONDS / 60} minutes after minting; null for the custom subscription-management URL, which signs nobody in` }),
  }),
});

const linkArgs = {
  orderNumber: 'Order number or order id in the workspace (404 when unknown); required by the types that link to one order or subscription',
  cartOfferId: 'Passed into the link as is, not checked',
  offerId: 'Passed into the link as is, not checked',
};

builder.queryFields((t) => ({
  portalUrl: t.field({
    type: PortalUrl,
    description:
      'The deep link into the buyer portal for a link type. Only computes where the buyer lands: it neither authenticates the buyer nor mints a token (a buyer without a session signs in first, then lands there; POST /v0/portal/sessions signs one in). ' +
      '401 for a test-mode key and while the portal is disabled, except that subscriptions-* types return the custom subscription-management URL when one is set, before any other rule',
    args: {
      // Required, but checked by the service after the two 401 rules (the contract's order), so not required here.
      type: t.arg.string({ description: `Required: one of ${Object.keys(PORTAL_TYPES).join(', ')}` }),
      orderNumber: t.arg.string({ description: linkArgs.orderNumber }),
      cartOfferId: t.arg.string({ description: linkArgs.cartOfferId }),
      offerId: t.arg.string({ description: linkArgs.offerId }),
    },
    resolve: async (_root, args, ctx) => portalUrl(ctx.prisma, await ctx.principal('read'), args, ctx.origin),
  }),
}));

builder.mutationFields((t) => ({
  createPortalSession: t.field({
    type: PortalSession,
    description:
      "A single-use sign-in URL into the buyer portal for one buyer (as Stripe's billing-portal sessions; beyond the contract): it signs the buyer in and lands on the page GET /v0/portal/url names for the same type and parameters. " +
      'Call it from the back end as the buyer asks for the portal, and redirect them. The same rules as that route: the custom subscription-management URL for subscriptions-* types first, then 401 for a test-mode key and while the portal is disabled. ' +
      'The buyer: userId, else the buyer of orderNumber (400 when the order has none; both given, the order must be that user\'s); 404 for an unknown or archived user',
    args: {
      userId: t.arg({ type: 'UUID', description: 'The buyer to sign in (a user of the workspace); or give orderNumber' }),
      type: t.arg.string({ description: `One of ${Object.keys(PORTAL_TYPES).join(', ')}; ${DEFAULT_SESSION_TYPE} when absent` }),
      orderNumber: t.arg.string({ description: `${linkArgs.orderNumber}; names the buyer when userId is absent` }),
      cartOfferId: t.arg.string({ description: linkArgs.cartOfferId }),
      offerId: t.arg.string({ description: linkArgs.offerId }),
    },
    resolve: async (_root, args, ctx) => createPortalSession(ctx.prisma, await ctx.principal('write'), args, ctx.origin, new Date()),
  }),
}));
