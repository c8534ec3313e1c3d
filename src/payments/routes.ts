// The payments routes under /v0, each served by a GraphQL field of ./types.ts.
import type { RestRoute } from '../rest/route.js';
import { SANDBOX_AUTHENTICATE_PATH, SANDBOX_TOKENIZE_PATH } from './card-source.js';

export const routes: readonly RestRoute[] = [
  { method: 'GET', path: '/payments/list', field: 'Query.payments', summary: 'List payments' },
  { method: 'GET', path: '/payments/:paymentId', field: 'Query.payment', summary: 'Get a payment with its buyer, order, subscription, charges and invoice' },
  { method: 'POST', path: SANDBOX_TOKENIZE_PATH, audience: 'buyer', field: 'Mutation.tokenizeSandboxCard', summary: "The sandbox's card tokenizer for buyers' browsers (buyer route, no keys): a payment method to pay with in place of card" },
  { method: 'POST', path: SANDBOX_AUTHENTICATE_PATH, audience: 'buyer', field: 'Mutation.authenticateSandboxCharge', summary: "The sandbox's 3-D Secure step for buyers' browsers (buyer route, no keys): completes or fails a pending card charge with its client secret" },
  { method: 'PATCH', path: '/payments/:paymentId/cancel', field: 'Mutation.cancelPayment', summary: 'Ask to cancel a pending card payment' },
  { method: 'POST', path: '/test-helpers/payments/:paymentId/settle', field: 'Mutation.settleTestPayment', summary: 'Test mode: the sandbox settles the payment\'s pending charge (3-D Secure completed, PayPal approved)' },
  { method: 'POST', path: '/test-helpers/payments/:paymentId/fail', field: 'Mutation.failTestPayment', summary: 'Test mode: the sandbox fails the payment\'s pending charge' },
  { method: 'POST', path: '/test-helpers/payments/:paymentId/dispute', field: 'Mutation.disputeTestPayment', summary: 'Test mode: the cardholder disputes the paid payment\'s charge' },
  { method: 'POST', path: '/test-helpers/payments/:paymentId/lose-dispute', field: 'Mutation.loseDisputeTestPayment', summary: 'Test mode: the open dispute of the paid payment\'s charge is lost' },
  { method: 'POST', path: '/test-helpers/payments/:paymentId/fail-dispute-check', field: 'Mutation.failDisputeCheckTestPayment', summary: 'Test mode: the live dispute check of the paid payment\'s charge fails from now on (the refund answers 503)' },
];
