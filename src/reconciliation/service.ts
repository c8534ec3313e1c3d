// One reconciliation run: every charge and refund the processor created in the window, read from
// its own books (the sandbox's tables, Stripe's list APIs), matched with our charges and refund
// parts by the processor's ids, compared on amount, currency and status (./rules.ts). The
// processor's word that a missed webhook would have brought is applied through the webhooks' own
// code (handleProcessorEvents): a refund the processor settled or failed, a charge's outcome for a
// payment still waiting, a success for a payment that ended otherwise (the stranded-charge refund
// gives it back). Everything else is reported: a row per finding, a log line with both sides, and
// the run's counts for the gauge. Our charges and parts the processor does not know are reported too.
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import {
  handleProcessorEvents,
  RefundNotRecordedYet,
  type PaymentProcessor,
  type ProcessorChargeRecord,
  type ProcessorEvent,
  type ProcessorRefundRecord,
} from './domain-calls.js';
import { ourCharges, ourRefundSide } from './our-books.js';
import { judgeCharge, judgeRefund, type FindingKind, type OurCharge, type Verdict } from './rules.js';

const log = logger.child({ component: 'reconciliation' });

/**
 * The processor's objects are listed from this long before the window: our charge row is written
 * after the processor created the charge, so a row at the window's start may name a charge from
 * just before it. Differences are reported only for objects inside the window.
 */
const MATCH_MARGIN_MS = 10 * 60_000;
const BATCH = 200;

export interface ReconcileDeps {
  prisma: PrismaClient;
  /** Repairs signal payment workflows and start refund workflows; a dry run needs none. */
  temporal: TemporalConnection | null;
  processor: PaymentProcessor;
  now: () => Date;
}

export interface ReconcileOptions {
  since: Date;
  until: Date;
  /** Only these workspaces' payments and refunds; the processor's objects that are nobody's are then left out. */
  workspaceIds?: readonly string[];
  /** Repairs nothing and records nothing: what would be repaired is reported. */
  dryRun?: boolean;
}

export interface Finding {
  kind: FindingKind;
  outcome: 'repaired' | 'reported';
  note: string;
  workspaceId: string | null;
  processorObjectId: string;
  paymentId: string | null;
  refundId: string | null;
  ours: Record<string, unknown> | null;
  theirs: Record<string, unknown> | null;
}

export interface ReconciliationReport {
  runId: string | null;
  processor: string;
  since: Date;
  until: Date;
  chargesChecked: number;
  refundsChecked: number;
  findings: Finding[];
}

/** Batches of an async sequence, so that each batch's side of ours is read in a few queries. */
async function* batches<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  const batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length === BATCH) yield batch.splice(0);
  }
  if (batch.length > 0) yield batch;
}

const chargeFields = (c: ProcessorChargeRecord) => ({ chargeId: c.chargeId, paymentId: c.paymentId, amount: c.amount, currency: c.currency, status: c.status, failureCode: c.failureCode, createdAt: c.createdAt });
const refundFields = (r: ProcessorRefundRecord) => ({ refundId: r.refundId, chargeId: r.chargeId, amount: r.amount, currency: r.currency, status: r.status, failureCode: r.failureCode, createdAt: r.createdAt });

/** The event the processor's webhook would have carried for this charge's final status. */
function chargeEvent(base: Omit<ProcessorEvent, 'type'>, charge: ProcessorChargeRecord): ProcessorEvent {
  if (charge.status === 'succeeded') return { ...base, type: 'charge.succeeded', amount: charge.amount, currency: charge.currency };
  if (charge.status === 'cancelled') return { ...base, type: 'charge.cancelled' };
  return { ...base, type: 'charge.failed', failureCode: charge.failureCode ?? 'failed', failureMessage: charge.failureMessage ?? 'The payment failed.' };
}

function refundEvent(base: Omit<ProcessorEvent, 'type'>, refund: ProcessorRefundRecord): ProcessorEvent {
  const ids = { refundId: refund.refundId, ourRefundId: refund.ourRefundId };
  if (refund.status === 'succeeded') return { ...base, type: 'charge.refunded', ...ids, amountRefunded: refund.amount, fullyRefunded: false };
  return { ...base, type: 'refund.failed', ...ids, amount: refund.amount, failureCode: refund.failureCode ?? refund.status };
}

