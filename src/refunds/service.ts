// Refunds: what an order can still give back (GET /refundable) and a refund request
// (PATCH /refund) up to the refund row, its per-payment parts and the money reserved on the
// payments, all under the order's row lock. The processor call and the bookkeeping after it run in
// the refund's workflow (workflows/refund.ts, ./activities.ts, ./bookkeeping.ts).
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { OrderStatus } from '../generated/prisma/enums.js';
import type { Db } from '../db/client.js';
import { FeatureDisabled, TemporarilyUnavailable, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { uuidv7 } from '../core/uuid.js';
import type { Clock } from '../core/time.js';
import type { WorkspaceSettings } from '../core/workspace-settings.js';
import { FEE_RULE, type FeeRule, findOrder } from '../orders/index.js';
import { capabilitiesOf, processorFor, type PaymentProcessor, type ProcessorName } from '../payments/index.js';
import {
  DERIVED_DEDUP_WINDOW_MS,
  paymentBlock,
  planRefund,
  refundableView,
  refundFingerprint,
  refundWorkflowId,
  type DisputeStates,
  type ItemState,
  type PaymentState,
  type RefundableView,
  type RefundBody,
} from './plan.js';

type Tx = Prisma.TransactionClient;

export interface RefundDeps {
  prisma: PrismaClient;
  /** Today's processor (PAYMENT_PROCESSOR); a payment of another one is refunded through its own. */
  processor: PaymentProcessor;
  now: Clock;
  feeRule?: FeeRule;
}

// A refund's parts are created together (equal createdAt): their ids break the tie, so that every
// read, and the parts as created (partOrder), list them alike.
export const refundRowInclude = { parts: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }, order: { select: { status: true } } } satisfies Prisma.RefundInclude;
const partOrder = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
export type RefundRow = Prisma.RefundGetPayload<{ include: typeof refundRowInclude }>;

const DEFAULT_SETTLING_LIMIT = 10;

