import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import {
  CardDeclined,
  InvalidProcessorSignature,
  OperationNotSupported,
  ProcessorAuthenticationFailed,
  ProcessorUnavailable,
  chargeIdempotencyKey,
  type ChargeRequest,
} from '../src/payments/processors/processor.js';
import { StripeProcessor } from '../src/payments/processors/stripe.js';
import { STRIPE_MOCK_PROVISION_TIMEOUT_MS, findOrProvisionStripeMock, startStripeMock, type StripeMock } from './support/stripe-mock.js';

// The Stripe adapter against stripe-mock, which answers from Stripe's OpenAPI document and
// refuses any request that does not fit it: every call the adapter makes is checked for shape.
// stripe-mock keeps no state (its answers are fixtures), so outcomes are checked on webhooks we
// sign with the SDK, as Stripe would send them. Without Go (no stripe-mock) the adapter's calls are
// skipped (and a skip fails CI: .ci/run builds stripe-mock); the webhook tests need no stripe-mock
// and always run.

const KEY = 'sk_test_123';
const WEBHOOK_SECRET = 'whsec_test_secret';
let mock: StripeMock | undefined;
let stripe: StripeProcessor;

const executable = await findOrProvisionStripeMock().catch((error: Error) => {
  process.stderr.write(`stripe-mock could not be built: ${error.message}\n`);
  return undefined;
});
if (!executable) {
  process.stderr.write('SKIPPED: the Stripe adapter API tests need stripe-mock, which needs Go (https://go.dev/dl/) to build; install Go or set STRIPE_MOCK_PATH.\n');
}
const describeWithMock = executable ? describe : describe.skip;

beforeAll(async () => {
  if (!executable) return;
  mock = await startStripeMock(executable);
  stripe = new StripeProcessor({ secretKey: KEY, webhookSecret: WEBHOOK_SECRET, apiBase: mock.url });
}, STRIPE_MOCK_PROVISION_TIMEOUT_MS);
afterAll(() => mock?.stop());

function request(overrides: Partial<ChargeRequest> = {}): ChargeRequest {
  const paymentId = randomUUID();
  return {
    paymentId,
    idempotencyKey: chargeIdempotencyKey(paymentId),
    amount: 5000,
    currency: 'EUR',
    method: 'card',
    card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' },
    email: 'buyer@example.test',
    livemode: false,
    ...overrides,
  };
}

/** A webhook as Stripe signs it, for an event whose data.object is `object`. */
function stripeWebhook(type: string, object: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({ id: `evt_${randomUUID().slice(0, 8)}`, object: 'event', type, created: 1_790_000_000, livemode: false, data: { object } });
  return { payload, headers: { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(Date.now() / 1000) }) } };
}