export async function reconcile(deps: ReconcileDeps, options: ReconcileOptions): Promise<ReconciliationReport> {
  const { prisma, processor } = deps;
  const name = processor.name;
  const startedAt = deps.now();
  const { since, until, dryRun = false } = options;
  const scope = options.workspaceIds ? new Set(options.workspaceIds) : null;
  const inScope = (workspaceId: string | null) => (scope ? workspaceId !== null && scope.has(workspaceId) : true);
  const runId = dryRun ? null : crypto.randomUUID();
  const findings: Finding[] = [];
  const window = { createdAt: { gte: since, lt: until } };
  const paymentScope = options.workspaceIds ? { payment: { workspaceId: { in: [...options.workspaceIds] } } } : {};

  // Ours first: whatever we recorded with a processor id before the listing exists at the processor already.
  const [recordedCharges, recordedParts] = await Promise.all([
    prisma.charge.findMany({ where: { processor: name, processorChargeId: { not: null }, ...window, ...paymentScope }, include: { payment: { select: { workspaceId: true } } } }),
    prisma.refundPart.findMany({ where: { processor: name, processorRefundId: { not: null }, ...window, ...paymentScope }, include: { payment: { select: { workspaceId: true } } } }),
  ]);
  const listed = { since: new Date(since.getTime() - MATCH_MARGIN_MS), until };
  const seenCharges = new Set<string>();
  const seenRefunds = new Set<string>();

  const settle = async (verdict: Verdict, event: ProcessorEvent, finding: Omit<Finding, 'kind' | 'outcome' | 'note'>): Promise<void> => {
    let { note } = verdict;
    let outcome: Finding['outcome'] = 'reported';
    if (verdict.repair && !dryRun) {
      try {
        await handleProcessorEvents(prisma, deps.temporal!, [event]);
        outcome = 'repaired';
      } catch (error) {
        // The refund's own activity records the processor's answer in a moment: a step under way, not a difference.
        if (error instanceof RefundNotRecordedYet) return;
        note = `${note}; the repair failed: ${(error as Error).message}`;
      }
    }
    findings.push({ kind: verdict.kind, outcome, note, ...finding });
  };

  let chargesChecked = 0;
  for await (const batch of batches(processor.listCharges(listed))) {
    const ours = await ourCharges(prisma, name, batch);
    for (const charge of batch) {
      seenCharges.add(charge.chargeId);
      const our = ours.get(charge.chargeId) ?? null;
      if (charge.createdAt < since || !inScope(our?.workspaceId ?? null)) continue;
      chargesChecked += 1;
      const verdict = judgeCharge(charge, our);
      if (!verdict) continue;
      const base = { id: `reconciliation/${runId ?? 'dry-run'}/${charge.chargeId}`, processor: name, chargeId: charge.chargeId, paymentId: our?.paymentId ?? charge.paymentId, livemode: our?.livemode ?? false, createdAt: charge.createdAt.getTime() };
      await settle(verdict, chargeEvent(base, charge), {
        workspaceId: our?.workspaceId ?? null, processorObjectId: charge.chargeId, paymentId: our?.paymentId ?? null, refundId: null, ours: our && ourChargeFields(our), theirs: chargeFields(charge),
      });
    }
  }

  let refundsChecked = 0;
  for await (const batch of batches(processor.listRefunds(listed))) {
    const side = await ourRefundSide(prisma, name, batch);
    for (const refund of batch) {
      seenRefunds.add(refund.refundId);
      const part = side.parts.get(refund.refundId) ?? null;
      const charge = side.charges.get(refund.chargeId) ?? null;
      if (refund.createdAt < since || !inScope(part?.workspaceId ?? charge?.workspaceId ?? null)) continue;
      refundsChecked += 1;
      const verdict = judgeRefund(refund, part, { chargeIsOurs: charge !== null, waiting: side.waiting.has(refund.chargeId), metadataNamesPart: side.namedByMetadata.has(refund.refundId) });
      if (!verdict) continue;
      const paymentId = part?.paymentId ?? charge?.paymentId ?? null;
      const base = { id: `reconciliation/${runId ?? 'dry-run'}/${refund.refundId}`, processor: name, chargeId: refund.chargeId, paymentId, livemode: charge?.livemode ?? false, createdAt: refund.createdAt.getTime() };
      await settle(verdict, refundEvent(base, refund), {
        workspaceId: part?.workspaceId ?? charge?.workspaceId ?? null, processorObjectId: refund.refundId, paymentId, refundId: part?.refundId ?? null,
        ours: part && { partId: part.partId, refundId: part.refundId, status: part.status, amount: part.amount, currency: part.currency }, theirs: refundFields(refund),
      });
    }
  }

  for (const charge of recordedCharges.filter((c) => !seenCharges.has(c.processorChargeId!))) {
    findings.push({
      kind: 'charge_missing_at_processor', outcome: 'reported', note: 'we recorded a charge the processor does not list', workspaceId: charge.payment.workspaceId, processorObjectId: charge.processorChargeId!,
      paymentId: charge.paymentId, refundId: null, ours: { status: charge.status, amount: charge.amount, currency: charge.currency, attempt: charge.attempt }, theirs: null,
    });
  }
  for (const part of recordedParts.filter((p) => !seenRefunds.has(p.processorRefundId!))) {
    findings.push({
      kind: 'refund_missing_at_processor', outcome: 'reported', note: 'we recorded a refund the processor does not list', workspaceId: part.payment.workspaceId, processorObjectId: part.processorRefundId!,
      paymentId: part.paymentId, refundId: part.refundId, ours: { partId: part.id, status: part.status, amount: part.amount }, theirs: null,
    });
  }

  const report: ReconciliationReport = { runId, processor: name, since, until, chargesChecked, refundsChecked, findings };
  for (const finding of findings) {
    const line = { runId, processor: name, kind: finding.kind, outcome: finding.outcome, workspaceId: finding.workspaceId, processorObjectId: finding.processorObjectId, paymentId: finding.paymentId, refundId: finding.refundId, ours: finding.ours, theirs: finding.theirs };
    if (finding.outcome === 'repaired') log.info(line, `reconciliation repaired: ${finding.note}`);
    else log.warn(line, `reconciliation discrepancy: ${finding.note}`);
  }
  if (runId) await recordRun(prisma, report, { runId, workspaceId: options.workspaceIds?.length === 1 ? options.workspaceIds[0]! : null, startedAt, finishedAt: deps.now() });
  log.info({ runId, processor: name, since, until, chargesChecked, refundsChecked, repaired: findings.filter((f) => f.outcome === 'repaired').length, reported: findings.filter((f) => f.outcome === 'reported').length, dryRun }, 'reconciliation run done');
  return report;
}