/** REFUND_SETTLING_LIMIT: refunds a workspace may have pending at the processor before new ones wait (400). */
export function settlingLimitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.REFUND_SETTLING_LIMIT;
  if (raw === undefined || raw === '') return DEFAULT_SETTLING_LIMIT;
  if (!/^[1-9][0-9]{0,5}$/.test(raw)) throw new Error(`REFUND_SETTLING_LIMIT must be a positive whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}
const SETTLING_LIMIT = settlingLimitFromEnv();

/** What a refund of the order draws on: its payments, each with the fee its succeeded refund parts have given back so far, and its items. */
const orderStateSelect = {
  payments: { orderBy: { sequence: 'asc' }, include: { refundParts: { where: { status: 'succeeded' }, select: { feeRefunded: true } } } },
  items: { orderBy: [{ position: 'asc' }, { id: 'asc' }] },
} satisfies Prisma.OrderSelect;

function orderState({ payments, items }: Prisma.OrderGetPayload<{ select: typeof orderStateSelect }>): { payments: PaymentState[]; items: ItemState[] } {
  return { payments: payments.map(({ refundParts, ...p }) => ({ ...p, feeRefunded: refundParts.reduce((sum, part) => sum + part.feeRefunded, 0) })), items };
}

const refundsSupported = (payment: PaymentState) => Boolean(payment.processor && payment.methodType && capabilitiesOf(payment.processor).refunds[payment.methodType]);

/**
 * The live dispute check: each disputed payment with money left is asked of its own processor.
 * 503 when a check fails (retryable, not a rejection).
 */
async function disputeStates(deps: RefundDeps, payments: ReadonlyArray<Pick<PaymentState, 'id' | 'disputed' | 'processor' | 'processorChargeId' | 'refundedAmount' | 'amount'>>): Promise<DisputeStates> {
  const states = new Map<string, 'open' | 'lost' | 'won' | 'none'>();
  for (const payment of payments) {
    if (!payment.disputed || !payment.processor || !payment.processorChargeId || payment.refundedAmount >= payment.amount) continue;
    const processor = processorFor(payment.processor, deps.processor, { prisma: deps.prisma });
    if (!processor) continue;
    let dispute;
    try {
      dispute = await processor.disputeState(payment.processorChargeId);
    } catch {
      throw new TemporarilyUnavailable('The live check of the disputed charge failed; retry the refund later');
    }
    states.set(payment.id, !dispute ? 'none' : dispute.status === 'lost' ? 'lost' : dispute.status === 'won' ? 'won' : 'open');
  }
  return states;
}

function viewOf(deps: RefundDeps, state: { payments: PaymentState[]; items: ItemState[] }, disputes: DisputeStates): RefundableView {
  const blocks = state.payments.map((payment) => {
    const block = paymentBlock(payment, disputes, refundsSupported);
    // A payment whose processor this deployment has no credentials for cannot be refunded from here.
    return block === null && !processorFor(payment.processor!, deps.processor, { prisma: deps.prisma }) ? 'unsupported' : block;
  });
  return refundableView(state.payments, state.items, blocks, deps.feeRule ?? FEE_RULE);
}

/** GET /v0/orders/{orderIdOrNumber}/refundable: what a refund could take now, by the refund's own rules. */
export async function refundableOf(deps: RefundDeps, scope: Scope, orderIdOrNumber: string) {
  const order = await findOrder(deps.prisma, scope, orderIdOrNumber, { select: { id: true, currency: true } });
  // Joined to one read of the order (one statement: relationJoins).
  const state = orderState(await deps.prisma.order.findUniqueOrThrow({ where: { id: order.id }, select: orderStateSelect }));
  return { order, view: viewOf(deps, state, await disputeStates(deps, state.payments)) };
}

/** 400 unless the optional fields are well-formed (the types are checked by the schema). */
function checkBody(body: RefundBody): void {
  if (body.idempotencyKey != null && body.idempotencyKey.length === 0) throw new ValidationFailed('idempotencyKey must have 1 to 255 characters');
  if (body.metadata != null && (typeof body.metadata !== 'object' || Array.isArray(body.metadata))) throw new ValidationFailed('metadata must be a JSON object');
}

export interface RefundRequested {
  refund: RefundRow;
  replayed: boolean;
}

/**
 * PATCH /v0/orders/{orderIdOrNumber}/refund up to the workflow: an earlier refund for the same
 * key (replayed, after a fresh eligibility check) or the same body within 23 hours without a key
 * (replayed), else a new pending refund with its parts, the money and units reserved.
 */
export async function requestRefund(deps: RefundDeps, scope: Scope, settings: Pick<WorkspaceSettings, 'refundsEnabled'>, orderIdOrNumber: string, body: RefundBody): Promise<RefundRequested> {
  if (!settings.refundsEnabled) throw new FeatureDisabled('Refunds are not enabled for this workspace');
  checkBody(body);
  // With its disputed payments (one statement): only they need the live check, before the lock (it asks the processor).
  const order = await findOrder(deps.prisma, scope, orderIdOrNumber, { select: { id: true, currency: true, payments: { where: { disputed: true } } } });
  const fingerprint = refundFingerprint(body);
  const disputes = await disputeStates(deps, order.payments);
  const now = deps.now();
  return deps.prisma.$transaction(async (tx) => {
    // Every refund of the order serialises here: the checks below see the refunds committed before.
    // The same statement counts the workspace's refunds settling at the processor (the limit below)
    // as of its snapshot, taken before any wait for the lock: a limit on the whole workspace, which
    // refunds of its other orders pass concurrently anyway, not a count to the unit.
    const [locked] = await tx.$queryRaw<{ status: OrderStatus; settling: number }[]>`
      SELECT status::text AS status,
        (SELECT count(*)::int FROM "Refund" WHERE "workspaceId" = ${scope.workspaceId}::uuid AND livemode = ${scope.livemode} AND status = 'pending' AND "settlingSince" IS NOT NULL) AS settling
      FROM "Order" WHERE id = ${order.id}::uuid FOR UPDATE`;
    // The order's state and the earlier refund joined to one read of the order (one statement: relationJoins).
    const { refunds, ...state } = await tx.order.findUniqueOrThrow({
      where: { id: order.id },
      select: { ...orderStateSelect, refunds: { where: earlierRefund(body, fingerprint, now), orderBy: { createdAt: 'asc' }, take: 1, include: { parts: refundRowInclude.parts } } },
    });
    const view = viewOf(deps, orderState(state), disputes);
    const earlier = refunds[0] ? { ...refunds[0], order: { status: locked!.status } } : null;
    if (earlier) {
      if (body.idempotencyKey != null) checkKeyReplay(earlier, fingerprint, body, view);
      return { refund: earlier, replayed: true };
    }
    const plan = planRefund(view, body);
    const { settling } = locked!;
    if (settling >= SETTLING_LIMIT) {
      throw new ValidationFailed(`Refunds on this workspace are temporarily limited: ${settling} earlier refunds are still settling at the processor; retry once they settle`);
    }
    const key = body.idempotencyKey != null ? { idempotencyKey: body.idempotencyKey } : { fingerprint, at: now };
    const id = uuidv7(now.getTime());
    const refund: Omit<RefundRow, 'order'> = {
      ...inScope(scope), id, orderId: order.id, amount: plan.amount, currency: order.currency, status: 'pending', reason: body.reason ?? null,
      metadata: body.metadata ?? {}, items: plan.items, idempotencyKey: body.idempotencyKey ?? null, fingerprint,
      workflowId: refundWorkflowId(scope.workspaceId, order.id, key), source: 'api', feeRefunded: 0, failureCode: null, failureMessage: null,
      createdAt: now, updatedAt: now, settlingSince: null, outboxCheckedAt: null,
      parts: plan.shares
        .map((share) => ({ id: uuidv7(now.getTime()), refundId: id, ...share, status: 'pending' as const, processorRefundId: null, feeRefunded: 0, createdAt: now, updatedAt: now }))
        .sort(partOrder),
    };
    await writeRefund(tx, refund);
    return { refund: { ...refund, order: { status: locked!.status } }, replayed: false };
  });
}

/** Which of the order's refunds the request repeats: the same key's, or without a key the same body's of the last 23 hours (the oldest). */
function earlierRefund(body: RefundBody, fingerprint: string, now: Date): Prisma.RefundWhereInput {
  if (body.idempotencyKey != null) return { idempotencyKey: body.idempotencyKey };
  return { idempotencyKey: null, source: 'api', fingerprint, createdAt: { gt: new Date(now.getTime() - DERIVED_DEDUP_WINDOW_MS) } };
}

/**
 * A repeated key returns its refund only when a fresh eligibility check would still take the
 * same request: not for a full refund, an exhausting partial, or more than is refundable now (400),
 * unless the processor has not answered it yet. The same key with another body is refused, as
 * Stripe's idempotency_error.
 */
function checkKeyReplay(earlier: RefundRow, fingerprint: string, body: RefundBody, view: RefundableView): void {
  if (earlier.fingerprint !== fingerprint) throw new ValidationFailed('idempotencyKey was already used for a refund of this order with a different request body');
  // Not yet at the processor (its request died before the workflow started, or it is on its way):
  // the retry resumes it, whatever is left beside the money it already holds.
  if (unanswered(earlier).length > 0) return;
  if (body.amount == null && !body.items?.length) throw new ValidationFailed('idempotencyKey belongs to a full refund of this order: nothing is left to refund');
  if (view.amount === 0) throw new ValidationFailed(`idempotencyKey belongs to a refund that exhausted the order: ${view.reason}`);
  if (earlier.amount > view.amount) throw new ValidationFailed(`idempotencyKey belongs to a refund of ${earlier.amount}, more than the ${view.amount} still refundable`);
}

/**
 * The new refund and its parts written, its money reserved on the payments and its units on the
 * items (given back if the processor fails it), in one statement: the rows are as `refund` has
 * them, nothing is read back. In SQL of our own: Prisma compiles a multi-row insert anew at every call.
 */
async function writeRefund(tx: Tx, refund: Omit<RefundRow, 'order'>): Promise<void> {
  const parts = JSON.stringify(refund.parts.map(({ id, paymentId, processor, processorChargeId, amount }) => ({ id, paymentId, processor, processorChargeId, amount })));
  await tx.$executeRaw`
    WITH refund AS (
      INSERT INTO "Refund" (id, "workspaceId", livemode, "orderId", amount, currency, status, reason, metadata, items, "idempotencyKey", fingerprint, "workflowId", source, "feeRefunded", "createdAt", "updatedAt")
      VALUES (${refund.id}::uuid, ${refund.workspaceId}::uuid, ${refund.livemode}, ${refund.orderId}::uuid, ${refund.amount}, ${refund.currency}, ${refund.status}::"RefundStatus", ${refund.reason},
        ${JSON.stringify(refund.metadata)}::jsonb, ${JSON.stringify(refund.items)}::jsonb, ${refund.idempotencyKey}, ${refund.fingerprint}, ${refund.workflowId}, ${refund.source}, ${refund.feeRefunded}, ${refund.createdAt}, ${refund.updatedAt})
    ), parts AS (
      INSERT INTO "RefundPart" (id, "refundId", "paymentId", processor, "processorChargeId", amount, status, "feeRefunded", "createdAt", "updatedAt")
      SELECT x.id, ${refund.id}::uuid, x."paymentId", x.processor::"PaymentProcessor", x."processorChargeId", x.amount, 'pending', 0, ${refund.createdAt}, ${refund.updatedAt}
      FROM jsonb_to_recordset(${parts}::jsonb) AS x(id uuid, "paymentId" uuid, processor text, "processorChargeId" text, amount int)
    ), payments AS (
      UPDATE "Payment" p SET "refundedAmount" = p."refundedAmount" + x.amount, "updatedAt" = ${refund.updatedAt}
      FROM jsonb_to_recordset(${parts}::jsonb) AS x("paymentId" uuid, amount int) WHERE p.id = x."paymentId"
    )
    UPDATE "OrderItem" i SET "refundedQuantity" = i."refundedQuantity" + x.quantity
    FROM jsonb_to_recordset(${JSON.stringify(refund.items)}::jsonb) AS x(id uuid, quantity int) WHERE i.id = x.id`;
}

/** What the processor is asked for one part of a refund (the workflow's input carries it: no read of the part before the call). */
export interface PartToRefund {
  partId: string;
  refundId: string;
  paymentId: string;
  processor: ProcessorName;
  processorChargeId: string;
  amount: number;
}

/**
 * The parts the processor has not answered yet: a refund with some needs its workflow (also after
 * a crash between the row and the start: a same-key retry resumes it, and so does the outbox).
 */
export const unanswered = (refund: Pick<RefundRow, 'status' | 'parts'>): PartToRefund[] =>
  refund.status === 'pending'
    ? refund.parts
        .filter((p) => p.status === 'pending' && p.processorRefundId === null)
        .map((p) => ({ partId: p.id, refundId: p.refundId, paymentId: p.paymentId, processor: p.processor, processorChargeId: p.processorChargeId, amount: p.amount }))
    : [];

export const findRefund = (prisma: Db, refundId: string) => prisma.refund.findUniqueOrThrow({ where: { id: refundId }, include: refundRowInclude });

/** The refunds of an order, oldest first (shown on the order). */
export const refundsOfOrder = (prisma: Db, orderId: string) => prisma.refund.findMany({ where: { orderId }, orderBy: { createdAt: 'asc' }, include: refundRowInclude });
