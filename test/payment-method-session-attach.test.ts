import { subscriptionWorkflowId } from '../src/subscriptions/service.js';
import { hashToken } from '../src/payment-method-sessions/service.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { card } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { suiteTemporal } from './support/refunds.js';
import { salesDb } from './support/sales.js';
import { subscribe, subscriptionElement, TEST, VISA } from './support/subscriptions.js';

// A payment-method session's link is spent only with the card attached: when the subscriptions
// hook cannot attach it (here its workflow is gone, terminated through Temporal as an operator
// would), the completion fails and the link still works, instead of telling the buyer it was used.
// Through HTTP on the suite's server.

const SLOW = 120_000;

let ws: Workspace;
let temporal: TemporalConnection;

beforeAll(async () => {
  ws = await newWorkspace('Payment-method session attach', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
  temporal = await suiteTemporal();
}, SLOW);

afterAll(async () => {
  await temporal?.stop();
});

test('the card could not be attached: the completion fails and the link is not spent', async () => {
  const { subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
  const { sessionToken } = await ok(restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: subscription.number } }, body: {} }));
  await temporal.client.workflow.getHandle(subscriptionWorkflowId({ workspaceId: ws.workspaceId, number: subscription.number })).terminate('the test takes the workflow away');
  const complete = () => buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId: subscription.id, sessionToken } }, body: { card: card(VISA) } });

  const first = await failure(complete());
  expect(first.status).not.toBe(200);
  expect((await salesDb().paymentMethodSession.findFirstOrThrow({ where: { tokenHash: hashToken(sessionToken) } })).usedAt).toBeNull();
  expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).paymentMethodRef).toBe(subscription.paymentMethodRef);
  // The buyer tries again with the same link: refused for the same reason, not as a used link.
  const again = await failure(complete());
  expect(again.status).toBe(first.status);
  expect(again.body.error.message).not.toMatch(/used already/);
}, SLOW);
