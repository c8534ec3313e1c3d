// Card data kept off this server (issue 26, part 3): the sandbox's tokenizing buyer route and
// payments with its payment methods through the checkout JSON API and a payment-method session;
// `card` refused with Stripe unless the operator opts in; the Stripe adapter taking Stripe.js's
// payment method ids, against stripe-mock (pm_card_visa), and a server on Stripe refusing raw cards.
import { randomUUID } from 'node:crypto';

import { checkCardSource } from '../src/payments/card-source.js';
import { StripeProcessor, nextActionOf, setupResult } from '../src/payments/processors/stripe.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { card, newCheckout, orderBody, payCheckout } from './support/checkout.js';
import { buyerClient, restClient } from './support/client.js';
import { failure, ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { databaseText } from './support/database.js';
import { startServerProcess, type ServerProcess } from './support/processes.js';
import { STRIPE_MOCK_PROVISION_TIMEOUT_MS, findOrProvisionStripeMock, startStripeMock, type StripeMock } from './support/stripe-mock.js';
import { subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

const SLOW = 120_000;

const tokenize = (number: string) => buyerClient().POST('/sandbox/payment-methods', { body: { card: card(number) } });

let ws: Workspace;
beforeAll(async () => {
  ws = await newWorkspace('Card sources', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
}, SLOW);

describe('the sandbox tokenizer', () => {
  test('POST /sandbox/payment-methods: a one-time payment method with brand and last 4; malformed details are 400; nothing of the number is kept', async () => {
    const token = await ok(tokenize('4242 4242 4242 4242'));
    expect(token).toEqual({ paymentMethod: expect.stringMatching(/^pm_sbx_tok_[0-9a-f]{24}$/), brand: 'visa', last4: '4242' });
    expect(await salesDb().sandboxPaymentMethod.findUniqueOrThrow({ where: { id: token.paymentMethod } })).toMatchObject({ reusable: false, last4: '4242' });
    const malformed = await failure(tokenize('4242424242424241'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^card: /);
    expect(malformed.body.error.message).not.toContain('4242424242424241');
  });

  test('the checkout JSON API pays with it in place of card; a declining card tokenizes and is declined (402); card and paymentMethod together are 400', async () => {
    const { element } = await newCheckout(ws, { price: 1500, key: TEST });
    const paid = await payCheckout(element.id, orderBody({ card: undefined, paymentMethod: (await ok(tokenize('4242424242424242'))).paymentMethod }), randomUUID());
    expect(paid.status).toBe(200);
    expect(paid.body.data.payment).toMatchObject({ status: 'PAID' });
    const declined = await payCheckout(element.id, orderBody({ card: undefined, paymentMethod: (await ok(tokenize('4000000000000002'))).paymentMethod }), randomUUID());
    expect(declined.status).toBe(402);
    const both = await payCheckout(element.id, orderBody({ card: card(), paymentMethod: (await ok(tokenize('4242424242424242'))).paymentMethod }), randomUUID());
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/card or paymentMethod, not both/);
    const madeUp = await payCheckout(element.id, orderBody({ card: undefined, paymentMethod: 'pm_sbx_tok_000000000000000000000000' }), randomUUID());
    expect(madeUp.status).toBeGreaterThanOrEqual(400);
    expect(madeUp.status).toBeLessThan(500);
    // Test card numbers keep working with the sandbox (integrators' tests send them).
    expect((await payCheckout(element.id, orderBody({ card: card() }), randomUUID())).status).toBe(200);
  }, SLOW);

  test('a payment-method session completes with a sandbox payment method', async () => {
    const { subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
    const { sessionToken } = await ok(
      restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: subscription.number } }, body: {} }),
    );
    const { paymentMethod } = await ok(tokenize('5555555555554444'));
    const done = await ok(
      buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId: subscription.id, sessionToken } }, body: { paymentMethod } }),
    );
    expect(done).toEqual({ status: 'active', paymentMethod: { brand: 'mastercard', last4: '4444' }, nextAction: null });
    const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } });
    expect(await salesDb().sandboxPaymentMethod.findUniqueOrThrow({ where: { id: row.paymentMethodRef! } })).toMatchObject({ reusable: true, last4: '4444' });
  }, SLOW);
});

