import { randomUUID } from 'node:crypto';

import { createPrismaClient } from '../src/db/client.js';
import './support/domains.js';
import { startPayment } from '../src/payments/payment-flow.js';
import { SandboxProcessor } from '../src/payments/processors/sandbox.js';
import { ensureReconciliationSchedule, reconcile, reconciliationGauge, reconciliationScheduleId, type ReconciliationReport } from '../src/reconciliation/index.js';
import type { TemporalConnection } from '../src/temporal/client.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { eventually } from './support/checkout.js';
import { scratchDatabase, type ScratchDatabase } from './support/database.js';
import { execCli } from './support/processes.js';
import { ok } from './support/responses.js';
import { getOrder, getPayment, paidOrder, REFUND_FAILS, refund, refundUnits, sellingElement, suiteTemporal, TEST } from './support/refunds.js';
import { salesDb, seedOrder } from './support/sales.js';

// The reconciliation (src/reconciliation) against the sandbox, whose webhooks the suite's server
// never delivers (SANDBOX_WEBHOOK_DELIVERY=false): every change the processor made on its own stays
// in its outbox, unknown to us, as when a processor's webhooks are lost. One run finds each and
// repairs it through the webhooks' code; a second finds nothing. A charge that is no payment's is
// reported and left alone (a database of its own, so that the run may cover every workspace).

const SLOW = 180_000;

let ws: Workspace;
let element: string;
let temporal: TemporalConnection;
const sandbox = () => new SandboxProcessor({ prisma: salesDb() });
const started = new Date();

beforeAll(async () => {
  ws = await newWorkspace('Reconciliation', ['testMode=true']);
  element = (await sellingElement(ws)).id;
  temporal = await suiteTemporal();
}, SLOW);

afterAll(async () => {
  await temporal?.stop();
});

/** A run over this file's workspace, from the file's start until now. */
const run = (dryRun = false): Promise<ReconciliationReport> =>
  reconcile({ prisma: salesDb(), temporal, processor: sandbox(), now: () => new Date() }, { since: started, until: new Date(), workspaceIds: [ws.workspaceId], dryRun });

const chargeOf = async (paymentId: string) => (await salesDb().charge.findFirstOrThrow({ where: { paymentId }, orderBy: { attempt: 'desc' } })).processorChargeId!;

