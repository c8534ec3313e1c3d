import fc from 'fast-check';

import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { operationAt, readDocument } from './support/openapi.js';
import { salesDb } from './support/sales.js';
import { paidOrder, sellingElement, TEST } from './support/refunds.js';

// PATCH /v0/orders/{orderIdOrNumber}/refund under hostile bodies (fast-check): arbitrary JSON,
// wrong types, odd strings, amounts around the limits, bad items and keys. Never a 5xx; every
// answer in the envelope and as the published document describes it; a rejected request writes
// nothing (refunds, parts, events, reserved money and units, the processor's refunds); what is
// accepted never takes more than the order's value. REFUND_FUZZ_RUNS scales the runs.

const RUNS = Number(process.env.REFUND_FUZZ_RUNS ?? 80);
const SLOW = 240_000;

const document = await readDocument();
const knownIds: string[] = [];
const kit = fuzzKit(document, knownIds);

let ws: Workspace;
let order: { id: string; number: string };
let paymentId: string;
let itemId: string;

beforeAll(async () => {
  ws = await newWorkspace('Refunds fuzz', ['testMode=true']);
  const paid = await paidOrder((await sellingElement(ws)).id, { quantity: 3 });
  order = paid.order;
  paymentId = paid.payment.id;
  itemId = (await salesDb().orderItem.findFirstOrThrow({ where: { orderId: order.id } })).id;
  knownIds.push(order.id, itemId, paymentId);
}, SLOW);

/** Everything a refund request can write. */
async function tally() {
  const db = salesDb();
  const [refunds, parts, events, payment, items, atProcessor] = await Promise.all([
    db.refund.count({ where: { workspaceId: ws.workspaceId } }),
    db.refundPart.count({ where: { refund: { workspaceId: ws.workspaceId } } }),
    db.event.count({ where: { workspaceId: ws.workspaceId } }),
    db.payment.findUniqueOrThrow({ where: { id: paymentId }, select: { refundedAmount: true, fee: true, status: true } }),
    db.orderItem.aggregate({ where: { orderId: order.id }, _sum: { refundedQuantity: true } }),
    db.sandboxRefund.aggregate({ where: { charge: { paymentId } }, _count: true, _sum: { amount: true } }),
  ]);
  return { refunds, parts, events, payment, units: items._sum.refundedQuantity ?? 0, processorRefunds: atProcessor._count, processorSum: atProcessor._sum.amount ?? 0 };
}

/** Bodies near the real thing (made once the order's item exists). */
const plausibleBody = () =>
  fc
  .record(
    {
      amount: fc.oneof(fc.integer({ min: -2, max: 40 }), fc.constantFrom(0, 3001, 2 ** 31, 1.5, '10', null, 1e20)),
      reason: fc.oneof(kit.anyString, fc.constant(null)),
      idempotencyKey: fc.oneof(kit.anyString, kit.aroundMaxLength(255), fc.constant(null)),
      metadata: fc.oneof(kit.json, fc.constant(null)),
      items: fc.oneof(
        fc.array(fc.record({ id: fc.oneof(fc.constant(itemId), fc.uuid(), kit.anyString), quantity: fc.oneof(fc.integer({ min: -1, max: 4 }), kit.anyInt) }), { maxLength: 3 }),
        kit.json,
      ),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));

test(
  'hostile bodies: never a 5xx, always the documented envelope, nothing written on rejection, never more than the order refunded',
  async () => {
    const path = `/v0/orders/${order.id}/refund`;
    const operation = operationAt(document, 'PATCH', path);
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: plausibleBody() }, { weight: 2, arbitrary: kit.bodyFor(operation) }), async (body) => {
        const before = await tally();
        const request: Sent = { method: 'PATCH', path, query: '', keys: keyHeaders(ws, TEST), body };
        const response = await send(baseUrl(), request);
        checkAnswer(document, request, response, operation);
        const after = await tally();
        // A refused request wrote nothing.
        expect(response.status === 200 ? before : after).toEqual(before);
        expect(after.processorSum).toBeLessThanOrEqual(3000);
        expect(after.payment.refundedAmount).toBeLessThanOrEqual(3000);
      }),
      { numRuns: RUNS },
    );
    const [sql] = await salesDb().$queryRaw<{ sum: bigint }[]>`SELECT COALESCE(SUM(amount), 0) AS sum FROM "Refund" WHERE "orderId" = ${order.id}::uuid AND status <> 'failed'`;
    expect(Number(sql!.sum)).toBe((await tally()).processorSum);
  },
  SLOW,
);