describe("3-D Secure with the sandbox: the answer's nextAction and the sandbox's authentication step", () => {
  const authenticate = (clientSecret: string, completed: boolean) => buyerClient().POST('/sandbox/authentications', { body: { clientSecret, completed } });

  /** The same request with the same key until the payment is no longer PENDING (the payment workflow applies the webhook). */
  async function outcome(elementId: string, body: ReturnType<typeof orderBody>, key: string) {
    for (let round = 0; round < 50; round += 1) {
      const answer = await payCheckout(elementId, body, key);
      if (answer.status !== 200 || answer.body.data.payment.status !== 'PENDING') return answer;
      await new Promise((done) => setTimeout(done, 200));
    }
    throw new Error('The payment stayed PENDING');
  }

  test('a card that needs authentication: PENDING with a client secret (the same on a repeat, never stored); authenticated, the same request answers PAID without it', async () => {
    const { element } = await newCheckout(ws, { price: 1500, key: TEST });
    const body = orderBody({ card: undefined, paymentMethod: (await ok(tokenize('4000002760003184'))).paymentMethod });
    const key = randomUUID();
    const first = await payCheckout(element.id, body, key);
    expect(first.status).toBe(200);
    expect(first.body.data.payment).toMatchObject({ status: 'PENDING' });
    const clientSecret: string = first.body.data.nextAction.clientSecret;
    expect(clientSecret).toMatch(/^ch_\w+_secret_[\w-]{32}$/);
    expect((await payCheckout(element.id, body, key)).body.data.nextAction).toEqual({ clientSecret });
    expect(await databaseText(process.env.DATABASE_URL!)).not.toContain(clientSecret.split('_secret_')[1]);

    const forged = await failure(authenticate(`${clientSecret.split('_secret_')[0]}_secret_${'x'.repeat(32)}`, true));
    expect(forged.status).toBe(400);
    expect(forged.body.error.message).toMatch(/^clientSecret: /);
    expect(await ok(authenticate(clientSecret, true))).toEqual({ status: 'succeeded' });
    const paid = await outcome(element.id, body, key);
    expect(paid.status).toBe(200);
    expect(paid.body.data.payment).toMatchObject({ status: 'PAID' });
    expect(paid.body.data.order).toMatchObject({ id: first.body.data.order.id, status: 'PAID' });
    expect(paid.body.data.nextAction).toBeNull();
    // Once settled, the step cannot be taken again.
    expect((await failure(authenticate(clientSecret, false))).status).toBe(400);
  }, SLOW);

  test('the authentication fails: the same request is 402 with the reason, the order FAILED; cards that need none have no nextAction', async () => {
    const { element } = await newCheckout(ws, { price: 1500, key: TEST });
    const body = orderBody({ card: card('4000002760003184') });
    const key = randomUUID();
    const first = await payCheckout(element.id, body, key);
    expect(await ok(authenticate(first.body.data.nextAction.clientSecret, false))).toEqual({ status: 'failed' });
    const declined = await outcome(element.id, body, key);
    expect(declined.status).toBe(402);
    expect(declined.body.error.message).toMatch(/3-D Secure was not completed/);
    const paid = await payCheckout(element.id, orderBody({ card: card() }), randomUUID());
    expect(paid.body.data.payment).toMatchObject({ status: 'PAID' });
    expect(paid.body.data.nextAction).toBeNull();
    // A PayPal payment is PENDING too, for the wallet, not for a card authentication.
    const paypal = await payCheckout(element.id, orderBody({ card: undefined, method: 'paypal' }), randomUUID());
    expect(paypal.body.data.payment).toMatchObject({ status: 'PENDING' });
    expect(paypal.body.data.nextAction).toBeNull();
  }, SLOW);
});

