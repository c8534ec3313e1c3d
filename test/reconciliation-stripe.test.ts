import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { StripeProcessor } from '../src/payments/processors/stripe.js';
import { STRIPE_MOCK_PROVISION_TIMEOUT_MS, findOrProvisionStripeMock, startStripeMock, type StripeMock } from './support/stripe-mock.js';

// The Stripe side of the reconciliation: listCharges and listRefunds read Stripe's list APIs with
// the window as `created` filters, every page. Against stripe-mock, whose schema checks every
// request (one fixture per list); and against a stand-in for Stripe's list endpoints with 250
// PaymentIntents and 120 refunds, so that the pages (has_more, starting_after) are followed to the end.

const window = { since: new Date('2026-11-25T00:00:00Z'), until: new Date('2026-11-27T00:00:00Z') };
const collect = async <T>(items: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
};

describe('against stripe-mock', () => {
  let mock: StripeMock | undefined;
  const executable = findOrProvisionStripeMock().catch(() => undefined);

  beforeAll(async () => {
    const found = await executable;
    if (found) mock = await startStripeMock(found);
  }, STRIPE_MOCK_PROVISION_TIMEOUT_MS);
  afterAll(() => mock?.stop());

  test('the list requests fit Stripe’s schema and their objects map onto the processor records', async () => {
    if (!mock) throw new Error('stripe-mock is needed (Go builds it; or set STRIPE_MOCK_PATH)');
    const stripe = new StripeProcessor({ secretKey: 'sk_test_123', webhookSecret: 'whsec_x', apiBase: mock.url });
    const charges = await collect(stripe.listCharges(window));
    expect(charges.length).toBeGreaterThan(0);
    for (const charge of charges) {
      expect(charge).toMatchObject({ chargeId: expect.stringMatching(/^pi_/), amount: expect.any(Number), currency: expect.any(String), createdAt: expect.any(Date) });
      expect(['succeeded', 'pending', 'failed', 'cancelled']).toContain(charge.status);
    }
    const refunds = await collect(stripe.listRefunds(window));
    expect(refunds.length).toBeGreaterThan(0);
    for (const refund of refunds) {
      expect(refund).toMatchObject({ refundId: expect.stringMatching(/^re_/), amount: expect.any(Number), currency: expect.any(String) });
      expect(['succeeded', 'pending', 'failed', 'canceled']).toContain(refund.status);
    }
  });
});

describe('every page', () => {
  let api: Server;
  const requests: URL[] = [];
  const intents = Array.from({ length: 250 }, (_, i) => ({
    id: `pi_${String(i).padStart(4, '0')}`, object: 'payment_intent', amount: 1000 + i, currency: 'eur', created: 1_795_900_000 + i,
    status: ['succeeded', 'processing', 'canceled', 'requires_payment_method'][i % 4], metadata: { paymentId: `payment-${i}` },
    last_payment_error: i % 4 === 3 ? { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' } : null,
  }));
  const refunds = Array.from({ length: 120 }, (_, i) => ({
    id: `re_${String(i).padStart(4, '0')}`, object: 'refund', amount: 100 + i, currency: 'eur', created: 1_795_900_000 + i, payment_intent: `pi_${String(i).padStart(4, '0')}`,
    status: ['succeeded', 'pending', 'failed', 'requires_action', 'canceled'][i % 5], failure_reason: i % 5 === 2 ? 'expired_or_canceled_card' : null, metadata: i % 2 ? { refundId: `refund-${i}`, paymentId: `payment-${i}` } : {},
  }));

  beforeAll(async () => {
    api = createServer((request, response) => {
      const url = new URL(request.url!, 'http://stripe');
      requests.push(url);
      const all: { id: string }[] = url.pathname === '/v1/payment_intents' ? intents : refunds;
      const limit = Number(url.searchParams.get('limit'));
      const after = url.searchParams.get('starting_after');
      const start = after ? all.findIndex((o) => o.id === after) + 1 : 0;
      const data = all.slice(start, start + limit);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', url: url.pathname, has_more: start + limit < all.length, data }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => api.close(resolve)));

  test('250 PaymentIntents and 120 refunds over three and two pages, each filtered by the window, mapped onto our statuses', async () => {
    const stripe = new StripeProcessor({ secretKey: 'sk_test_123', webhookSecret: 'whsec_x', apiBase: `http://127.0.0.1:${(api.address() as AddressInfo).port}` });
    const charges = await collect(stripe.listCharges(window));
    expect(charges.map((c) => c.chargeId)).toEqual(intents.map((i) => i.id));
    expect(charges.slice(0, 4)).toEqual([
      { chargeId: 'pi_0000', paymentId: 'payment-0', amount: 1000, currency: 'eur', status: 'succeeded', failureCode: null, failureMessage: null, createdAt: new Date(1_795_900_000_000) },
      expect.objectContaining({ chargeId: 'pi_0001', status: 'pending' }),
      expect.objectContaining({ chargeId: 'pi_0002', status: 'cancelled' }),
      expect.objectContaining({ chargeId: 'pi_0003', status: 'failed', failureCode: 'insufficient_funds', failureMessage: 'Your card has insufficient funds.' }),
    ]);
    const listed = await collect(stripe.listRefunds(window));
    expect(listed.map((r) => r.status).slice(0, 5)).toEqual(['succeeded', 'pending', 'failed', 'pending', 'canceled']);
    expect(listed[1]).toEqual({ refundId: 're_0001', chargeId: 'pi_0001', amount: 101, currency: 'eur', status: 'pending', failureCode: null, ourRefundId: 'refund-1', paymentId: 'payment-1', createdAt: new Date(1_795_900_001_000) });
    expect(listed).toHaveLength(120);

    const pages = requests.map((url) => [url.pathname, url.searchParams.get('starting_after'), url.searchParams.get('created[gte]'), url.searchParams.get('created[lt]')]);
    const [gte, lt] = [String(window.since.getTime() / 1000), String(window.until.getTime() / 1000)];
    expect(pages).toEqual([
      ['/v1/payment_intents', null, gte, lt],
      ['/v1/payment_intents', 'pi_0099', gte, lt],
      ['/v1/payment_intents', 'pi_0199', gte, lt],
      ['/v1/refunds', null, gte, lt],
      ['/v1/refunds', 're_0099', gte, lt],
    ]);
  });
});
