import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { createPrismaClient } from '../src/db/client.js';
import { PrismaClient } from '../src/generated/prisma/client.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from '../src/payments/processors/index.js';
import {
  ChargeNotFound,
  InvalidChargeState,
  InvalidProcessorRequest,
  InvalidProcessorSignature,
  OperationNotSupported,
  RefundExceedsCharge,
  chargeIdempotencyKey,
  type ChargeRequest,
  type ProcessorEvent,
} from '../src/payments/processors/processor.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import type { SignedWebhook } from '../src/payments/processors/sandbox-events.js';
import { lockWaiters } from './support/database.js';
import { sandboxWebhooksOf } from './support/refunds.js';

// The sandbox processor against the suite's real PostgreSQL: every test card, idempotency under
// concurrency, the asynchronous paths (settle, fail, dispute, cancel) through signed webhooks,
// and refunds. Each test uses fresh payment ids, so the shared database needs no cleanup.

let prisma: PrismaClient;
let sandbox: SandboxProcessor;
let clock: Date | undefined;
const now = () => clock ?? new Date();

// For calls that must all wait on one lock at once: a pool with room for 20 (the default has 10,
// and the rest would wait for a connection instead).
let widePool: PrismaClient;
let wideSandbox: SandboxProcessor;

beforeAll(() => {
  prisma = createPrismaClient(process.env.DATABASE_URL!);
  sandbox = new SandboxProcessor({ prisma, now });
  widePool = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL!, max: 20 }) });
  wideSandbox = new SandboxProcessor({ prisma: widePool, now });
});
afterAll(() => Promise.all([prisma.$disconnect(), widePool.$disconnect()]));
afterEach(() => (clock = undefined));

function request(overrides: Partial<ChargeRequest> = {}, number = '4242424242424242'): ChargeRequest {
  const paymentId = randomUUID();
  return {
    paymentId,
    idempotencyKey: chargeIdempotencyKey(paymentId),
    amount: 5000,
    currency: 'USD',
    method: 'card',
    card: { number, expMonth: 12, expYear: 2034, cvc: number.startsWith('3') ? '1234' : '123' },
    email: 'buyer@example.test',
    livemode: false,
    metadata: { orderId: randomUUID() },
    ...overrides,
  };
}

/** The outbox's webhooks for one charge, verified through parseWebhook as a consumer would. */
async function eventsOf(chargeId: string): Promise<ProcessorEvent[]> {
  const pending = await sandboxWebhooksOf([chargeId]);
  return (await Promise.all(pending.map((w) => sandbox.parseWebhook(w.rawBody, w.headers)))).flat();
}
const typesOf = async (chargeId: string) => (await eventsOf(chargeId)).map((event) => event.type);
const parse = (webhook: SignedWebhook) => sandbox.parseWebhook(Buffer.from(webhook.rawBody), webhook.headers);