test(
  'webhooks dropped: the run finds every refund and charge the processor changed on its own and repairs each through the webhooks code; the next run finds nothing',
  async () => {
    // A refund the processor accepted, then failed (Stripe's 4000000000005126): we still say pending.
    const failing = await paidOrder(element, { number: REFUND_FAILS });
    const pending = await ok(refund(ws, failing.order.id, { amount: 400, idempotencyKey: `rec-${randomUUID()}` }));
    expect(pending).toMatchObject({ status: 'pending' });
    await eventually(() => salesDb().refundPart.findFirstOrThrow({ where: { refundId: pending.refundId } }), (part) => part.processorRefundId !== null);

    // A refund that succeeded, then failed at the processor (the card closed meanwhile): we still say succeeded.
    const reversed = await paidOrder(element);
    const succeeded = await refundUnits(ws, reversed.order.id);
    const { processorRefundId } = await salesDb().refundPart.findFirstOrThrow({ where: { refundId: succeeded.refundId } });
    await sandbox().failRefund(processorRefundId!);

    // A PayPal payment that expired, then was approved: the money is at the processor for a payment that ended.
    const late = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } }, TEST);
    await startPayment(salesDb(), temporal, sandbox(), { paymentId: late.payment.id, expireAfterMs: 500 });
    await eventually(() => getPayment(ws, late.payment.id), (p) => p.status === 'EXPIRED');
    await sandbox().settle(await chargeOf(late.payment.id));

    // A PayPal payment approved while its workflow waits, and a bank transfer that never came.
    const approved = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'paypal' } }, TEST);
    await startPayment(salesDb(), temporal, sandbox(), { paymentId: approved.payment.id });
    await sandbox().settle(await chargeOf(approved.payment.id));
    const transfer = await seedOrder(ws, { payment: { processor: 'sandbox', methodType: 'manual' } }, TEST);
    await startPayment(salesDb(), temporal, sandbox(), { paymentId: transfer.payment.id });
    await sandbox().fail(await chargeOf(transfer.payment.id), 'transfer_not_received');

    // Before the run nothing moved on our side: each change is held in the sandbox's outbox.
    expect(await getPayment(ws, late.payment.id)).toMatchObject({ status: 'EXPIRED' });
    expect(await getPayment(ws, approved.payment.id)).toMatchObject({ status: 'PENDING' });
    expect((await getOrder(ws, reversed.order.id)).refunds[0]).toMatchObject({ status: 'succeeded' });

    const dry = await run(true);
    const first = await run();
    const found = (report: ReconciliationReport) => report.findings.map((f) => [f.kind, f.outcome, f.processorObjectId]).sort();
    const expected = [
      ['charge_status', 'repaired', await chargeOf(late.payment.id)],
      ['charge_status', 'repaired', await chargeOf(approved.payment.id)],
      ['charge_status', 'repaired', await chargeOf(transfer.payment.id)],
      ['refund_status', 'repaired', (await salesDb().refundPart.findFirstOrThrow({ where: { refundId: pending.refundId } })).processorRefundId],
      ['refund_status', 'repaired', processorRefundId],
    ].sort();
    expect(found(first)).toEqual(expected);
    // The dry run saw the same and repaired nothing (a new run finds them all again below only because the repairs are done).
    expect(found(dry)).toEqual(expected.map(([kind, , id]) => [kind, 'reported', id]));
    expect(first.findings.find((f) => f.processorObjectId === processorRefundId)).toMatchObject({
      ours: expect.objectContaining({ status: 'succeeded', amount: 1000 }),
      theirs: expect.objectContaining({ status: 'failed', amount: 1000 }),
    });

    // Repaired as the webhooks would have: the failed refunds give the money back; the late money goes back to the buyer.
    expect((await getOrder(ws, failing.order.id)).refunds[0]).toMatchObject({ refundId: pending.refundId, status: 'failed', failureCode: 'expired_or_canceled_card' });
    expect(await getPayment(ws, failing.payment.id)).toMatchObject({ status: 'PAID', refundedAmount: 0 });
    expect((await getOrder(ws, reversed.order.id)).refunds[0]).toMatchObject({ refundId: succeeded.refundId, status: 'failed' });
    expect(await getPayment(ws, reversed.payment.id)).toMatchObject({ status: 'PAID', refundedAmount: 0 });
    const givenBack = await eventually(() => salesDb().refund.findMany({ where: { orderId: late.order.id } }), (rows) => rows.some((r) => r.status === 'succeeded'));
    expect(givenBack.map((r) => [r.source, r.amount, r.status])).toEqual([['expired_payment', 1000, 'succeeded']]);
    expect(await getPayment(ws, late.payment.id)).toMatchObject({ status: 'EXPIRED' });
    expect(await eventually(() => getPayment(ws, approved.payment.id), (p) => p.status !== 'PENDING')).toMatchObject({ status: 'PAID' });
    expect(await eventually(() => getPayment(ws, transfer.payment.id), (p) => p.status !== 'PENDING')).toMatchObject({ status: 'FAILED', failureCode: 'transfer_not_received' });

    // Recorded: the run and its findings, both sides kept.
    const recorded = await salesDb().reconciliationFinding.findMany({ where: { runId: first.runId! } });
    expect(recorded).toHaveLength(5);
    expect(recorded.every((f) => f.outcome === 'repaired' && f.ours !== null && f.theirs !== null && f.workspaceId === ws.workspaceId)).toBe(true);

    const second = await run();
    expect(second.findings).toEqual([]);
    expect([second.chargesChecked, second.refundsChecked]).toEqual([5, 3]);
  },
  SLOW,
);

