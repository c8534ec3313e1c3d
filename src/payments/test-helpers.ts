// Test-mode helpers: POST /v0/test-helpers/payments/{paymentId}/settle|fail|dispute. Each acts on
// the payment's sandbox charge as the processor would (SandboxProcessor.settle/fail/dispute) and
// feeds the signed webhook that returns through the same path as a real processor webhook:
// parseWebhook (signature checked), then handleProcessorEvents. Test mode only (401 for live keys).
import { setTimeout as sleep } from 'node:timers/promises';

import type { PrismaClient } from '../generated/prisma/client.js';
import { NotFound, Unauthenticated, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import type { TemporalConnection } from '../temporal/client.js';
import { InvalidChargeState, InvalidProcessorRequest } from './processors/processor.js';
import { SandboxProcessor } from './processors/sandbox.js';
import { applySandboxWebhook } from './sandbox-webhook-relay.js';

export type TestHelperAction = 'settle' | 'fail' | 'dispute' | 'lose-dispute' | 'fail-dispute-check';

/** The actions on a paid payment's charge (the others act on a pending one). */
const ON_PAID: readonly TestHelperAction[] = ['dispute', 'lose-dispute', 'fail-dispute-check'];

/**
 * How long the answer waits for the payment's workflow to apply the change (it is asynchronous):
 * under a loaded worker (a test suite's three files at once on two cores) 5 s was too short.
 */
const SETTLE_WAIT = { ms: 15_000, step: 50 };

export async function runPaymentTestHelper(prisma: PrismaClient, temporal: TemporalConnection, scope: Scope, paymentId: string, action: TestHelperAction): Promise<void> {
  if (scope.livemode) throw new Unauthenticated('Test helpers take test-mode keys only');
  const payment = await prisma.payment.findFirst({ where: { id: paymentId, ...inScope(scope) }, include: { charges: { orderBy: { attempt: 'desc' } } } });
  if (!payment) throw new NotFound('Payment');
  if (payment.processor !== 'sandbox') throw new ValidationFailed('Test helpers act only on payments of the sandbox processor');
  const onPaid = ON_PAID.includes(action);
  const wanted = onPaid ? 'succeeded' : 'pending';
  // Charges are recorded succeeded by the checkout, while settled ones keep the status they had: take the payment's own charge.
  const charge = payment.charges.find((c) => c.processor === 'sandbox' && c.processorChargeId && (c.status === wanted || (onPaid && c.processorChargeId === payment.processorChargeId)));
  if (!charge?.processorChargeId || (onPaid && !['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'].includes(payment.status))) {
    throw new ValidationFailed(onPaid ? `Only a paid payment's charge can be disputed; this one is ${payment.status}` : `This payment has no pending charge to ${action}; it is ${payment.status}`);
  }
  const sandbox = new SandboxProcessor({ prisma });
  if (action === 'fail-dispute-check') return sandbox.failDisputeChecks(charge.processorChargeId);
  let webhook;
  try {
    const chargeId = charge.processorChargeId;
    webhook = await { settle: () => sandbox.settle(chargeId), fail: () => sandbox.fail(chargeId), dispute: () => sandbox.dispute(chargeId), 'lose-dispute': () => sandbox.closeDispute(chargeId, 'lost') }[action]();
  } catch (error) {
    if (error instanceof InvalidChargeState) throw new ValidationFailed(error.message);
    throw error;
  }
  await applySandboxWebhook(prisma, temporal, sandbox, webhook);
  if (action === 'lose-dispute') return;
  // The workflow applies settle/fail asynchronously: wait, bounded, for the payment to change.
  const changed = (p: { status: string; disputed: boolean }) => (action === 'dispute' ? p.disputed : p.status !== 'PENDING');
  for (const deadline = Date.now() + SETTLE_WAIT.ms; Date.now() < deadline; await sleep(SETTLE_WAIT.step)) {
    const now = await prisma.payment.findUnique({ where: { id: paymentId }, select: { status: true, disputed: true } });
    if (!now || changed(now)) return;
  }
}

/** Test mode: a sandbox test card saved for off-session charges (the payment-method update hook's input in tests); its reference. */
export async function saveTestPaymentMethod(prisma: PrismaClient, scope: Scope, processor: string | null, testCard: string): Promise<string> {
  if (scope.livemode) throw new Unauthenticated('Test helpers take test-mode keys only');
  if (processor !== 'sandbox') throw new ValidationFailed('Test helpers act only on the sandbox processor');
  try {
    return (await new SandboxProcessor({ prisma }).saveTestCard(testCard)).ref;
  } catch (error) {
    if (error instanceof InvalidProcessorRequest) throw new ValidationFailed(error.message);
    throw error;
  }
}
