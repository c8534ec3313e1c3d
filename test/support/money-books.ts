import type { ProcessorEvent } from '../../src/payments/processors/processor.js';
import { SandboxProcessor } from '../../src/payments/processors/sandbox.js';
import { SandboxWebhooks } from '../../src/payments/processors/sandbox-events.js';
import { baseUrl } from './api.js';
import { feeOf, orderFeeNow, orderStatus, paymentFeeNow, paymentStatus, refundStatus, reservedOn, type Model } from './money-model.js';
import { salesDb } from './sales.js';

// The stored books read beneath the API, compared with the model of ./money-model.ts, and the
// balances every workspace's books must keep whatever happened to them (the invariants, as
// far as this model's test needs them), and the processor's webhooks delivered again.

const PAID = ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'];
const RESERVING = ['pending', 'succeeded', 'requires_attention'];

/** A refund's parts, one per payment, by their payment: the model lists them newest payment first, the rows come in whatever order the table gives. */
const byPayment = <Part extends readonly unknown[]>(parts: Part[]) => parts.sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/** The model's orders as stored: statuses, amounts, fees, units, refunds and their parts. */
export async function expectBooksAsModelled(model: Model): Promise<void> {
  const rows = await salesDb().order.findMany({
    where: { id: { in: model.orders.map((o) => o.id) } },
    include: { payments: { where: { status: { in: PAID as never } } }, items: true, refunds: { include: { parts: true } } },
  });
  const stored = new Map(rows.map((row) => [row.id, row]));
  const shown = model.orders.map((order) => {
    const row = stored.get(order.id)!;
    const payments = new Map(row.payments.map((p) => [p.id, p]));
    const refunds = new Map(row.refunds.map((r) => [r.id, r]));
    return {
      expected: {
        order: order.number, status: orderStatus(order), fee: orderFeeNow(order),
        payments: order.payments.map((p) => ({ id: p.id, status: paymentStatus(order, p), refunded: reservedOn(order, p), fee: paymentFeeNow(order, p), disputed: p.disputed })),
        units: order.items.map((i) => i.refunded),
        refunds: order.refunds.map((r) => ({ id: r.id, status: refundStatus(r), amount: r.amount, fee: r.parts.reduce((a, p) => a + p.fee, 0), parts: byPayment(r.parts.map((p) => [p.paymentId, p.amount, p.status, p.fee])) })),
      },
      stored: {
        order: row.number, status: row.status, fee: row.fee,
        payments: order.payments.map((p) => payments.get(p.id)).map((p) => p && { id: p.id, status: p.status, refunded: p.refundedAmount, fee: p.fee, disputed: p.disputed }),
        units: order.items.map((i) => row.items.find((x) => x.id === i.id)?.refundedQuantity),
        refunds: order.refunds.map((r) => refunds.get(r.id)).map((r) => r && { id: r.id, status: r.status, amount: r.amount, fee: r.feeRefunded, parts: byPayment(r.parts.map((p) => [p.paymentId, p.amount, p.status, p.feeRefunded])) }),
      },
    };
  });
  expect(shown.map((s) => s.stored)).toEqual(shown.map((s) => s.expected));
  // No refund the model does not know of.
  expect(rows.flatMap((r) => r.refunds.map((x) => x.id)).sort()).toEqual(model.orders.flatMap((o) => o.refunds.map((r) => r.id)).sort());
}

/**
 * The balances of every order of the workspace: succeeded refunds within what was paid, what is
 * reserved as the refunds say, statuses agreeing with the amounts, refunded units within the
 * units, fees within what was charged, and every sandbox charge and refund of the workspace's
 * payments belonging to exactly one payment and one refund part, in the same state.
 */
