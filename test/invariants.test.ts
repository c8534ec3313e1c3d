import { randomUUID } from 'node:crypto';

import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { invariantViolations } from './support/invariants.js';
import { paidOrder, refundUnits, sellingElement } from './support/refunds.js';
import { salesDb } from './support/sales.js';

// The money invariants checker (test/support/invariants.ts) can fail: a workspace whose books hold
// passes; each row corrupted on its own (then put back) breaks the invariant that guards it.

let ws: Workspace;
const since = new Date();
const check = () => invariantViolations(process.env.DATABASE_URL!, { workspaceIds: [ws.workspaceId], since });

beforeAll(async () => {
  ws = await newWorkspace('Invariants', ['testMode=true']);
  const element = (await sellingElement(ws)).id;
  const { order } = await paidOrder(element, { quantity: 2 });
  const [item] = await salesDb().orderItem.findMany({ where: { orderId: order.id } });
  await refundUnits(ws, order.id, [{ id: item!.id, quantity: 1 }]);
}, 120_000);

/** Applies a corruption, checks, and puts the row back whatever happened. */
async function corrupted(corrupt: () => Promise<unknown>, restore: () => Promise<unknown>): Promise<string[]> {
  await corrupt();
  try {
    return await check();
  } finally {
    await restore();
  }
}

test('books that hold pass', async () => {
  expect(await check()).toEqual([]);
});

test('a payment refunded more than it recorded breaks the refundedAmount invariant alone', async () => {
  const payment = await salesDb().payment.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
  const violations = await corrupted(
    () => salesDb().payment.update({ where: { id: payment.id }, data: { refundedAmount: payment.refundedAmount + 1 } }),
    () => salesDb().payment.update({ where: { id: payment.id }, data: { refundedAmount: payment.refundedAmount } }),
  );
  expect(violations).toEqual([expect.stringMatching(/^a payment's refundedAmount is its refunds not failed .*"refundedAmount":1001/)]);
  expect(await check()).toEqual([]);
});

test('a payment whose status says REFUNDED while half came back, and an item with more units refunded than it has', async () => {
  const payment = await salesDb().payment.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
  expect(payment.status).toBe('PARTIALLY_REFUNDED');
  const status = await corrupted(
    () => salesDb().payment.update({ where: { id: payment.id }, data: { status: 'REFUNDED' } }),
    () => salesDb().payment.update({ where: { id: payment.id }, data: { status: payment.status } }),
  );
  expect(status).toEqual(expect.arrayContaining([expect.stringMatching(/^a paid payment's status follows its succeeded refunds/), expect.stringMatching(/^a refunded order's status follows its paid payments/)]));
  const item = await salesDb().orderItem.findFirstOrThrow({ where: { order: { workspaceId: ws.workspaceId } } });
  const units = await corrupted(
    () => salesDb().orderItem.update({ where: { id: item.id }, data: { refundedQuantity: 3 } }),
    () => salesDb().orderItem.update({ where: { id: item.id }, data: { refundedQuantity: item.refundedQuantity } }),
  );
  expect(units).toEqual([expect.stringMatching(/^refunded units <= units/)]);
});

test('more refunded than paid, and a fee returned twice', async () => {
  const part = await salesDb().refundPart.findFirstOrThrow({ where: { payment: { workspaceId: ws.workspaceId } } });
  const violations = await corrupted(
    () => salesDb().refundPart.update({ where: { id: part.id }, data: { amount: 5000, feeRefunded: 1000 } }),
    () => salesDb().refundPart.update({ where: { id: part.id }, data: { amount: part.amount, feeRefunded: part.feeRefunded } }),
  );
  expect(violations).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^succeeded refunds <= paid \(per payment\)/),
      expect.stringMatching(/^succeeded refunds <= paid \(per order/),
      expect.stringMatching(/^fee returned <= fee .*"row":"refund"/),
      expect.stringMatching(/^the reconciliation finds refund_amount/),
    ]),
  );
});

test('a sandbox charge that no charge of ours records, and a processor refund that no refund part is, break the processor invariants and the reconciliation', async () => {
  const payment = await salesDb().payment.findFirstOrThrow({ where: { workspaceId: ws.workspaceId } });
  const sandbox = new SandboxProcessor({ prisma: salesDb() });
  const stray = await sandbox.createCharge({
    paymentId: payment.id, idempotencyKey: `stray-${randomUUID()}`, amount: payment.amount, currency: payment.currency, method: 'card',
    card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' }, email: 'stray@example.com', livemode: false,
  });
  try {
    const charge = await check();
    expect(charge).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^every sandbox charge of a payment in scope is exactly one charge of ours.*${stray.chargeId}`)),
        expect.stringMatching(new RegExp(`^the reconciliation finds charge_status \\(a second success for a payment paid by another charge.*${stray.chargeId}`)),
      ]),
    );
    const dashboard = await sandbox.refund({ chargeId: stray.chargeId, amount: 100, idempotencyKey: `dashboard-${randomUUID()}` });
    expect(await check()).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^every sandbox refund of a charge in scope is exactly one refund part of ours.*${dashboard.refundId}`))]));
  } finally {
    await salesDb().sandboxEvent.deleteMany({ where: { chargeId: stray.chargeId } });
    await salesDb().sandboxRefund.deleteMany({ where: { chargeId: stray.chargeId } });
    await salesDb().sandboxCharge.delete({ where: { id: stray.chargeId } });
  }
  expect(await check()).toEqual([]);
});