describe('3-D Secure with the sandbox on a payment-method session', () => {
  const mintFor = async (number: string) =>
    ok(restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: number } }, body: {} }));
  const complete = (subscriptionId: string, sessionToken: string, body: { paymentMethod?: string }) =>
    buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId, sessionToken } }, body });

  test('the completion answers nextAction and saves nothing; after the authentication, completing without a card saves the card and retires the session', async () => {
    const { subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
    const { sessionToken } = await mintFor(subscription.number);
    const waiting = await ok(complete(subscription.id, sessionToken, { paymentMethod: (await ok(tokenize('4000002760003184'))).paymentMethod }));
    expect(waiting).toEqual({ status: 'active', paymentMethod: null, nextAction: { clientSecret: expect.stringMatching(/^pm_sbx_setup_\w+_secret_[\w-]{32}$/) } });
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).paymentMethodRef).toBe(subscription.paymentMethodRef);
    // Not yet authenticated: the same nextAction again.
    expect(await ok(complete(subscription.id, sessionToken, {}))).toEqual(waiting);
    expect(await ok(buyerClient().POST('/sandbox/authentications', { body: { clientSecret: waiting.nextAction!.clientSecret, completed: true } }))).toEqual({ status: 'succeeded' });
    expect(await ok(complete(subscription.id, sessionToken, {}))).toEqual({ status: 'active', paymentMethod: { brand: 'visa', last4: '3184' }, nextAction: null });
    const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } });
    expect(await salesDb().sandboxPaymentMethod.findUniqueOrThrow({ where: { id: row.paymentMethodRef! } })).toMatchObject({ reusable: true, last4: '3184' });
    expect((await failure(complete(subscription.id, sessionToken, {}))).status).toBe(400);
  }, SLOW);

  test('the authentication fails: completing without a card is 402, the saved card stays, the session stays open; without a pending setup, no card is 400', async () => {
    const { subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
    const { sessionToken } = await mintFor(subscription.number);
    expect((await failure(complete(subscription.id, sessionToken, {}))).status).toBe(400);
    const waiting = await ok(complete(subscription.id, sessionToken, { paymentMethod: (await ok(tokenize('4000002760003184'))).paymentMethod }));
    expect(await ok(buyerClient().POST('/sandbox/authentications', { body: { clientSecret: waiting.nextAction!.clientSecret, completed: false } }))).toEqual({ status: 'failed' });
    const declined = await failure(complete(subscription.id, sessionToken, {}));
    expect(declined.status).toBe(402);
    expect(declined.body.error.message).toMatch(/3-D Secure was not completed/);
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).paymentMethodRef).toBe(subscription.paymentMethodRef);
    expect((await failure(complete(subscription.id, sessionToken, {}))).status).toBe(400);
    const saved = await ok(complete(subscription.id, sessionToken, { paymentMethod: (await ok(tokenize('4242424242424242'))).paymentMethod }));
    expect(saved.paymentMethod).toEqual({ brand: 'visa', last4: '4242' });
  }, SLOW);
});

test('card details with Stripe are refused unless the operator opts in; paymentMethod must be a pm_ id', () => {
  const details = card();
  expect(() => checkCardSource('stripe', { card: details }, false)).toThrow(/card numbers are not accepted by this deployment \(Stripe\).*paymentMethod/);
  expect(() => checkCardSource('stripe', { card: details }, true)).not.toThrow();
  expect(() => checkCardSource('sandbox', { card: details }, false)).not.toThrow();
  expect(() => checkCardSource('stripe', { paymentMethod: 'pm_card_visa' }, false)).not.toThrow();
  expect(() => checkCardSource('stripe', { paymentMethod: 'tok_visa' }, false)).toThrow(/pm_/);
});

// --- Stripe, against stripe-mock ------------------------------------------------------------------

const executable = await findOrProvisionStripeMock().catch(() => undefined);
const describeWithMock = executable ? describe : describe.skip;