export async function expectBalancesHold(workspaceId: string): Promise<void> {
  const db = salesDb();
  const orders = await db.order.findMany({ where: { workspaceId }, include: { payments: { include: { refundParts: { include: { refund: true } }, charges: true } }, items: true, refunds: { include: { parts: true } } } });
  const problems: string[] = [];
  const say = (order: { number: string }, what: string) => problems.push(`${order.number}: ${what}`);
  for (const order of orders) {
    const paid = order.payments.filter((p) => PAID.includes(p.status));
    for (const p of order.payments) {
      const onBooks = p.refundParts.filter((x) => x.refund.source === 'api');
      const succeeded = onBooks.filter((x) => x.status === 'succeeded').reduce((a, x) => a + x.amount, 0);
      const reserved = onBooks.filter((x) => RESERVING.includes(x.status)).reduce((a, x) => a + x.amount, 0);
      const feeBack = onBooks.filter((x) => x.status === 'succeeded').reduce((a, x) => a + x.feeRefunded, 0);
      if (succeeded > p.amount) say(order, `payment ${p.number} refunded ${succeeded} of ${p.amount}`);
      if (reserved !== p.refundedAmount) say(order, `payment ${p.number} reserves ${p.refundedAmount}, its refunds ${reserved}`);
      if (!PAID.includes(p.status)) {
        if (reserved > 0) say(order, `payment ${p.number} is ${p.status} with ${reserved} refunded`);
        continue;
      }
      const status = succeeded === 0 ? 'PAID' : succeeded >= p.amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
      if (p.status !== status) say(order, `payment ${p.number} is ${p.status} with ${succeeded} of ${p.amount} refunded`);
      if (p.fee < 0 || p.fee + feeBack !== feeOf(p.amount - p.tax)) say(order, `payment ${p.number} fee ${p.fee} + ${feeBack} given back is not its fee ${feeOf(p.amount - p.tax)}`);
    }
    // A payment of 0 (a trial's first) has nothing to refund: the order's status follows the others.
    const withMoney = paid.filter((p) => p.amount > 0);
    if (withMoney.length > 0) {
      const status = withMoney.every((p) => p.status === 'REFUNDED') ? 'REFUNDED' : withMoney.some((p) => p.status !== 'PAID') ? 'PARTIALLY_REFUNDED' : 'PAID';
      if (order.status !== status) say(order, `order is ${order.status}, its payments ${withMoney.map((p) => p.status).join(',')}`);
    }
    if (order.fee < 0) say(order, `order fee ${order.fee}`);
    for (const item of order.items) if (item.refundedQuantity < 0 || item.refundedQuantity > item.quantity) say(order, `item ${item.id} refunded ${item.refundedQuantity} of ${item.quantity}`);
    for (const refund of order.refunds) {
      if (refund.parts.reduce((a, x) => a + x.amount, 0) !== refund.amount) say(order, `refund ${refund.id} of ${refund.amount} has parts of another sum`);
      if (refund.parts.reduce((a, x) => a + x.feeRefunded, 0) !== refund.feeRefunded) say(order, `refund ${refund.id} fee ${refund.feeRefunded} is not its parts'`);
    }
  }
  problems.push(...(await processorProblems(workspaceId)));
  expect(problems).toEqual([]);
}

/** Each sandbox charge of the workspace's payments is one payment's (or one charge attempt's); each sandbox refund is one part's, in the same state. */
async function processorProblems(workspaceId: string): Promise<string[]> {
  const db = salesDb();
  const payments = await db.payment.findMany({ where: { workspaceId }, select: { id: true, processorChargeId: true, charges: { select: { processorChargeId: true } } } });
  const charges = await db.sandboxCharge.findMany({ where: { paymentId: { in: payments.map((p) => p.id) } }, include: { refunds: true } });
  const parts = await db.refundPart.findMany({ where: { processor: 'sandbox', processorChargeId: { in: charges.map((c) => c.id) } } });
  const unacknowledged = new Set(
    (await db.sandboxEvent.findMany({ where: { chargeId: { in: charges.map((c) => c.id) }, acknowledgedAt: null, type: 'refund.failed' } })).map((e) => (e.payload as { refundId?: string }).refundId),
  );
  const problems: string[] = [];
  for (const charge of charges) {
    const owners = payments.filter((p) => p.id === charge.paymentId && (p.processorChargeId === charge.id || p.charges.some((c) => c.processorChargeId === charge.id)));
    if (owners.length !== 1) problems.push(`sandbox charge ${charge.id} belongs to ${owners.length} payments`);
    for (const refund of charge.refunds) {
      const own = parts.filter((p) => p.processorRefundId === refund.id);
      if (own.length !== 1) {
        problems.push(`sandbox refund ${refund.id} belongs to ${own.length} refund parts`);
        continue;
      }
      const part = own[0]!;
      const agrees = part.status === refund.status || (refund.status === 'failed' && part.status === 'pending' && unacknowledged.has(refund.id));
      if (!agrees || part.amount !== refund.amount || part.processorChargeId !== charge.id) problems.push(`sandbox refund ${refund.id} ${refund.status} ${refund.amount}, its part ${part.status} ${part.amount}`);
    }
  }
  return problems;
}

/**
 * The sandbox's events about these charges, delivered (again) through the webhook ingress in the
 * order given by `order` (a permutation seed), acknowledged or not, as a processor redelivers.
 */
export async function deliverAgain(chargeIds: readonly string[], shuffle: (n: number) => number[] = (n) => [...Array(n).keys()]): Promise<number> {
  const webhooks = new SandboxWebhooks(salesDb(), () => new Date());
  const sandbox = new SandboxProcessor({ prisma: salesDb() });
  const rows = await salesDb().sandboxEvent.findMany({ where: { chargeId: { in: [...chargeIds] } }, orderBy: { sequence: 'asc' } });
  for (const index of shuffle(rows.length)) {
    const webhook = await webhooks.sign(rows[index]!.payload as unknown as ProcessorEvent);
    const response = await fetch(`${baseUrl()}/processor-webhooks/sandbox`, { method: 'POST', body: webhook.rawBody, headers: webhook.headers });
    if (response.status !== 200) throw new Error(`webhook ${rows[index]!.type} answered ${response.status}: ${await response.text()}`);
    await sandbox.acknowledgeWebhook(webhook.eventId);
  }
  return rows.length;
}
