import { randomUUID } from 'node:crypto';

import fc from 'fast-check';

import type { SandboxProcessor } from '../../src/payments/processors/sandbox.js';
import type { Workspace } from './api.js';
import { card, eventually, orderBody, placeOrder } from './checkout.js';
import { buyerClient, restClient } from './client.js';
import { deliverAgain, expectBalancesHold, expectBooksAsModelled } from './money-books.js';
import { bookFailure, bookSuccess, CARD_NUMBERS, feeOf, planRefund, refundStatus, settlingCount, type Card, type MOrder, type MRefund, type Model, type RefundKind } from './money-model.js';
import { AUTHENTICATE, refund, TEST } from './refunds.js';
import { ok } from './responses.js';
import { salesDb } from './sales.js';
import { cancel, subscribe } from './subscriptions.js';

// The commands of test/money-model.test.ts: each acts on the workspace over HTTP (and on the
// sandbox as the processor would), applies the same change to the model, then checks the books
// against the model and the workspace's balances.

export interface Real {
  ws: Workspace;
  /** One-time checkout elements and their prices (one cent-odd, so units round). */
  elements: Array<{ id: string; price: number }>;
  subscriptionElement: string;
  sandbox: SandboxProcessor;
}

export type Command = fc.AsyncCommand<Model, Real>;

/** The commands' checks of the answers they get (functions: Jest's lint takes expect in a class's method for one outside a test). */
function same(actual: unknown, expected: unknown) {
  expect(actual).toEqual(expected);
}
function like(actual: unknown, expected: Record<string, unknown>) {
  expect(actual).toMatchObject(expected);
}
const pick = <T>(list: readonly T[], index: number) => list[index % list.length]!;
const chargeOf = async (paymentId: string) => (await salesDb().payment.findUniqueOrThrow({ where: { id: paymentId } })).processorChargeId!;

/** After every command: the books as modelled, the balances held. */
async function verify(model: Model, r: Real) {
  await expectBooksAsModelled(model);
  await expectBalancesHold(r.ws.workspaceId);
}

/** The model's refunds whose parts wait for a processor's failure webhook (the refund_fail card), failed once their events are delivered. */
function failPendingOn(order: MOrder, paymentIds: readonly string[]) {
  for (const part of order.refunds.flatMap((x) => x.parts)) if (part.status === 'pending' && paymentIds.includes(part.paymentId)) bookFailure(order, part);
}

export class Buy implements Command {
  constructor(readonly element: number, readonly quantity: number, readonly card: Card) {}
  check = (m: Model) => m.orders.length < 8;
  async run(m: Model, r: Real) {
    const { id, price } = pick(r.elements, this.element);
    const { order, payment } = await placeOrder(id, orderBody({ card: card(CARD_NUMBERS[this.card]), quantity: this.quantity }));
    const items = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
    same(order.value, price * this.quantity);
    m.orders.push({
      id: order.id, number: order.number, unpaid: null, fee0: feeOf(order.value), refunds: [],
      payments: [{ id: payment.id, sequence: 1, amount: order.value, fee0: feeOf(order.value), card: this.card, disputed: false }],
      items: items.map((i) => ({ id: i.id, quantity: i.quantity, line: price * i.quantity, refunded: 0 })),
    });
    await verify(m, r);
  }
  toString = () => `Buy(${this.element}, ${this.quantity}, ${this.card})`;
}

/** A 3-D Secure payment left pending, then cancelled through the API: nothing paid, nothing refundable. */
export class BuyAndCancel implements Command {
  check = (m: Model) => m.orders.length < 8;
  async run(m: Model, r: Real) {
    const { order, payment } = await placeOrder(r.elements[0]!.id, orderBody({ card: card(AUTHENTICATE) }));
    same(payment.status, 'PENDING');
    same(await ok(restClient(r.ws, TEST).PATCH('/v0/payments/{paymentId}/cancel', { params: { path: { paymentId: payment.id } }, body: {} })), { success: true });
    // The processor cancels the charge; its confirmation comes by webhook (the suite's server leaves the sandbox's outbox to the tests).
    const charge = await eventually(() => salesDb().sandboxCharge.findFirst({ where: { paymentId: payment.id } }), (c) => c?.status === 'cancelled', 60_000);
    await deliverAgain([charge!.id]);
    await eventually(() => salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } }), (p) => p.status === 'CANCELLED', 60_000);
    const items = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
    m.orders.push({
      id: order.id, number: order.number, unpaid: 'CANCELLED', fee0: feeOf(order.value), refunds: [], payments: [],
      items: items.map((i) => ({ id: i.id, quantity: i.quantity, line: order.value, refunded: 0 })),
    });
    await verify(m, r);
  }
  toString = () => 'BuyAndCancel';
}

