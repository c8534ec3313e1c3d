import { randomUUID } from 'node:crypto';

import { newWorkspace, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { failure } from './support/responses.js';
import { eventsAbout, salesDb } from './support/sales.js';
import { paidOrder, refund, sellingElement } from './support/refunds.js';

// Refunds under concurrency, through the suite's server (it runs on the embedded PostgreSQL
// unless TEST_ADMIN_DATABASE_URL is set: `.ci/run` runs both). Money is checked where it moves:
// the sandbox processor's own books and our refund rows in SQL.

const SLOW = 180_000;

let ws: Workspace;
let element: string;

beforeAll(async () => {
  ws = await newWorkspace('Refunds concurrency', ['testMode=true']);
  element = (await sellingElement(ws)).id;
}, SLOW);

/**
 * Every answer of a burst. A 503 (the database too busy to take the request in time, on a loaded
 * machine) is retried with the same body and key, as integrators retry: each answer is the final one.
 */
const burst = <T extends { response: Response }>(n: number, send: (i: number) => Promise<T>) =>
  Promise.all(
    Array.from({ length: n }, async (_, i) => {
      for (let tries = 1; ; tries += 1) {
        const answer = await send(i);
        if (answer.response.status !== 503 || tries === 10) return answer;
      }
    }),
  );

test(
  '50 identical requests with one key: exactly one refund at the processor and in our books, 49 replays, one event',
  async () => {
    const { order, payment } = await paidOrder(element);
    const key = `concurrent-${randomUUID()}`;
    const answers = await burst(50, () => refund(ws, order.id, { amount: 100, idempotencyKey: key, reason: 'same' }));
    expect(answers.map((a) => a.response.status)).toEqual(Array(50).fill(200));
    const bodies = answers.map((a) => a.data!.data);
    expect(new Set(bodies.map((b) => b.refundId)).size).toBe(1);
    expect(bodies.filter((b) => !b.replayed)).toHaveLength(1);
    expect(bodies.filter((b) => b.replayed)).toHaveLength(49);
    expect(await salesDb().refund.count({ where: { orderId: order.id } })).toBe(1);
    await eventually(() => salesDb().refund.count({ where: { orderId: order.id, status: 'pending' } }), (n) => n === 0, 90_000);
    const atProcessor = await salesDb().sandboxRefund.findMany({ where: { charge: { paymentId: payment.id } } });
    expect(atProcessor.map((r) => r.amount)).toEqual([100]);
    expect(await eventsAbout(ws, 'payment_refunded', 'payment', payment.id)).toHaveLength(1);
  },
  SLOW,
);

test(
  '50 distinct partials whose sum exceeds the order never refund more than its value, at the processor and in SQL',
  async () => {
    const { order, payment } = await paidOrder(element);
    expect(order.value).toBe(1000);
    const keys = Array.from({ length: 50 }, (_, i) => `partial-${i}-${randomUUID()}`);
    const answers = await Promise.all((await burst(50, (i) => refund(ws, order.id, { amount: 30, idempotencyKey: keys[i] }))).map((answer) => failure(Promise.resolve(answer))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 200 && s !== 400)).toEqual([]);
    const accepted = statuses.filter((s) => s === 200).length;
    expect(accepted).toBe(33);
    for (const refused of answers.filter((a) => a.status === 400)) expect(refused.body.error.message).toMatch(/exceeds the 10 still refundable|exceeds the \d+ still refundable/);
    // Under load an answer may come before its workflow ends (REFUND_WAIT_MS): wait for every refund to settle.
    await eventually(() => salesDb().refund.count({ where: { orderId: order.id, status: 'pending' } }), (n) => n === 0, 90_000);
    const [sql] = await salesDb().$queryRaw<{ sum: bigint }[]>`SELECT COALESCE(SUM(amount), 0) AS sum FROM "Refund" WHERE "orderId" = ${order.id}::uuid AND status <> 'failed'`;
    expect(Number(sql!.sum)).toBe(990);
    const atProcessor = await salesDb().sandboxRefund.aggregate({ where: { charge: { paymentId: payment.id } }, _sum: { amount: true } });
    expect(atProcessor._sum.amount).toBe(990);
    const charged = await salesDb().sandboxCharge.findFirstOrThrow({ where: { paymentId: payment.id } });
    expect(charged.amountRefunded).toBe(990);
    expect(await salesDb().payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ refundedAmount: 990, status: 'PARTIALLY_REFUNDED' });
  },
  SLOW,
);