const ourChargeFields = (our: OurCharge) => ({
  paymentId: our.paymentId, paymentStatus: our.paymentStatus, paymentChargeId: our.paymentChargeId, chargeStatus: our.chargeStatus, amount: our.amount, currency: our.currency, givenBack: our.givenBack,
});

async function recordRun(prisma: PrismaClient, report: ReconciliationReport, run: { runId: string; workspaceId: string | null; startedAt: Date; finishedAt: Date }): Promise<void> {
  const json = (value: Record<string, unknown> | null) => (value === null ? undefined : (JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue));
  await prisma.reconciliationRun.create({
    data: {
      id: run.runId, processor: report.processor as 'sandbox' | 'stripe', workspaceId: run.workspaceId, since: report.since, until: report.until,
      chargesChecked: report.chargesChecked, refundsChecked: report.refundsChecked, startedAt: run.startedAt, finishedAt: run.finishedAt,
      findings: {
        create: report.findings.map((f) => ({
          kind: f.kind, outcome: f.outcome, note: f.note, workspaceId: f.workspaceId, processorObjectId: f.processorObjectId, paymentId: f.paymentId, refundId: f.refundId, ours: json(f.ours), theirs: json(f.theirs), createdAt: run.finishedAt,
        })),
      },
    },
  });
}
