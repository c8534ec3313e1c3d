// Test-mode helpers: POST /v0/test-helpers/payments/{paymentId}/settle|fail|dispute. Each acts on
// the payment's sandbox charge as the processor would (SandboxProcessor.settle/fail/dispute) and
// feeds the signed webhook that returns through the same path as a real processor webhook:
// parseWebhook (signature checked), then handleProcessorEvents. Test mode only (401 for live keys).
import { setTimeout as sleep } from 'node:timers/promises';

import type { PrismaClient } from '../generated/prisma/client.js';
import { NotFound, Unauthenticated, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import type { TemporalConnection } from '../temporal/client.js';
import { handleProcessorEvents } from './processor-callbacks.js';
import { InvalidChargeState } from './processors/processor.js';
import { SandboxProcessor } from './processors/sandbox.js';

export type TestHelperAction = 'settle' | 'fail' | 'dispute';

/** How long the answer waits for the payment's workflow to apply the change (it is asynchronous). */
const SETTLE_WAIT = { ms: 5_000, step: 50 };

export async function runPaymentTestHelper(prisma: PrismaClient, temporal: TemporalConnection, scope: Scope, paymentId: string, action: TestHelperAction): Promise<void> {
  if (scope.livemode) throw new Unauthenticated('Test helpers take test-mode keys only');
  const payment = await prisma.payment.findFirst({ where: { id: paymentId, ...inScope(scope) }, include: { charges: { orderBy: { attempt: 'desc' } } } });
  if (!payment) throw new NotFound('Payment');
  if (payment.processor !== 'sandbox') throw new ValidationFailed('Test helpers act only on payments of the sandbox processor');
  const wanted = action === 'dispute' ? 'succeeded' : 'pending';
  const charge = payment.charges.find((c) => c.processor === 'sandbox' && c.status === wanted && c.processorChargeId);
  if (!charge?.processorChargeId) {
    throw new ValidationFailed(action === 'dispute' ? `Only a paid payment can be disputed; this one is ${payment.status}` : `This payment has no pending charge to ${action}; it is ${payment.status}`);
  }
  const sandbox = new SandboxProcessor({ prisma });
  let webhook;
  try {
    webhook = action === 'settle' ? await sandbox.settle(charge.processorChargeId) : action === 'fail' ? await sandbox.fail(charge.processorChargeId) : await sandbox.dispute(charge.processorChargeId);
  } catch (error) {
    if (error instanceof InvalidChargeState) throw new ValidationFailed(error.message);
    throw error;
  }
  const events = await sandbox.parseWebhook(webhook.rawBody, webhook.headers);
  await handleProcessorEvents(prisma, temporal, events);
  // The workflow applies settle/fail asynchronously: wait, bounded, for the payment to change.
  const changed = (p: { status: string; disputed: boolean }) => (action === 'dispute' ? p.disputed : p.status !== 'PENDING');
  for (const deadline = Date.now() + SETTLE_WAIT.ms; Date.now() < deadline; await sleep(SETTLE_WAIT.step)) {
    const now = await prisma.payment.findUnique({ where: { id: paymentId }, select: { status: true, disputed: true } });
    if (!now || changed(now)) return;
  }
}
