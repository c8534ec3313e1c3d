// The refund row is its own outbox. A request commits the refund and its reserved money, then
// starts the workflow; a request that dies in between (the API killed, Temporal unreachable) would
// leave it pending for ever. So every worker process looks, about once a second, for refunds still
// unanswered by the processor REFUND_RESUME_AFTER_SECONDS after they were created and not yet
// looked at, starts their workflow (or finds it running: a refund whose processor is slow) and
// marks them looked at (outboxCheckedAt). REJECT_DUPLICATE: a workflow that already closed is not
// run again from here. The request path writes nothing more for it: the refund's hot path stays
// as it was.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

import { startPolling } from '../core/polling.js';
import type { ActivityDependencies, BackgroundTask } from '../domain-module.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { logger } from '../logger.js';
import type { TemporalConnection } from '../temporal/client.js';
import { startRefundWorkflow } from './flow.js';
import { refundRowInclude } from './service.js';

const log = logger.child({ component: 'refund-outbox' });
const BATCH_SIZE = 50;
const DEFAULT_RESUME_AFTER_SECONDS = 10;

/** REFUND_RESUME_AFTER_SECONDS: how old an unanswered refund must be before a worker starts its workflow. */
export function resumeAfterMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.REFUND_RESUME_AFTER_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_RESUME_AFTER_SECONDS * 1000;
  if (!/^[1-9][0-9]{0,4}$/.test(raw)) throw new Error(`REFUND_RESUME_AFTER_SECONDS must be a whole number of seconds from 1, not ${JSON.stringify(raw)}`);
  return Number(raw) * 1000;
}

/** One round: starts the workflows of the refunds due; returns how many it looked at. */
export async function resumeUnstartedRefunds(prisma: PrismaClient, temporal: TemporalConnection, resumeAfterMs: number): Promise<number> {
  const due = await prisma.refund.findMany({
    where: { status: 'pending', outboxCheckedAt: null, createdAt: { lt: new Date(Date.now() - resumeAfterMs) }, parts: { some: { status: 'pending', processorRefundId: null } } },
    include: refundRowInclude,
    orderBy: { createdAt: 'asc' },
    take: BATCH_SIZE,
  });
  for (const refund of due) {
    try {
      if (await startRefundWorkflow(temporal, refund, 'REJECT_DUPLICATE')) log.info({ refundId: refund.id, workflowId: refund.workflowId }, 'refund workflow started (or found running) by the outbox');
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    await prisma.refund.update({ where: { id: refund.id }, data: { outboxCheckedAt: new Date() } });
  }
  return due.length;
}

/** The outbox of a worker process: a round about once a second, batch after batch while some remain. */
export function startRefundOutbox({ prisma, temporal }: ActivityDependencies, intervalMs = 1000): BackgroundTask {
  const resumeAfterMs = resumeAfterMsFromEnv();
  const round = async () => {
    while ((await resumeUnstartedRefunds(prisma, temporal, resumeAfterMs)) === BATCH_SIZE);
  };
  return startPolling(round, { intervalMs, log, failure: 'starting the workflows of unstarted refunds failed' });
}
