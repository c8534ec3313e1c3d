// A refund request end to end: the refund row (./service.ts), its workflow started once under the
// refund's business key (concurrent identical requests join it), and the answer once the outcome
// is booked or after REFUND_WAIT_MS, whichever comes first (then the refund's current row). The
// booking is heard of by its NOTIFY (./bookkeeping.ts), as it commits, or else by the workflow's
// result (Temporal answers that some 10 ms later, once the workflow has closed).
import { setTimeout as sleep } from 'node:timers/promises';

import type { WorkflowIdReusePolicy } from '@temporalio/client';

import { crashPoint } from '../core/faults.js';
import type { Scope } from '../core/scope.js';
import type { Notifications, Subscription } from '../db/notifications.js';
import type { WorkspaceSettings } from '../core/workspace-settings.js';
import { processorKeyWindowMsFromEnv } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { refundWorkflow } from '../../workflows/refund.js';
import type { RefundBody } from './plan.js';
import { REFUND_BOOKED_CHANNEL } from './bookkeeping.js';
import { refundResource, type RefundResource } from './resource.js';
import { findRefund, requestRefund, unanswered, type RefundDeps, type RefundRow } from './service.js';

const DEFAULT_WAIT_MS = 10_000;

/** REFUND_WAIT_MS: how long PATCH /refund waits for the processor's outcome before answering the refund's current status. */
export function refundWaitMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.REFUND_WAIT_MS;
  if (raw === undefined || raw === '') return DEFAULT_WAIT_MS;
  if (!/^[0-9]{1,6}$/.test(raw)) throw new Error(`REFUND_WAIT_MS must be a whole number of milliseconds, not ${JSON.stringify(raw)}`);
  return Number(raw);
}
const WAIT_MS = refundWaitMsFromEnv();
const KEY_WINDOW_MS = processorKeyWindowMsFromEnv();

/**
 * Starts the refund's workflow, or joins the one running under its id; null when the processor
 * answered every part. `reuse` REJECT_DUPLICATE (the outbox) never runs it again once it closed.
 */
export async function startRefundWorkflow(temporal: TemporalConnection, refund: Pick<RefundRow, 'id' | 'workflowId' | 'status' | 'parts' | 'createdAt'>, reuse: WorkflowIdReusePolicy = 'ALLOW_DUPLICATE') {
  if (unanswered(refund).length === 0) return null;
  return temporal.client.workflow.start<typeof refundWorkflow>('refundWorkflow', {
    taskQueue: temporal.taskQueue,
    workflowId: refund.workflowId,
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: reuse,
    // The key window runs from the refund's creation: no processor call can have come before it.
    args: [{ refundId: refund.id, parts: unanswered(refund), notAfterMs: refund.createdAt.getTime() + KEY_WINDOW_MS }],
  });
}

const isRefundResource = (value: unknown): value is RefundResource => typeof value === 'object' && value !== null && 'refundId' in value;

/** The refund once every part is answered, read at each notice of its bookkeeping. */
async function booked(deps: RefundDeps, notices: Subscription, refundId: string): Promise<RefundRow> {
  for (;;) {
    await notices.next();
    const refund = await findRefund(deps.prisma, refundId);
    if (unanswered(refund).length === 0) return refund;
  }
}

export async function refundOrder(
  deps: RefundDeps & { temporal: TemporalConnection; notifications: Notifications; waitMs?: number },
  scope: Scope,
  settings: Pick<WorkspaceSettings, 'refundsEnabled'>,
  orderIdOrNumber: string,
  body: RefundBody,
): Promise<RefundResource> {
  const { refund, replayed } = await requestRefund(deps, scope, settings, orderIdOrNumber, body);
  if (unanswered(refund).length === 0) return refundResource(refund, replayed);
  // Listening before the workflow starts: its bookkeeping cannot commit unheard.
  const notices = await deps.notifications.subscribe(REFUND_BOOKED_CHANNEL, refund.id);
  const waited = new AbortController();
  try {
    crashPoint('refund-before-workflow-start');
    const handle = await startRefundWorkflow(deps.temporal, refund);
    // The workflow's result is the refund as its bookkeeping left it: no second read. Past the wait,
    // if the workflow failed, or if the run joined under the id is not this refund's (a workflow
    // started by an earlier version returned only a status), the refund's current row answers.
    const outcome: unknown = await Promise.race([
      booked(deps, notices, refund.id).then((row) => refundResource(row, replayed), () => undefined),
      handle?.result().catch(() => undefined),
      sleep(deps.waitMs ?? WAIT_MS, undefined, { signal: waited.signal }).catch(() => undefined),
    ]);
    if (isRefundResource(outcome) && outcome.refundId === refund.id) return { ...outcome, replayed };
    return refundResource(await findRefund(deps.prisma, refund.id), replayed);
  } finally {
    waited.abort();
    notices.close();
  }
}
