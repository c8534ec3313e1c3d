// The payment-method session routes: minting under /v0 (secret key), and the hosted page's
// completion as a buyer route (no keys: the session token is the buyer's only credential). Each
// is served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';
import { PAGE_PATH } from './page-path.js';

export const routes: readonly RestRoute[] = [
  {
    method: 'POST',
    path: '/subscriptions/:subscriptionIdOrNumber/paymentMethodSession',
    field: 'Mutation.createPaymentMethodSession',
    summary: "Mint a short-lived session for updating a subscription's payment method (call from the back end; give the browser only the sessionToken)",
    errors: [403, 429],
  },
  {
    method: 'POST',
    path: `${PAGE_PATH}/:subscriptionId/:sessionToken/complete`,
    audience: 'buyer',
    field: 'Mutation.completePaymentMethodSession',
    summary: "Save a new card for the session's subscription (the hosted page's buyer route, no keys)",
    errors: [402, 503],
  },
];
