import fc from 'fast-check';

import { DERIVED_DEDUP_WINDOW_MS, dedupBucket, feeReturned, feeToReturn, refundFingerprint, refundWorkflowId, unitsValue } from '../src/refunds/plan.js';

// The refunds' pure rules: cumulative rounding (partials add up to one full refund), the body's
// fingerprint, and the workflow id from the business key.

const RULE = { basisPoints: 500, fixed: 50 };

test('fee shares of any split of a payment add up to what one full refund returns: the percentage part, the fixed part kept', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 20 }), (amount, weights) => {
      const fee = Math.min(amount, Math.floor((amount * 500 + 5_000) / 10_000) + 50);
      const total = weights.reduce((a, b) => a + b, 0);
      let refunded = 0;
      let returned = 0;
      weights.forEach((w, i) => {
        const part = i === weights.length - 1 ? amount - refunded : Math.floor((amount * w) / total);
        returned += feeReturned({ amount, fee, feeRefunded: 0 }, refunded, refunded + part, RULE);
        refunded += part;
      });
      expect(returned).toBe(fee - Math.min(50, fee));
    }),
  );
});

test('shares booked against what came back: whatever fails after succeeding, the fee returned never exceeds the percentage part and ends exactly at it', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.boolean()), { minLength: 1, maxLength: 20 }), (amount, steps) => {
      const paid = Math.min(amount, Math.floor((amount * 500 + 5_000) / 10_000) + 50);
      const variable = paid - Math.min(50, paid);
      const booked: Array<{ amount: number; fee: number }> = [];
      const refunded = () => booked.reduce((sum, p) => sum + p.amount, 0);
      const returned = () => booked.reduce((sum, p) => sum + p.fee, 0);
      const succeed = (part: number) => {
        const fee = feeToReturn({ amount, fee: paid - returned(), feeRefunded: returned() }, refunded() + part, RULE);
        booked.push({ amount: part, fee });
      };
      for (const [weight, failsLater] of steps) {
        const part = Math.min(amount - refunded(), Math.max(1, Math.floor((amount * weight) / 5000)));
        if (part === 0) break;
        succeed(part);
        // A failure takes back exactly the part's own fee.
        if (failsLater && booked.length > 1) booked.splice(Math.floor(booked.length / 2), 1);
        expect(returned()).toBeLessThanOrEqual(variable);
        expect(returned()).toBeGreaterThanOrEqual(0);
      }
      if (refunded() < amount) succeed(amount - refunded());
      expect(returned()).toBe(variable);
    }),
  );
});

test('units are worth their share of the line, cumulatively: every unit refunded is the whole line', () => {
  const item = { id: 'i', quantity: 3, refundedQuantity: 0, unitPrice: 333, discount: 100, tax: 1, taxInclusive: false };
  const line = 333 * 3 - 100 + 1;
  const first = unitsValue(item, 1);
  const rest = unitsValue({ ...item, refundedQuantity: 1 }, 2);
  expect(first + rest).toBe(line);
  expect(unitsValue(item, 3)).toBe(line);
});

test('the fingerprint ignores key order in metadata and item order, and tells reason, metadata and amount apart', () => {
  const a = refundFingerprint({ amount: 100, reason: 'r', metadata: { x: 1, y: [1, 2] }, items: [{ id: 'B', quantity: 1 }, { id: 'a', quantity: 2 }] });
  const b = refundFingerprint({ amount: 100, reason: 'r', metadata: { y: [1, 2], x: 1 }, items: [{ id: 'a', quantity: 2 }, { id: 'b', quantity: 1 }] });
  expect(a).toBe(b);
  expect(refundFingerprint({ amount: 100, reason: 's', metadata: { x: 1, y: [1, 2] } })).not.toBe(refundFingerprint({ amount: 100, reason: 'r', metadata: { x: 1, y: [1, 2] } }));
  expect(refundFingerprint({ amount: 100 })).not.toBe(refundFingerprint({ amount: 101 }));
  expect(refundFingerprint({})).not.toBe(refundFingerprint({ metadata: { a: 1 } }));
});

test('workflow ids come from the business key; the derived one changes with the 23-hour bucket', () => {
  expect(refundWorkflowId('w', 'o', { idempotencyKey: 'order-42/refund-1' })).toBe('refund/w/o/key/order-42/refund-1');
  expect(refundWorkflowId('w', 'o', { idempotencyKey: 'clé espacée' })).toMatch(/^refund\/w\/o\/key\/sha256-[0-9a-f]{64}$/);
  const at = new Date(Math.floor(Date.now() / DERIVED_DEDUP_WINDOW_MS) * DERIVED_DEDUP_WINDOW_MS);
  const id = (ms: number) => refundWorkflowId('w', 'o', { fingerprint: 'f'.repeat(64), at: new Date(at.getTime() + ms) });
  expect(id(0)).toBe(`refund/w/o/body/${'f'.repeat(32)}/${dedupBucket(at)}`);
  expect(id(DERIVED_DEDUP_WINDOW_MS - 1)).toBe(id(0));
  expect(id(DERIVED_DEDUP_WINDOW_MS)).not.toBe(id(0));
});

test('every refund workflow id fits in 255 characters, whatever the key (the limit of Temporal on SQL persistence)', () => {
  const [workspace, order] = ['0190a6f2-6b1e-7c3d-8e4f-a5b6c7d8e9f0', '0190a6f2-6b1e-7c3d-8e4f-a5b6c7d8e9f1'];
  expect(refundWorkflowId(workspace, order, { idempotencyKey: 'k'.repeat(255) })).toMatch(/\/key\/sha256-[0-9a-f]{64}$/);
  fc.assert(
    fc.property(fc.oneof(fc.string({ minLength: 1, maxLength: 255, unit: 'grapheme-ascii' }), fc.string({ minLength: 1, maxLength: 255, unit: 'grapheme' })), (idempotencyKey) => {
      const id = refundWorkflowId(workspace, order, { idempotencyKey });
      expect(id.length).toBeLessThanOrEqual(255);
      // Another key names another refund.
      expect(refundWorkflowId(workspace, order, { idempotencyKey: `${idempotencyKey}x` })).not.toBe(id);
    }),
  );
});

test('a stranded charge names its own refund: two charges of one payment (a renewal retried) are two workflows, each within 255', () => {
  const [workspace, order, payment] = ['0190a6f2-6b1e-7c3d-8e4f-a5b6c7d8e9f0', '0190a6f2-6b1e-7c3d-8e4f-a5b6c7d8e9f1', '0190a6f2-6b1e-7c3d-8e4f-a5b6c7d8e9f2'];
  const first = refundWorkflowId(workspace, order, { expiredPaymentId: payment, chargeId: 'ch_3PqRsT0000000000000001' });
  expect(first).toBe(`refund/${workspace}/${order}/expired-payment/${payment}/ch_3PqRsT0000000000000001`);
  expect(refundWorkflowId(workspace, order, { expiredPaymentId: payment, chargeId: 'ch_3PqRsT0000000000000002' })).not.toBe(first);
  const long = refundWorkflowId(workspace, order, { expiredPaymentId: payment, chargeId: 'c'.repeat(300) });
  expect(long).toMatch(/\/sha256-[0-9a-f]{64}$/);
  expect(long.length).toBeLessThanOrEqual(255);
});