export class Subscribe implements Command {
  constructor(readonly card: Card) {}
  check = (m: Model) => m.orders.filter((o) => o.subscription).length < 3;
  async run(m: Model, r: Real) {
    const { order, subscription } = await subscribe(r.ws, r.subscriptionElement, { cardNumber: CARD_NUMBERS[this.card] });
    const payment = await salesDb().payment.findFirstOrThrow({ where: { orderId: order.id, sequence: 1 } });
    const [item] = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
    m.orders.push({
      id: order.id, number: order.number, unpaid: null, fee0: feeOf(900), refunds: [],
      payments: [{ id: payment.id, sequence: 1, amount: 900, fee0: feeOf(900), card: this.card, disputed: false }],
      items: [{ id: item!.id, quantity: 1, line: 900, refunded: 0 }],
      subscription: { id: subscription.id, number: subscription.number, card: this.card, ended: false, period: 1 },
    });
    await verify(m, r);
  }
  toString = () => `Subscribe(${this.card})`;
}

export class Refund implements Command {
  constructor(readonly order: number, readonly request: RefundKind) {}
  check = (m: Model) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const order = pick(m.orders, this.order);
    const plan = planRefund(order, this.request, settlingCount(m));
    const key = `model-${randomUUID()}`;
    const { data, response } = await refund(r.ws, order.id, { ...plan.body, idempotencyKey: key });
    if (plan.refused) {
      same([response.status, plan], [400, plan]);
      return verify(m, r);
    }
    same([response.status, data?.data.amount], [200, plan.amount]);
    const refundId = data!.data.refundId;
    const refunded: MRefund = {
      id: refundId, key, body: plan.body, amount: plan.amount, items: plan.items,
      parts: plan.shares.map((s) => ({ paymentId: s.payment.id, amount: s.amount, status: 'pending', fee: 0, processorRefundId: null })),
    };
    for (const item of order.items) item.refunded += plan.items.find((u) => u.id === item.id)?.quantity ?? 0;
    order.refunds.push(refunded);
    // Every part answered by the processor (a refund_fail card's answer is pending: its failure comes by webhook).
    const parts = await eventually(() => salesDb().refundPart.findMany({ where: { refundId } }), (ps) => ps.every((p) => p.processorRefundId !== null), 60_000);
    for (const part of refunded.parts) {
      part.processorRefundId = parts.find((p) => p.paymentId === part.paymentId)!.processorRefundId;
      const payment = order.payments.find((p) => p.id === part.paymentId)!;
      if (payment.card === 'succeed') bookSuccess(order, part);
    }
    await eventually(() => salesDb().refund.findUniqueOrThrow({ where: { id: refundId } }), (x) => x.status === refundStatus(refunded), 60_000);
    await verify(m, r);
  }
  toString = () => `Refund(${this.order}, ${JSON.stringify(this.request)})`;
}

/** The same key and body again: the same refund while a fresh check would still take it, else 400. */
export class Retry implements Command {
  constructor(readonly refund: number) {}
  check = (m: Model) => m.orders.some((o) => o.refunds.length > 0);
  async run(m: Model, r: Real) {
    const order = pick(m.orders.filter((o) => o.refunds.length > 0), this.refund);
    const earlier = pick(order.refunds, this.refund);
    const { data, response } = await refund(r.ws, order.id, { ...earlier.body, idempotencyKey: earlier.key });
    const left = planRefund(order, { kind: 'full' }, 0).amount;
    const full = earlier.body.amount === undefined && earlier.body.items === undefined;
    const refused = full || left === 0 || earlier.amount > left;
    same([response.status, data?.data.refundId], refused ? [400, undefined] : [200, earlier.id]);
    await verify(m, r);
  }
  toString = () => `Retry(${this.refund})`;
}

/** The processor fails a refund that had succeeded (the card was closed meanwhile); its webhook is delivered. */
export class FailLater implements Command {
  constructor(readonly part: number) {}
  check = (m: Model) => m.orders.some((o) => o.refunds.some((x) => x.parts.some((p) => p.status === 'succeeded')));
  async run(m: Model, r: Real) {
    const candidates = m.orders.flatMap((order) => order.refunds.flatMap((x) => x.parts.filter((p) => p.status === 'succeeded').map((part) => ({ order, part }))));
    const { order, part } = pick(candidates, this.part);
    await r.sandbox.failRefund(part.processorRefundId!);
    await deliverAgain([await chargeOf(part.paymentId)]);
    bookFailure(order, part);
    failPendingOn(order, [part.paymentId]);
    await verify(m, r);
  }
  toString = () => `FailLater(${this.part})`;
}