describeWithMock('Stripe adapter against stripe-mock', () => {
  test('stripe-mock really validates: a parameter Stripe does not know is refused', async () => {
    const client = new Stripe(KEY, { host: new URL(mock!.url).hostname, port: Number(new URL(mock!.url).port), protocol: 'http' });
    await expect(client.paymentIntents.create({ amount: 100, currency: 'usd', no_such_parameter: 1 } as Stripe.PaymentIntentCreateParams)).rejects.toBeInstanceOf(
      Stripe.errors.StripeInvalidRequestError,
    );
  });

  test('createCharge: a test card, a raw unknown card, saving the card, and a saved card off-session are valid calls', async () => {
    const charge = await stripe.createCharge(request());
    expect(charge.chargeId).toMatch(/^pi_/);
    // stripe-mock's fixed PaymentIntent is requires_payment_method, without an error: a failure of ours, with a message.
    expect(charge).toMatchObject({ status: 'failed', failureCode: 'payment_failed', failureMessage: expect.any(String) });
    expect(charge.paymentMethod?.ref).toEqual(expect.any(String));

    // Not a test card: sent raw as a PaymentMethod (stripe-mock accepts any number).
    expect((await stripe.createCharge(request({ card: { number: '4000056655665556', expMonth: 1, expYear: 2031, cvc: '999' } }))).chargeId).toMatch(/^pi_/);

    const saved = await stripe.createCharge(request({ savePaymentMethod: true }));
    expect(saved.paymentMethod!.ref).toMatch(/^cus_\w+:\w+/);
    const renewal = await stripe.createCharge(request({ card: undefined, savedPaymentMethod: saved.paymentMethod!.ref }));
    expect(renewal.chargeId).toMatch(/^pi_/);
  });

  test('setupPaymentMethod (a trial\'s card): a confirmed off-session SetupIntent on a new customer, its card reusable for a charge; a live setup on a test key is refused', async () => {
    const setup = await stripe.setupPaymentMethod({ idempotencyKey: `payment/${randomUUID()}/setup`, card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' }, email: 'buyer@example.test', livemode: false });
    // stripe-mock's fixed SetupIntent is requires_payment_method: a failed setup (a succeeded one's mapping is card-sources.test.ts's setupResult check).
    expect(setup).toEqual({ status: 'failed', failureCode: 'payment_failed', failureMessage: expect.any(String) });
    // A setup that succeeded saves customer:payment_method; charging that ref off-session is a valid call.
    expect((await stripe.createCharge(request({ card: undefined, savedPaymentMethod: 'cus_mock:pm_card_visa' }))).chargeId).toMatch(/^pi_/);
    await expect(stripe.setupPaymentMethod({ idempotencyKey: 'k', card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' }, email: 'b@example.test', livemode: true })).rejects.toBeInstanceOf(OperationNotSupported);
  });

  test('createCharge refuses before calling Stripe: malformed cards, other methods, a live payment on a test key', async () => {
    await expect(stripe.createCharge(request({ card: { number: '4242424242424241', expMonth: 12, expYear: 2034, cvc: '123' } }))).rejects.toBeInstanceOf(CardDeclined);
    await expect(stripe.createCharge(request({ method: 'paypal', card: undefined }))).rejects.toBeInstanceOf(OperationNotSupported);
    await expect(stripe.createCharge(request({ livemode: true }))).rejects.toBeInstanceOf(OperationNotSupported);
    await expect(stripe.createCharge(request({ card: undefined, savedPaymentMethod: 'pm_without_customer' }))).rejects.toMatchObject({ code: 'payment_method_not_found' });
  });

  test('cancel, refund (full and partial) and the dispute read are valid calls', async () => {
    await expect(stripe.cancelCharge('pi_123')).resolves.toBeUndefined();
    expect(await stripe.refund({ chargeId: 'pi_123', idempotencyKey: randomUUID() })).toMatchObject({ refundId: expect.stringMatching(/^re_/), status: 'succeeded' });
    expect(await stripe.refund({ chargeId: 'pi_123', amount: 100, idempotencyKey: randomUUID() })).toMatchObject({ amount: 100 });
    expect(await stripe.disputeState('pi_123')).toMatchObject({ disputeId: expect.stringMatching(/^dp_|^du_/), status: expect.any(String), amount: expect.any(Number) });
  });

  test('an unreachable Stripe is ProcessorUnavailable (retryable)', async () => {
    const offline = new StripeProcessor({ secretKey: KEY, webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:9' });
    const error = await offline.refund({ chargeId: 'pi_123', idempotencyKey: randomUUID() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProcessorUnavailable);
    expect(error).toMatchObject({ retryable: true, name: 'ProcessorUnavailable' });
  });

  test('a refused key is ProcessorAuthenticationFailed (not retryable: an operator must fix it) and its message does not contain the key', async () => {
    const badKey = 'sk_live_not_a_test_key';
    const wrong = new StripeProcessor({ secretKey: badKey, webhookSecret: WEBHOOK_SECRET, apiBase: mock!.url });
    const error = (await wrong.refund({ chargeId: 'pi_123', idempotencyKey: randomUUID() }).catch((caught: unknown) => caught)) as Error;
    expect(error).toBeInstanceOf(ProcessorAuthenticationFailed);
    expect(error).toMatchObject({ retryable: false, code: 'processor_authentication_failed' });
    expect(error.message).toMatch(/STRIPE_SECRET_KEY/);
    expect(error.message).not.toContain(badKey);
  });
});

describe('Stripe webhooks', () => {
  // Verifying and reading a webhook is local: this adapter's API origin is a closed port.
  const verifier = new StripeProcessor({ secretKey: KEY, webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:9' });
  const intent = (fields: Record<string, unknown> = {}) => ({
    id: 'pi_abc',
    object: 'payment_intent',
    amount: 5000,
    amount_received: 5000,
    currency: 'eur',
    metadata: { paymentId: 'pay-1' },
    last_payment_error: null,
    ...fields,
  });

  test('payment_intent events become charge events, keyed by the PaymentIntent and our payment id', async () => {
    const parse = (type: string, object: Record<string, unknown>) => {
      const { payload, headers } = stripeWebhook(type, object);
      return verifier.parseWebhook(Buffer.from(payload), headers);
    };
    expect(await parse('payment_intent.succeeded', intent())).toEqual([
      expect.objectContaining({ type: 'charge.succeeded', processor: 'stripe', chargeId: 'pi_abc', paymentId: 'pay-1', amount: 5000, currency: 'eur', createdAt: 1_790_000_000_000 }),
    ]);
    expect(await parse('payment_intent.processing', intent())).toMatchObject([{ type: 'charge.pending' }]);
    expect(await parse('payment_intent.payment_failed', intent({ last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'No.' } }))).toMatchObject([
      { type: 'charge.failed', failureCode: 'insufficient_funds', failureMessage: 'No.' },
    ]);
    expect(await parse('payment_intent.canceled', intent())).toMatchObject([{ type: 'charge.cancelled' }]);
    expect(await parse('charge.refunded', { id: 'ch_1', object: 'charge', payment_intent: 'pi_abc', amount: 5000, amount_refunded: 2000, refunded: false, metadata: {} })).toMatchObject([
      { type: 'charge.refunded', chargeId: 'pi_abc', refundId: null, amountRefunded: 2000, fullyRefunded: false },
    ]);
    expect(await parse('refund.failed', { id: 're_1', object: 'refund', payment_intent: 'pi_abc', amount: 2000, failure_reason: 'expired_or_canceled_card', metadata: {} })).toMatchObject([
      { type: 'refund.failed', refundId: 're_1', amount: 2000, failureCode: 'expired_or_canceled_card' },
    ]);
    const dispute = { id: 'du_1', object: 'dispute', payment_intent: 'pi_abc', amount: 5000, reason: 'fraudulent', status: 'needs_response' };
    expect(await parse('charge.dispute.created', dispute)).toMatchObject([{ type: 'charge.disputed', dispute: { disputeId: 'du_1', status: 'needs_response', reason: 'fraudulent' } }]);
    expect(await parse('charge.dispute.closed', { ...dispute, status: 'lost' })).toMatchObject([{ type: 'dispute.closed', dispute: { status: 'lost' } }]);
    expect(await parse('charge.dispute.closed', { ...dispute, status: 'warning_closed' })).toMatchObject([{ dispute: { status: 'won' } }]);
    // Verified, but nothing the consumer acts on.
    expect(await parse('customer.created', { id: 'cus_1', object: 'customer' })).toEqual([]);
  });

  test('a wrong secret, a tampered body or a missing header is InvalidProcessorSignature', async () => {
    const signedElsewhere = stripeWebhook('payment_intent.succeeded', intent(), 'whsec_other');
    await expect(verifier.parseWebhook(signedElsewhere.payload, signedElsewhere.headers)).rejects.toBeInstanceOf(InvalidProcessorSignature);
    const genuine = stripeWebhook('payment_intent.succeeded', intent());
    await expect(verifier.parseWebhook(genuine.payload.replace('5000', '9'), genuine.headers)).rejects.toBeInstanceOf(InvalidProcessorSignature);
    await expect(verifier.parseWebhook(genuine.payload, {})).rejects.toBeInstanceOf(InvalidProcessorSignature);
  });
});

/** A Stripe that answers every call 500: the processor on it, and how many calls it got. */
async function withFailingStripe(use: (processor: StripeProcessor, calls: () => number) => Promise<void>) {
  let calls = 0;
  const failing = createServer((request, response) => {
    calls += 1;
    request.resume();
    response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  try {
    await use(new StripeProcessor({ secretKey: KEY, webhookSecret: WEBHOOK_SECRET, apiBase: `http://127.0.0.1:${(failing.address() as AddressInfo).port}` }), () => calls);
  } finally {
    await new Promise((resolve) => failing.close(resolve));
  }
}

test("a refund is one call per try, whatever Stripe answers: the SDK's own retries could land past the refund key's window its activity checks before each try", async () => {
  await withFailingStripe(async (processor, calls) => {
    const error = await processor.refund({ chargeId: 'pi_123', idempotencyKey: randomUUID() }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ retryable: true });
    expect(calls()).toBe(1);
  });
});

test("a renewal's off-session charge is one call per try (its activity checks the key's window before each); a checkout's charge keeps the SDK's retries", async () => {
  await withFailingStripe(async (processor, calls) => {
    const renewal = { paymentId: randomUUID(), amount: 1000, currency: 'USD', method: 'card' as const, savedPaymentMethod: 'cus_123:pm_123', email: 'buyer@example.com', livemode: false };
    const error = await processor.createCharge({ ...renewal, idempotencyKey: randomUUID(), oneCallPerTry: true }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ retryable: true });
    expect(calls()).toBe(1);
    await processor.createCharge({ ...renewal, idempotencyKey: randomUUID() }).catch(() => undefined);
    expect(calls() - 1).toBeGreaterThan(1);
  });
});
