// The customer portal link's GraphQL face: Query.portalUrl (GET /v0/portal/url).
import { builder } from '../graphql/builder.js';
import { PORTAL_TYPES, portalUrl } from './service.js';

const PortalUrl = builder.simpleObject('PortalUrl', {
  fields: (t) => ({ url: t.string({ description: 'Where the buyer lands; the custom subscription-management URL for subscriptions-* types when the workspace has one' }) }),
});

builder.queryFields((t) => ({
  portalUrl: t.field({
    type: PortalUrl,
    description:
      'The deep link into the buyer portal for a link type. Only computes where the buyer lands: no authentication of the buyer, no token. ' +
      '401 for a test-mode key and while the portal is disabled, except that subscriptions-* types return the custom subscription-management URL when one is set, before any other rule',
    args: {
      // Required, but checked by the service after the two 401 rules (the contract's order), so not required here.
      type: t.arg.string({ description: `Required: one of ${Object.keys(PORTAL_TYPES).join(', ')}` }),
      orderNumber: t.arg.string({ description: 'Order number or order id in the workspace (404 when unknown); required by the types that link to one order or subscription' }),
      cartOfferId: t.arg.string({ description: 'Passed into the link as is, not checked' }),
      offerId: t.arg.string({ description: 'Passed into the link as is, not checked' }),
    },
    resolve: async (_root, args, ctx) => portalUrl(ctx.prisma, await ctx.principal('read'), args, ctx.origin),
  }),
}));
