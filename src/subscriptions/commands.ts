// The requests a subscription's workflow applies (cancel, undo, pause, resume, end-trial, a new
// card), each once. The workflow runs them as local activities, which Temporal records only with
// the workflow task that ran them: a task that fails or times out after the change committed (a
// worker lost, a task over its timeout on a busy machine) runs the request again. So each request
// is recorded under its update's id with its change, or with its refusal, in one transaction; run
// again, it answers what it answered the first time instead of applying twice (a cancel refused
// as "cancelled cannot change" by its own first run, seen under load).
import type { Prisma, PrismaClient, Subscription, SubscriptionStatus } from '../generated/prisma/client.js';
import { ValidationFailed } from '../core/errors.js';
import { markPaymentCancelled } from '../payments/index.js';
import { firstPaidPeriodEnd } from './first-period.js';
import { change, lifecycleState, lock, planOf, type LifecycleCommand, type LifecycleState } from './service.js';

type Tx = Prisma.TransactionClient;

const BILLING: readonly SubscriptionStatus[] = ['active', 'trialing', 'past_due', 'unpaid', 'paused'];

/** Why the subscription's state does not allow the request (the API answers 400 with it), or null. */
function refusalOf(s: Subscription, command: LifecycleCommand): string | null {
  if (!BILLING.includes(s.status)) return `A subscription in status ${s.status} cannot change`;
  switch (command.type) {
    case 'undoCancel':
      return s.cancelAtPeriodEnd ? null : 'No cancellation is scheduled for this subscription';
    case 'pause':
      return s.status === 'active' ? null : `Only an active subscription can be paused; this one is ${s.status}`;
    case 'resume':
      return s.status === 'paused' ? null : `Only a paused subscription can be resumed; this one is ${s.status}`;
    case 'endTrial':
      return s.status === 'trialing' ? null : `Only a trialing subscription can end its trial; this one is ${s.status}`;
    default:
      return null;
  }
}

/** The request's change and its event, under the row lock; the state allows it. */
async function applyChange(tx: Tx, s: Subscription, command: LifecycleCommand, clockMs: number): Promise<void> {
  const at = new Date(clockMs);
  switch (command.type) {
    case 'cancel': {
      // Nothing of the period is paid while past_due or unpaid, nor once a pause outlasted the
      // period: there is no end of interval to wait for. Paused within its paid period, it ends
      // at that period's end, still paused (the workflow's next step then).
      const periodPaid = s.status === 'active' || s.status === 'trialing' || (s.status === 'paused' && s.currentPeriodEnd !== null && s.currentPeriodEnd.getTime() > clockMs);
      if (command.atPeriodEnd && periodPaid) {
        if (!s.cancelAtPeriodEnd) await change(tx, s, { cancelAtPeriodEnd: true, cancelledAt: at });
        return;
      }
      // A renewal still being retried is given up: no charge after a cancel.
      const pending = await tx.payment.findMany({ where: { subscriptionId: s.id, status: 'PENDING', subscriptionPeriod: { not: null } }, select: { id: true } });
      for (const { id } of pending) await markPaymentCancelled(tx, id);
      await change(tx, s, { status: 'cancelled', cancelledAt: at, endedAt: at, nextRetryAt: null, pausedAt: null });
      return;
    }
    case 'undoCancel':
      await change(tx, s, { cancelAtPeriodEnd: false, cancelledAt: null });
      return;
    case 'pause':
      await change(tx, s, { status: 'paused', pausedAt: at });
      return;
    case 'resume': {
      // Paused past its period's end: billing restarts now, with a new period charged at once.
      const restart = s.currentPeriodEnd !== null && s.currentPeriodEnd.getTime() <= clockMs;
      await change(tx, s, { status: 'active', pausedAt: null, ...(restart ? { currentPeriodEnd: at, billingAnchor: at } : {}) });
      return;
    }
    case 'charge':
    case 'changeItems':
      // Made by chargeOnce and changeItems (the processor call is outside this transaction).
      return;
    case 'endTrial': {
      // The trial's end moves to now: the workflow charges the first period at once, a once
      // discount with it (it covers the first paid period, which now starts here).
      const { discount } = await planOf(tx, s);
      const discountEndsAt = discount?.duration === 'once' ? { discountEndsAt: new Date(firstPaidPeriodEnd(s, clockMs)) } : {};
      await tx.subscription.update({ where: { id: s.id }, data: { trialEndsAt: at, currentPeriodEnd: at, billingAnchor: at, ...discountEndsAt } });
      return;
    }
    case 'paymentMethodReplaced': {
      // Unpaid: billing restarts now with a new period, charged at once on the new method.
      const restart = s.status === 'unpaid';
      await tx.subscription.update({ where: { id: s.id }, data: { paymentMethodRef: command.paymentMethodRef, ...(restart ? { currentPeriodEnd: at, billingAnchor: at } : {}) } });
      return;
    }
  }
}

/**
 * Request `commandId` (its update's id), once: its change and event, or ValidationFailed when the
 * subscription's state does not allow it (the API answers 400 with the message). Run again, it
 * answers the same without changing anything: the state as it now is, or the same refusal.
 */
export async function applyCommand(prisma: PrismaClient, subscriptionId: string, commandId: string, command: LifecycleCommand, clockMs: number): Promise<LifecycleState> {
  const refusal = await prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    const applied = await tx.subscriptionCommand.findUnique({ where: { id: commandId }, select: { refusal: true } });
    if (applied) return applied.refusal;
    const refused = refusalOf(s, command);
    if (refused === null) await applyChange(tx, s, command, clockMs);
    await tx.subscriptionCommand.create({ data: { id: commandId, subscriptionId, type: command.type, refusal: refused } });
    return refused;
  });
  if (refusal !== null) throw new ValidationFailed(refusal);
  return lifecycleState(prisma, subscriptionId);
}