/** The processor's events about an order's charges delivered again, every one, in the order given. */
export class Redeliver implements Command {
  constructor(readonly order: number, readonly seed: number) {}
  check = (m: Model) => m.orders.some((o) => o.payments.length > 0);
  async run(m: Model, r: Real) {
    const order = pick(m.orders.filter((o) => o.payments.length > 0), this.order);
    const chargeIds = await Promise.all(order.payments.map((p) => chargeOf(p.id)));
    const shuffle = (n: number) => fc.sample(fc.shuffledSubarray([...Array(n).keys()], { minLength: n }), { seed: this.seed, numRuns: 1 })[0]!;
    await deliverAgain(chargeIds, shuffle);
    failPendingOn(order, order.payments.map((p) => p.id));
    await verify(m, r);
  }
  toString = () => `Redeliver(${this.order}, ${this.seed})`;
}

/** The cardholder disputes the newest undisputed payment of an order: its money is blocked from refunds. */
export class Dispute implements Command {
  constructor(readonly order: number) {}
  check = (m: Model) => m.orders.some((o) => o.payments.some((p) => !p.disputed));
  async run(m: Model, r: Real) {
    const order = pick(m.orders.filter((o) => o.payments.some((p) => !p.disputed)), this.order);
    const payment = [...order.payments].reverse().find((p) => !p.disputed)!;
    const { response } = await restClient(r.ws, TEST).POST('/v0/test-helpers/payments/{paymentId}/dispute', { params: { path: { paymentId: payment.id } }, body: {} });
    same(response.status, 200);
    payment.disputed = true;
    await verify(m, r);
  }
  toString = () => `Dispute(${this.order})`;
}

const liveSubscription = (m: Model, index: number) => pick(m.orders.filter((o) => o.subscription && !o.subscription.ended), index);

/** A subscription's test clock past its period end: one renewal, paid on its current card. */
export class Renew implements Command {
  constructor(readonly subscription: number) {}
  check = (m: Model) => m.orders.some((o) => o.subscription && !o.subscription.ended && o.subscription.period < 4);
  async run(m: Model, r: Real) {
    const order = pick(m.orders.filter((o) => o.subscription && !o.subscription.ended && o.subscription.period < 4), this.subscription);
    const s = order.subscription!;
    const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: s.id } });
    const to = Math.floor(row.currentPeriodEnd!.getTime() / 1000) + 60;
    const { response } = await restClient(r.ws, TEST).POST('/v0/test-helpers/subscriptions/{subscriptionIdOrNumber}/advance', { params: { path: { subscriptionIdOrNumber: s.number } }, body: { to } });
    same(response.status, 200);
    s.period += 1;
    const renewal = await eventually(() => salesDb().payment.findFirst({ where: { subscriptionId: s.id, subscriptionPeriod: s.period } }), (p) => p?.status === 'PAID', 60_000);
    like(renewal, { amount: 900, fee: feeOf(900) });
    const charge = await salesDb().sandboxCharge.findUniqueOrThrow({ where: { id: renewal!.processorChargeId! }, include: { paymentMethod: true } });
    same(charge.paymentMethod?.behaviour, s.card);
    // A renewal pays for every unit again (an order its refunds emptied is partly refunded again).
    order.payments.push({ id: renewal!.id, sequence: renewal!.sequence, amount: 900, fee0: feeOf(900), card: s.card, disputed: false });
    for (const item of order.items) item.refunded = 0;
    await verify(m, r);
  }
  toString = () => `Renew(${this.subscription})`;
}

/** The buyer replaces the subscription's card through a payment-method session's hosted page. */
export class ReplaceCard implements Command {
  constructor(readonly subscription: number, readonly card: Card) {}
  check = (m: Model) => m.orders.some((o) => o.subscription && !o.subscription.ended);
  async run(m: Model, r: Real) {
    const s = liveSubscription(m, this.subscription).subscription!;
    const { sessionToken } = await ok(restClient(r.ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: s.number } }, body: {} }));
    await ok(buyerClient().POST('/payment-method/{subscriptionId}/{sessionToken}/complete', { params: { path: { subscriptionId: s.id, sessionToken } }, body: { card: card(CARD_NUMBERS[this.card]) } }));
    s.card = this.card;
    await verify(m, r);
  }
  toString = () => `ReplaceCard(${this.subscription}, ${this.card})`;
}

/** A subscription cancelled at once: no more renewals; what was paid stays refundable. */
export class CancelSubscription implements Command {
  constructor(readonly subscription: number) {}
  check = (m: Model) => m.orders.some((o) => o.subscription && !o.subscription.ended);
  async run(m: Model, r: Real) {
    const s = liveSubscription(m, this.subscription).subscription!;
    await ok(cancel(r.ws, s.number, { cancelAtIntervalEnd: false }));
    s.ended = true;
    await verify(m, r);
  }
  toString = () => `CancelSubscription(${this.subscription})`;
}