describe('a database of its own', () => {
  let scratch: ScratchDatabase;
  let prisma: ReturnType<typeof createPrismaClient>;

  beforeAll(async () => {
    scratch = await scratchDatabase('commerce_reconcile');
  }, SLOW);

  afterAll(async () => {
    await prisma?.$disconnect();
    await scratch?.drop();
  });

  test(
    'a processor charge that is no payment of ours is reported (table, log line, gauge), never touched; `cli reconcile` prints it',
    async () => {
      const env = { DATABASE_URL: scratch.url, TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!, LOG_LEVEL: 'info' };
      // The CLI migrates the new database; its dry run finds nothing in an empty one.
      const empty = await execCli(['reconcile', '--dry-run'], env);
      expect(empty).toMatchObject({ code: 0, stdout: expect.stringMatching(/^sandbox: 0 charges and 0 refunds from .* 0 repaired, 0 reported \(dry run\)\n$/) });

      prisma = createPrismaClient(scratch.url);
      const stranger = new SandboxProcessor({ prisma });
      const foreign = await stranger.createCharge({
        paymentId: randomUUID(), idempotencyKey: `foreign-${randomUUID()}`, amount: 2500, currency: 'EUR', method: 'card',
        card: { number: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' }, email: 'someone@example.com', livemode: false,
      });
      const before = await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: foreign.chargeId } });

      const { code, stdout, stderr } = await execCli(['reconcile', '--since', new Date(Date.now() - 3_600_000).toISOString()], env);
      expect(code).toBe(0);
      const [head, columns, row, ...rest] = stdout.trimEnd().split('\n');
      expect(head).toMatch(/^sandbox: 1 charges and 0 refunds from .* 0 repaired, 1 reported \(run [0-9a-f-]{36}\)$/);
      expect(columns).toMatch(/^OUTCOME +KIND +PROCESSOR ID +WORKSPACE +PAYMENT +OURS +THEIRS +NOTE$/);
      expect(row).toMatch(new RegExp(`^reported +unknown_charge +${foreign.chargeId} +- +- +- +2500 eur succeeded +the processor took money for no payment of ours$`));
      expect(rest).toEqual([]);
      // The log line names both sides (ours: none).
      expect(stderr).toContain('reconciliation discrepancy: the processor took money for no payment of ours');
      expect(stderr).toContain(foreign.chargeId);

      // Untouched: no refund, the same charge.
      expect(await prisma.sandboxRefund.count()).toBe(0);
      expect(await prisma.sandboxCharge.findUniqueOrThrow({ where: { id: foreign.chargeId } })).toEqual(before);
      expect(await prisma.reconciliationFinding.findMany()).toEqual([expect.objectContaining({ kind: 'unknown_charge', outcome: 'reported', processorObjectId: foreign.chargeId, ours: null })]);

      // The gauge (/metrics) reads the latest run over every workspace.
      const gauge = await reconciliationGauge(prisma).get();
      expect(gauge.values).toEqual(expect.arrayContaining([{ labels: { processor: 'sandbox', kind: 'unknown_charge' }, value: 1 }, { labels: { processor: 'sandbox', kind: 'refund_status' }, value: 0 }]));
    },
    SLOW,
  );
});

test('the schedule: created once whatever the number of workers that make sure of it, hourly, starting the reconciliation workflow on the task queue', async () => {
  const own: TemporalConnection = { ...temporal, taskQueue: `reconciliation-${randomUUID()}` };
  await Promise.all([ensureReconciliationSchedule(own, 60), ensureReconciliationSchedule(own, 60)]);
  await ensureReconciliationSchedule(own, 90);
  const handle = temporal.client.schedule.getHandle(reconciliationScheduleId(own.taskQueue));
  try {
    const schedule = await handle.describe();
    expect(schedule.spec.intervals).toMatchObject([{ every: 90 * 60_000 }]);
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'reconciliationWorkflow', taskQueue: own.taskQueue, workflowId: `reconciliation/${own.taskQueue}` });
  } finally {
    await handle.delete();
  }
});