describe('sandbox charges', () => {
  test.each([
    ['4242424242424242', 'succeeded', '-', 'visa'],
    ['5555555555554444', 'succeeded', '-', 'mastercard'],
    ['378282246310005', 'succeeded', '-', 'amex'],
    ['4000000000000002', 'failed', 'generic_decline', 'visa'],
    ['4000000000009995', 'failed', 'insufficient_funds', 'visa'],
    ['4000000000000069', 'failed', 'expired_card', 'visa'],
    ['4000000000000127', 'failed', 'incorrect_cvc', 'visa'],
    ['4111111111111111', 'failed', 'test_mode_live_card', 'visa'],
    ['4000002760003184', 'pending', '-', 'visa'],
  ])('card %s: %s (%s)', async (number, status, failureCode, brand) => {
    const result = await sandbox.createCharge(request({}, number));
    expect(result).toMatchObject({ status, paymentMethod: { brand, last4: number.slice(-4) } });
    expect(result.failureCode ?? '-').toBe(failureCode);
    // A failure says why in words; a success or a pending charge has no message.
    expect(typeof result.failureMessage === 'string' && result.failureMessage.length > 0).toBe(failureCode !== '-');
    const expected = status === 'succeeded' ? 'charge.succeeded' : status === 'failed' ? 'charge.failed' : 'charge.pending';
    expect(await typesOf(result.chargeId)).toEqual([expected]);
    // Only the last four digits are kept anywhere.
    const stored = await prisma.$queryRaw<{ row: string }[]>`
      SELECT concat(c::text, pm::text) AS row FROM "SandboxCharge" c JOIN "SandboxPaymentMethod" pm ON pm.id = c."paymentMethodId" WHERE c.id = ${result.chargeId}`;
    expect(stored[0]!.row).not.toContain(number.slice(0, 10));
  });

  test('an expired card is declined with expired_card; malformed details write nothing', async () => {
    expect(await sandbox.createCharge(request({ card: { number: '4242424242424242', expMonth: 1, expYear: 2020, cvc: '123' } }))).toMatchObject({
      status: 'failed',
      failureCode: 'expired_card',
    });
    const bad = request({ card: { number: '4242424242424242', expMonth: 13, expYear: 2030, cvc: '123' } });
    await expect(sandbox.createCharge(bad)).rejects.toMatchObject({ name: 'CardDeclined', code: 'invalid_expiry_month' });
    expect(await prisma.sandboxCharge.count({ where: { paymentId: bad.paymentId } })).toBe(0);
  });

  test('4000000000000259 succeeds, then is disputed (fraudulent) with its event', async () => {
    const result = await sandbox.createCharge(request({}, '4000000000000259'));
    expect(result.status).toBe('succeeded');
    expect(await sandbox.disputeState(result.chargeId)).toMatchObject({ status: 'needs_response', reason: 'fraudulent', amount: 5000 });
    const events = await eventsOf(result.chargeId);
    expect(events.map((e) => e.type)).toEqual(['charge.succeeded', 'charge.disputed']);
    expect(events[1]).toMatchObject({ processor: 'sandbox', livemode: false, dispute: { status: 'needs_response', amount: 5000 } });
    await expect(sandbox.refund({ chargeId: result.chargeId, idempotencyKey: randomUUID() })).rejects.toMatchObject({ code: 'charge_disputed' });
  });

  test('a 3D Secure card stays pending until settled; settle returns a verified charge.succeeded', async () => {
    const req = request({}, '4000002760003184');
    const { chargeId } = await sandbox.createCharge(req);
    const webhook = await sandbox.settle(chargeId);
    const [event] = await parse(webhook);
    expect(event).toMatchObject({ type: 'charge.succeeded', chargeId, paymentId: req.paymentId, amount: 5000, currency: 'usd', id: webhook.eventId });
    // A retried activity now learns the outcome.
    expect(await sandbox.createCharge(req)).toMatchObject({ chargeId, status: 'succeeded' });
    await expect(sandbox.settle(chargeId)).rejects.toMatchObject({ name: 'InvalidChargeState', code: 'charge_not_pending' });
  });

  test('PayPal and bank transfers stay pending; fail and settle confirm them; PayPal cannot be cancelled', async () => {
    const paypal = await sandbox.createCharge(request({ method: 'paypal', card: undefined }));
    expect(paypal).toEqual({ chargeId: paypal.chargeId, status: 'pending' });
    await expect(sandbox.cancelCharge(paypal.chargeId)).rejects.toBeInstanceOf(OperationNotSupported);
    const [failed] = await parse(await sandbox.fail(paypal.chargeId, 'insufficient_funds'));
    expect(failed).toMatchObject({ type: 'charge.failed', failureCode: 'insufficient_funds' });

    const transfer = await sandbox.createCharge(request({ method: 'manual', card: undefined }));
    expect(transfer.status).toBe('pending');
    expect((await parse(await sandbox.settle(transfer.chargeId)))[0]!.type).toBe('charge.succeeded');
    await expect(sandbox.refund({ chargeId: transfer.chargeId, idempotencyKey: randomUUID() })).rejects.toBeInstanceOf(OperationNotSupported);
    expect(sandbox.capabilities).toMatchObject({ cancel: { paypal: false, manual: true }, refunds: { manual: false, card: true } });
  });

  test('cancelling a pending charge is confirmed by a charge.cancelled event; a settled one cannot be cancelled', async () => {
    const req = request({ method: 'manual', card: undefined });
    const { chargeId } = await sandbox.createCharge(req);
    await sandbox.cancelCharge(chargeId);
    expect(await typesOf(chargeId)).toEqual(['charge.pending', 'charge.cancelled']);
    expect(await sandbox.createCharge(req)).toMatchObject({ status: 'failed', failureCode: 'cancelled' });
    await expect(sandbox.settle(chargeId)).rejects.toBeInstanceOf(InvalidChargeState);
    const paid = await sandbox.createCharge(request());
    await expect(sandbox.cancelCharge(paid.chargeId)).rejects.toMatchObject({ code: 'charge_not_pending' });
    await expect(sandbox.cancelCharge('ch_sbx_missing')).rejects.toBeInstanceOf(ChargeNotFound);
  });

  test('malformed requests are refused before anything is written', async () => {
    await expect(sandbox.createCharge(request({ amount: 0 }))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(sandbox.createCharge(request({ amount: 10.5 }))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(sandbox.createCharge(request({ currency: 'US' }))).rejects.toMatchObject({ code: 'invalid_currency' });
    await expect(sandbox.createCharge(request({ card: undefined }))).rejects.toBeInstanceOf(InvalidProcessorRequest);
    await expect(sandbox.createCharge(request({ method: 'paypal' }))).rejects.toMatchObject({ code: 'invalid_payment_method' });
  });
});

describe('sandbox idempotency', () => {
  test('the same key returns the same charge; another request under it is refused', async () => {
    const req = request();
    const first = await sandbox.createCharge(req);
    expect(await sandbox.createCharge(req)).toEqual(first);
    await expect(sandbox.createCharge({ ...req, amount: 6000 })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await prisma.sandboxCharge.count({ where: { paymentId: req.paymentId } })).toBe(1);
  });

  test('20 concurrent createCharge calls with one key make one charge and one event', async () => {
    const req = request();
    const results = await Promise.all(Array.from({ length: 20 }, () => sandbox.createCharge(req)));
    expect(new Set(results.map((r) => r.chargeId)).size).toBe(1);
    expect(results.every((r) => r.status === 'succeeded')).toBe(true);
    expect(await prisma.sandboxCharge.count({ where: { idempotencyKey: req.idempotencyKey } })).toBe(1);
    expect(await typesOf(results[0]!.chargeId)).toEqual(['charge.succeeded']);
  });
});

describe('sandbox webhooks', () => {
  test('another process (another instance) verifies the same signatures: the secret is in the database', async () => {
    const { chargeId } = await sandbox.createCharge(request({ method: 'paypal', card: undefined }));
    const webhook = await sandbox.settle(chargeId);
    const other = createPaymentProcessor({ processor: 'sandbox' }, { prisma });
    expect((await other.parseWebhook(webhook.rawBody, webhook.headers))[0]).toMatchObject({ type: 'charge.succeeded', chargeId });
  });

  test('a tampered body, signature or stale delivery is refused with InvalidProcessorSignature', async () => {
    const { chargeId } = await sandbox.createCharge(request({ method: 'paypal', card: undefined }));
    const webhook = await sandbox.settle(chargeId);
    const tamperedBody = webhook.rawBody.replace('"amount":5000', '"amount":9');
    await expect(sandbox.parseWebhook(tamperedBody, webhook.headers)).rejects.toBeInstanceOf(InvalidProcessorSignature);
    const header = webhook.headers['sandbox-signature']!;
    const flipped = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
    await expect(sandbox.parseWebhook(webhook.rawBody, { 'Sandbox-Signature': flipped })).rejects.toBeInstanceOf(InvalidProcessorSignature);
    await expect(sandbox.parseWebhook(webhook.rawBody, {})).rejects.toBeInstanceOf(InvalidProcessorSignature);
    clock = new Date(Date.now() + 10 * 60_000);
    await expect(sandbox.parseWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(InvalidProcessorSignature);
  });

  test('the outbox offers an event until it is acknowledged', async () => {
    const { chargeId } = await sandbox.createCharge(request());
    const [event] = await eventsOf(chargeId);
    await sandbox.acknowledgeWebhook(event!.id);
    expect(await eventsOf(chargeId)).toEqual([]);
  });

  test('dispute and closeDispute: charge.disputed then dispute.closed, and the live state follows', async () => {
    const { chargeId } = await sandbox.createCharge(request());
    await sandbox.refund({ chargeId, amount: 1000, idempotencyKey: randomUUID() });
    const [disputed] = await parse(await sandbox.dispute(chargeId, 'product_not_received'));
    expect(disputed).toMatchObject({ type: 'charge.disputed', dispute: { status: 'needs_response', reason: 'product_not_received', amount: 4000 } });
    await expect(sandbox.dispute(chargeId)).rejects.toMatchObject({ code: 'already_disputed' });
    const [closed] = await parse(await sandbox.closeDispute(chargeId, 'won'));
    expect(closed).toMatchObject({ type: 'dispute.closed', dispute: { status: 'won' } });
    expect(await sandbox.disputeState(chargeId)).toMatchObject({ status: 'won' });
    await expect(sandbox.closeDispute(chargeId, 'lost')).rejects.toMatchObject({ code: 'no_open_dispute' });
    expect(await sandbox.disputeState((await sandbox.createCharge(request())).chargeId)).toBeNull();
  });
});

describe('sandbox refunds', () => {
  test('partial refunds up to the charge, then refused; each one is a charge.refunded event', async () => {
    const { chargeId } = await sandbox.createCharge(request());
    expect(await sandbox.refund({ chargeId, amount: 2000, idempotencyKey: randomUUID() })).toMatchObject({ status: 'succeeded', amount: 2000 });
    const rest = await sandbox.refund({ chargeId, idempotencyKey: randomUUID() });
    expect(rest).toMatchObject({ status: 'succeeded', amount: 3000 });
    const refunded = (await eventsOf(chargeId)).filter((e) => e.type === 'charge.refunded');
    expect(refunded).toMatchObject([
      { amountRefunded: 2000, fullyRefunded: false },
      { amountRefunded: 5000, fullyRefunded: true, refundId: rest.refundId },
    ]);
    await expect(sandbox.refund({ chargeId, amount: 1, idempotencyKey: randomUUID() })).rejects.toBeInstanceOf(RefundExceedsCharge);
    await expect(sandbox.refund({ chargeId, idempotencyKey: randomUUID() })).rejects.toMatchObject({ refundable: 0 });
  });

  test('more than charged is refused and writes nothing; the same key returns the same refund', async () => {
    const { chargeId } = await sandbox.createCharge(request());
    await expect(sandbox.refund({ chargeId, amount: 5001, idempotencyKey: randomUUID() })).rejects.toMatchObject({ requested: 5001, refundable: 5000 });
    const key = randomUUID();
    const first = await sandbox.refund({ chargeId, amount: 1500, idempotencyKey: key });
    expect(await sandbox.refund({ chargeId, amount: 1500, idempotencyKey: key })).toEqual(first);
    await expect(sandbox.refund({ chargeId, amount: 1600, idempotencyKey: key })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    expect(await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: chargeId } })).toMatchObject({ amountRefunded: 1500 });
  });

  test('20 concurrent refunds of 1000 on a 5000 charge: exactly 5 succeed', async () => {
    const { chargeId } = await sandbox.createCharge(request());
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => sandbox.refund({ chargeId, amount: 1000, idempotencyKey: randomUUID() })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof RefundExceedsCharge)).toHaveLength(15);
    expect(await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: chargeId } })).toMatchObject({ amountRefunded: 5000 });
  });

  test.each([
    ['in full', undefined],
    ['in part', 1200],
  ])('20 concurrent refunds %s under one key (a retried activity): one refund, the same answer to each, one event', async (_name, amount) => {
    const { chargeId } = await sandbox.createCharge(request());
    const key = randomUUID();
    // The charge held locked until all 20 calls wait for the lock (pg_stat_activity says so): all
    // but the first then go on with a snapshot from before the first's refund committed.
    let locked!: (pid: number) => void;
    const lockTaken = new Promise<number>((resolve) => (locked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM "SandboxCharge" WHERE id = ${chargeId} FOR UPDATE`;
      locked((await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid);
      await released;
    });
    const holderPid = await lockTaken;
    const calls = Array.from({ length: 20 }, () => wideSandbox.refund({ chargeId, idempotencyKey: key, ...(amount ? { amount } : {}) }));
    await lockWaiters(process.env.DATABASE_URL!, holderPid, 20);
    release();
    await holder;
    const answers = await Promise.all(calls);
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ refundId: answers[0]!.refundId, status: 'succeeded', amount: amount ?? 5000 })]));
    expect(await prisma.sandboxRefund.count({ where: { chargeId } })).toBe(1);
    expect(await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: chargeId } })).toMatchObject({ amountRefunded: amount ?? 5000 });
    expect((await typesOf(chargeId)).filter((type) => type === 'charge.refunded')).toHaveLength(1);
  });

  test('4000000000005126: the refund is accepted as pending, then fails with a refund.failed event', async () => {
    const { chargeId } = await sandbox.createCharge(request({}, '4000000000005126'));
    const refund = await sandbox.refund({ chargeId, amount: 2000, idempotencyKey: randomUUID() });
    expect(refund.status).toBe('pending');
    const failed = (await eventsOf(chargeId)).find((e) => e.type === 'refund.failed');
    expect(failed).toMatchObject({ refundId: refund.refundId, amount: 2000, failureCode: 'expired_or_canceled_card' });
    expect(await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: chargeId } })).toMatchObject({ amountRefunded: 0 });
  });

  test('a pending or failed charge cannot be refunded', async () => {
    const pending = await sandbox.createCharge(request({}, '4000002760003184'));
    await expect(sandbox.refund({ chargeId: pending.chargeId, idempotencyKey: randomUUID() })).rejects.toMatchObject({ code: 'charge_not_succeeded' });
    await expect(sandbox.refund({ chargeId: 'ch_sbx_missing', idempotencyKey: randomUUID() })).rejects.toBeInstanceOf(ChargeNotFound);
  });
});

describe('sandbox saved cards (subscription renewals)', () => {
  test('a saved card is charged off-session with its ref', async () => {
    const first = await sandbox.createCharge(request({ savePaymentMethod: true }));
    const ref = first.paymentMethod!.ref;
    const renewal = await sandbox.createCharge(request({ card: undefined, savedPaymentMethod: ref }));
    expect(renewal).toMatchObject({ status: 'succeeded', paymentMethod: { ref, last4: '4242' } });
    await expect(sandbox.createCharge(request({ card: undefined, savedPaymentMethod: 'pm_sbx_nope' }))).rejects.toMatchObject({
      code: 'payment_method_not_found',
    });
    // Not saved: not reusable.
    const unsaved = await sandbox.createCharge(request());
    await expect(sandbox.createCharge(request({ card: undefined, savedPaymentMethod: unsaved.paymentMethod!.ref }))).rejects.toBeInstanceOf(
      InvalidProcessorRequest,
    );
  });

  test('renewal declines: 0341 off-session, 3184 needs authentication, and a card that expired since', async () => {
    const renew = (ref: string) => sandbox.createCharge(request({ card: undefined, savedPaymentMethod: ref }));
    const chargeCustomerFail = await sandbox.createCharge(request({ savePaymentMethod: true }, '4000000000000341'));
    expect(chargeCustomerFail.status).toBe('succeeded');
    expect(await renew(chargeCustomerFail.paymentMethod!.ref)).toMatchObject({ status: 'failed', failureCode: 'generic_decline' });

    const threeDs = await sandbox.createCharge(request({ savePaymentMethod: true }, '4000002760003184'));
    await sandbox.settle(threeDs.chargeId);
    expect(await renew(threeDs.paymentMethod!.ref)).toMatchObject({ status: 'failed', failureCode: 'authentication_required' });

    const expiring = await sandbox.createCharge(request({ savePaymentMethod: true, card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' } }));
    clock = new Date('2035-01-01T00:00:00Z');
    expect(await renew(expiring.paymentMethod!.ref)).toMatchObject({ status: 'failed', failureCode: 'expired_card' });
  });

  test('a declined card is not saved', async () => {
    const declined = await sandbox.createCharge(request({ savePaymentMethod: true }, '4000000000000002'));
    await expect(sandbox.createCharge(request({ card: undefined, savedPaymentMethod: declined.paymentMethod!.ref }))).rejects.toMatchObject({
      code: 'payment_method_not_found',
    });
  });
});

describe('factory', () => {
  test('PAYMENT_PROCESSOR picks the processor; stripe needs its key and webhook secret', () => {
    expect(paymentProcessorConfigFromEnv({})).toEqual({ processor: 'sandbox' });
    expect(createPaymentProcessor(paymentProcessorConfigFromEnv({}), { prisma }).name).toBe('sandbox');
    expect(() => paymentProcessorConfigFromEnv({ PAYMENT_PROCESSOR: 'paypal' })).toThrow(/sandbox or stripe/);
    expect(() => paymentProcessorConfigFromEnv({ PAYMENT_PROCESSOR: 'stripe', STRIPE_WEBHOOK_SECRET: 'whsec_x' })).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => paymentProcessorConfigFromEnv({ PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(/STRIPE_WEBHOOK_SECRET/);
    const env = { PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_API_BASE: 'http://127.0.0.1:12111' };
    const config = paymentProcessorConfigFromEnv(env);
    expect(createPaymentProcessor(config, { prisma }).name).toBe('stripe');
    // The key never appears in what the factory throws.
    expect(() => paymentProcessorConfigFromEnv({ ...env, STRIPE_API_BASE: 'ftp://x' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('sk_test_abc') }));
  });
});
