import { newWorkspace, setWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { advance, paymentsOf, subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

// A subscription's renewals keep the checkout's tax rules through HTTP: a business buyer's VAT
// number reverse charges every period, not only the first; and tax is collected only where the
// workspace is registered at the time of the renewal (a registration made since applies from the
// next period on).

const SLOW = 180_000;

const upcoming = async (ws: Workspace, id: string) =>
  (await ok(restClient(ws, { ...TEST, write: false }).GET('/v0/subscriptions/{subscriptionIdOrNumber}/upcoming-payment', { params: { path: { subscriptionIdOrNumber: id } } }))).upcomingPayment!;

/** Renews once: the renewal payment, which must be what the upcoming payment said. */
async function renew(ws: Workspace, number: string, subscriptionId: string) {
  const next = await upcoming(ws, number);
  await ok(advance(ws, number, next.date + 60));
  const renewal = (await paymentsOf(subscriptionId)).at(-1)!;
  expect(renewal).toMatchObject({ status: 'PAID', amount: next.amount, tax: next.tax });
  return renewal;
}

test('a reverse-charged subscription is reverse charged at every renewal', async () => {
  const ws = await newWorkspace('Subscription reverse charge', ['testMode=true']);
  const { order, subscription } = await subscribe(ws, await subscriptionElement(ws, 1000), { billingDetails: { countryCode: 'DE', postalCode: '10115', taxId: 'DE143454214' } });
  expect(order).toMatchObject({ value: 1000, taxReason: 'reverse_charge' });
  expect(await renew(ws, order.number, subscription.id)).toMatchObject({ amount: 1000, tax: 0 });
}, SLOW);

test('renewals collect tax only where the workspace is registered at the time', async () => {
  const ws = await newWorkspace('Subscription registrations', ['testMode=true', 'taxRegistrations=GB']);
  const { order, subscription } = await subscribe(ws, await subscriptionElement(ws, 1000), { billingDetails: { countryCode: 'DE', postalCode: '10115' } });
  expect(order).toMatchObject({ value: 1000, tax: 0, taxReason: 'not_registered' });
  expect(await renew(ws, order.number, subscription.id)).toMatchObject({ amount: 1000, tax: 0 });
  await setWorkspace(ws.workspaceId, 'taxRegistrations=GB,EU');
  expect(await renew(ws, order.number, subscription.id)).toMatchObject({ amount: 1190, tax: 190 });
}, SLOW);
