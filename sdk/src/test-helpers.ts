// Test mode's helpers (test keys only): a subscription's test clock and the sandbox processor's
// outcomes for a payment.
import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { unwrap } from './unwrap.js';

export function testHelpers(client: Client<paths>) {
  const payment = (action: 'settle' | 'fail' | 'dispute' | 'lose-dispute' | 'fail-dispute-check') => async (paymentId: string) =>
    (await unwrap(client.POST(`/v0/test-helpers/payments/{paymentId}/${action}`, { params: { path: { paymentId } } }))).payment;
  return {
    /**
     * Advances a test-mode subscription's clock to `to` (Unix seconds, or a Date): every renewal,
     * retry and scheduled cancel due by then runs, in order. Resolves with the subscription as it is then.
     */
    async advanceClock(subscriptionIdOrNumber: string, to: number | Date) {
      const seconds = typeof to === 'number' ? to : Math.floor(to.getTime() / 1000);
      return (await unwrap(client.POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { params: { path: { subscriptionIdOrNumber } }, body: { to: seconds } }))).subscription;
    },
    /** Replaces a test-mode subscription's saved card by a test card number (e.g. one that declines). */
    async replacePaymentMethod(subscriptionIdOrNumber: string, testCard: string) {
      return (await unwrap(client.POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/payment-method', { params: { path: { subscriptionIdOrNumber } }, body: { testCard } }))).subscription;
    },
    /** The sandbox settles the payment's pending charge (3-D Secure completed, a delayed method arrived). */
    settlePayment: payment('settle'),
    /** The sandbox fails the payment's pending charge. */
    failPayment: payment('fail'),
    /** The cardholder disputes the paid payment's charge. */
    disputePayment: payment('dispute'),
    /** The open dispute of the paid payment's charge is lost. */
    loseDispute: payment('lose-dispute'),
    /** The live dispute check of the paid payment's charge fails. */
    failDisputeCheck: payment('fail-dispute-check'),
  };
}