describeWithMock('Stripe: payment methods from Stripe.js', () => {
  let mock: StripeMock;
  let server: ServerProcess;
  beforeAll(async () => {
    mock = await startStripeMock(executable!);
    server = await startServerProcess({
      DATABASE_URL: process.env.DATABASE_URL!,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: `card-sources-${randomUUID()}`,
      PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_WEBHOOK_SECRET: 'whsec_test',
      STRIPE_API_BASE: mock.url,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_wiring',
    });
  }, STRIPE_MOCK_PROVISION_TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    await mock?.stop();
  });

  test('the adapter saves and charges pm_card_visa: a SetupIntent and a PaymentIntent that stripe-mock takes, no card details', async () => {
    const stripe = new StripeProcessor({ secretKey: 'sk_test_123', webhookSecret: 'whsec_test', apiBase: mock.url });
    const setup = await stripe.setupPaymentMethod({ idempotencyKey: `setup-${randomUUID()}`, paymentMethod: 'pm_card_visa', email: 'buyer@example.test', livemode: false });
    // stripe-mock checks each request's shape and answers its fixed SetupIntent, requires_payment_method: a failed setup.
    expect(setup).toEqual({ status: 'failed', failureCode: 'payment_failed', failureMessage: expect.any(String) });
    const paymentId = randomUUID();
    const charge = await stripe.createCharge({ paymentId, idempotencyKey: `charge-${paymentId}`, amount: 1200, currency: 'usd', method: 'card', paymentMethod: 'pm_card_visa', email: 'buyer@example.test', livemode: false });
    expect(charge.chargeId).toMatch(/^pi_/);
  });

  test("3-D Secure: a requires_action PaymentIntent or SetupIntent gives its client secret for stripe.handleNextAction; the adapter asks stripe-mock for the intents", async () => {
    expect(nextActionOf({ status: 'requires_action', client_secret: 'pi_123_secret_abc' })).toEqual({ clientSecret: 'pi_123_secret_abc' });
    for (const status of ['succeeded', 'processing', 'requires_payment_method', 'canceled'] as const) expect(nextActionOf({ status, client_secret: 'pi_123_secret_abc' })).toBeNull();
    const intent = { id: 'seti_123', status: 'requires_action' as const, client_secret: 'seti_123_secret_abc', payment_method: 'pm_123', customer: 'cus_123', last_setup_error: null };
    expect(setupResult(intent, true)).toEqual({ status: 'requires_action', setupId: 'seti_123', nextAction: { clientSecret: 'seti_123_secret_abc' } });
    // Without the buyer (a trial at checkout) it stays a failure, as before.
    expect(setupResult(intent, false)).toMatchObject({ status: 'failed' });
    expect(setupResult({ ...intent, status: 'succeeded' }, true)).toEqual({ status: 'succeeded', paymentMethod: { ref: 'cus_123:pm_123' } });
    const stripe = new StripeProcessor({ secretKey: 'sk_test_123', webhookSecret: 'whsec_test', apiBase: mock.url });
    // stripe-mock answers its fixed intents (requires_payment_method): a failed setup, no next action; the mapping above covers the others.
    expect((await stripe.setupState('seti_123')).status).toBe('failed');
    expect(await stripe.nextAction('pi_123')).toBeNull();
  });

  test('a server on Stripe: the checkout JSON API refuses card (400, saying why) and takes paymentMethod; the sandbox tokenizer is refused', async () => {
    const { element } = await newCheckout(ws, { price: 1500, key: TEST });
    const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });
    const raw = await post(`/checkout/${element.id}/orders`, orderBody({ card: card() }));
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { message: string } }).error.message).toMatch(/Stripe\.js.*paymentMethod/);
    const token = await post(`/checkout/${element.id}/orders`, orderBody({ card: undefined, paymentMethod: 'pm_card_visa' }));
    expect(token.status).toBeLessThan(500);
    expect(token.status).not.toBe(400);
    expect((await post('/sandbox/payment-methods', { card: card() })).status).toBe(400);
  }, SLOW);

  // Stripe.js comes from Stripe's own host, which this machine cannot reach: the pages' wiring is
  // checked in their HTML (script, mount point, key, policy), the browser side is not run.
  const wiring = (html: string, headers: Headers) => {
    expect(html).toContain('<script src="https://js.stripe.com/v3/"></script>');
    expect(html).toContain('<div id="payment-element"></div>');
    expect(html).not.toContain('id="card-number"');
    expect(html).not.toContain('id="card-cvc"');
    expect(html).toContain('"publishableKey":"pk_test_wiring"');
    expect(html).toContain('stripe.createPaymentMethod({ elements })');
    expect(html).toContain('stripe.handleNextAction({ clientSecret })');
    const csp = headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'sha256-[^']+' https:\/\/js\.stripe\.com/);
    expect(csp).toContain('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(csp).toContain("connect-src 'self' https://api.stripe.com");
  };

  test('the checkout page with Stripe: Stripe.js and the Payment Element in place of card inputs', async () => {
    const { element } = await newCheckout(ws, { price: 1500, key: TEST });
    const response = await fetch(`${server.url}/checkout/${element.id}`);
    expect(response.status).toBe(200);
    wiring(await response.text(), response.headers);
  });

  test("the payment-method page of a Stripe subscription: the same wiring; its completion takes the Payment Element's pm_…", async () => {
    const { subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
    // A subscription on Stripe (its first payment's processor), without a Stripe checkout to buy it: stripe-mock keeps no state.
    await salesDb().subscription.update({ where: { id: subscription.id }, data: { processor: 'stripe', paymentMethodRef: 'cus_mock:pm_card_visa' } });
    const mint = await ok(
      restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: subscription.number } }, body: {} }),
    );
    const page = await fetch(mint.url.replace(/^https?:\/\/[^/]+/, server.url));
    expect(page.status).toBe(200);
    wiring(await page.text(), page.headers);
    const complete = (body: unknown) =>
      fetch(`${server.url}/payment-method/${subscription.id}/${mint.sessionToken}/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const raw = await complete({ card: card() });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { message: string } }).error.message).toMatch(/Stripe\.js/);
    // stripe-mock answers its fixed SetupIntent (requires_payment_method): the card is declined (402), the saved one kept.
    const declined = await complete({ paymentMethod: 'pm_card_visa' });
    expect(declined.status).toBe(402);
    expect(await declined.json()).toEqual({ status: 'error', error: { message: expect.any(String) } });
    expect((await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id } })).paymentMethodRef).toBe('cus_mock:pm_card_visa');
  });
});
