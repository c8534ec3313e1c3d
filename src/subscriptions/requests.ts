// The API's side of the lifecycle: requests go to the subscription's workflow as updates (applied
// between its steps, so a cancel answered is a cancel no renewal races), a test clock's advance
// as a signal whose effect is awaited in the records. Also the hooks the payments domain calls:
// a first payment paid starts the workflow; a renewal charge's processor event goes to it.
import { randomUUID } from 'node:crypto';

import { ApplicationFailure, WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';

import type { PrismaClient, Subscription } from '../generated/prisma/client.js';
import { TemporarilyUnavailable, Unauthenticated, ValidationFailed } from '../core/errors.js';
import type { Notifications } from '../db/notifications.js';
import type { Scope } from '../core/scope.js';
import { logger } from '../logger.js';
import type { ChargeOutcome, PaidPayment, RoutedPayment } from '../payments/index.js';
import { temporalUnreachable, type TemporalConnection } from '../temporal/client.js';
import type { subscriptionWorkflow } from '../../workflows/subscription.js';
import { SUBSCRIPTION_CLOCK_CHANNEL, subscriptionWorkflowId, type AttemptOutcome, type LifecycleCommand, type LifecycleState } from './service.js';
import { findSubscription } from './queries.js';
import { applyLateRenewalOutcome } from './renewal-outcomes.js';
import { checkItemsTotal, itemLine, type SubscriptionItemInput } from './items.js';

const log = logger.child({ component: 'subscriptions' });

// The workflow's update and signals by name: the compiled service cannot load workflow modules.
const COMMAND = 'command';
const ADVANCE_CLOCK = 'advanceClock';
const RENEWAL_CHARGE = 'renewalChargeOutcome';

export interface LifecycleDeps {
  prisma: PrismaClient;
  temporal: TemporalConnection;
}

const NOT_STARTED: readonly string[] = ['incomplete', 'incomplete_expired'];
/** Its workflow has closed, or is closing: it books no charge any more. */
const ENDED: readonly string[] = ['cancelled', ...NOT_STARTED];

/**
 * How the subscription's workflow starts, from the same arguments whoever starts it: the first
 * payment's hook, or any request that reaches it first (one sent the moment the purchase was
 * answered can beat the hook), with update- or signal-with-start. A running one takes the request
 * (USE_EXISTING); a closed one is never started again (REJECT_DUPLICATE): it closed because the
 * subscription ended, and the start fails WorkflowExecutionAlreadyStartedError.
 */
function workflowStart(deps: LifecycleDeps, s: Subscription) {
  return {
    taskQueue: deps.temporal.taskQueue,
    workflowId: subscriptionWorkflowId(s),
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    args: [{ subscriptionId: s.id, clockOffsetMs: Number(s.clockOffsetMs), begun: false }] as Parameters<typeof subscriptionWorkflow>,
  };
}

/** Its workflow closed: the subscription ended (the only way it closes). */
const ended = (error: unknown) => error instanceof WorkflowExecutionAlreadyStartedError || error instanceof WorkflowNotFoundError;

/** Temporal down or restarting is the caller's 503 (retry; with the same Idempotency-Key where the route takes one), never a 500. */
function unreachableAs503(error: unknown): unknown {
  return temporalUnreachable(error) ? new TemporarilyUnavailable('The workflow service did not answer; retry shortly') : error;
}

/** Sends a request to the subscription's workflow (started by it if need be) and waits for its answer; 400 with the workflow's reason when refused. */
export async function requestChange(deps: LifecycleDeps, scope: Scope, idOrNumber: string, command: LifecycleCommand): Promise<Subscription> {
  const subscription = await findSubscription(deps.prisma, scope, idOrNumber);
  if (NOT_STARTED.includes(subscription.status)) throw new ValidationFailed(`The subscription is ${subscription.status}: its first payment is not paid`);
  if (subscription.status === 'cancelled') throw new ValidationFailed('The subscription is cancelled');
  try {
    await deps.temporal.client.workflow.executeUpdateWithStart<typeof subscriptionWorkflow, LifecycleState, [LifecycleCommand]>(COMMAND, {
      args: [command],
      startWorkflowOperation: new WithStartWorkflowOperation<typeof subscriptionWorkflow>('subscriptionWorkflow', workflowStart(deps, subscription)),
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      if (error.cause instanceof ApplicationFailure && error.cause.type === 'TemporarilyUnavailable') throw new TemporarilyUnavailable(error.cause.message);
      throw new ValidationFailed(error.cause?.message ?? 'The request was refused');
    }
    // Ended meanwhile: a cancel at period end that just took effect, another cancel, or this very
    // cancel, whose answer was lost on its way back (a call retried under load finds the workflow it
    // closed). A cancel that finds the subscription cancelled has what it asked for.
    if (ended(error)) {
      const now = await deps.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } });
      if (command.type === 'cancel' && now.status === 'cancelled') return now;
      throw new ValidationFailed('The subscription no longer changes');
    }
    throw unreachableAs503(error);
  }
  return deps.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } });
}

/** The subscription's clock now: real time plus its test clock's offset. */
export const clockOf = (s: Pick<Subscription, 'clockOffsetMs'>, now = Date.now()) => now + Number(s.clockOffsetMs);

/** How far one advance may move a clock: 5 years (60 monthly renewals; Stripe's test clocks stop at two intervals). */
const MAX_ADVANCE_MS = 5 * 366 * 24 * 60 * 60 * 1000;

/**
 * How long an advance waits for the workflow to run everything due (a year of monthly renewals
 * takes seconds). It reads the subscription when the workflow's clock record notifies (LISTEN), and
 * once a second should no notice arrive (no LISTEN connection): not in a tight loop, which cost
 * the renewals it waited for a third of their database statements at 8 advances at once.
 */
const ADVANCE_WAIT = { ms: 60_000, unheardMs: 1000 };

/**
 * Test clocks: moves a test-mode subscription's clock to `to` (Unix seconds) and answers once
 * everything due by then ran, in order. 401 for live keys; 400 for a time not after its clock.
 */
export async function advanceClock(deps: LifecycleDeps & { notifications: Notifications }, scope: Scope, idOrNumber: string, to: number): Promise<Subscription> {
  if (scope.livemode) throw new Unauthenticated('Test helpers take test-mode keys only');
  if (!Number.isSafeInteger(to) || to < 0) throw new ValidationFailed('to must be a Unix time in seconds');
  const subscription = await findSubscription(deps.prisma, scope, idOrNumber);
  // To the end of second `to`: the API shows times in whole seconds, so everything it shows at or
  // before `to` (a period's end stored with its milliseconds, shown rounded down) is due by then.
  const toMs = to * 1000 + 999;
  const clockMs = clockOf(subscription);
  const clockSecond = Math.floor(clockMs / 1000);
  if (to <= clockSecond) throw new ValidationFailed(`to must be after the subscription's clock (${clockSecond})`);
  if (toMs > clockMs + MAX_ADVANCE_MS) throw new ValidationFailed('to may be at most 5 years after the subscription\'s clock (advance again for more)');
  if (NOT_STARTED.includes(subscription.status) || subscription.status === 'cancelled') throw new ValidationFailed(`A ${subscription.status} subscription has no clock to advance`);
  // Listening before the signal: the clock's record cannot commit unheard.
  const notices = await deps.notifications.subscribe(SUBSCRIPTION_CLOCK_CHANNEL, subscription.id);
  try {
    try {
      await deps.temporal.client.workflow.signalWithStart<typeof subscriptionWorkflow, [number]>('subscriptionWorkflow', { ...workflowStart(deps, subscription), signal: ADVANCE_CLOCK, signalArgs: [toMs] });
    } catch (error) {
      if (ended(error)) throw new ValidationFailed('The subscription no longer changes');
      throw unreachableAs503(error);
    }
    for (const deadline = Date.now() + ADVANCE_WAIT.ms; Date.now() < deadline; ) {
      const now = await deps.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } });
      if (clockOf(now) >= toMs) return now;
      await notices.next(AbortSignal.timeout(Math.max(1, Math.min(ADVANCE_WAIT.unheardMs, deadline - Date.now())))).catch(() => undefined);
    }
  } finally {
    notices.close();
  }
  throw new TemporarilyUnavailable('The subscription is still catching up with its clock; read it again shortly');
}

/**
 * The hook for payment-method updates (the payment-method session issue builds on it): the
 * subscription's saved method is now `paymentMethodRef`; a past_due renewal is retried at once, an
 * unpaid subscription renews now.
 */
export const replacePaymentMethod = (deps: LifecycleDeps, scope: Scope, idOrNumber: string, paymentMethodRef: string) =>
  requestChange(deps, scope, idOrNumber, { type: 'paymentMethodReplaced', paymentMethodRef });

/** onPaymentPaid: a subscription's first payment is paid, its workflow starts (unless a request started it first). */
export async function startSubscriptionWorkflow(deps: LifecycleDeps, payment: PaidPayment): Promise<void> {
  // Only a subscription's first payment starts it: any other payment reads nothing.
  if (payment.sequence !== 1 || !payment.subscriptionId) return;
  const subscription = await deps.prisma.subscription.findUnique({ where: { id: payment.subscriptionId } });
  if (!subscription || NOT_STARTED.includes(subscription.status)) return;
  try {
    await deps.temporal.client.workflow.start<typeof subscriptionWorkflow>('subscriptionWorkflow', workflowStart(deps, subscription));
  } catch (error) {
    // Closed already: a redelivered payment event after the subscription ended.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The charge status an outcome gives (the processor's word on it). */
const CHARGE_STATUS = { 'charge.succeeded': 'succeeded', 'charge.failed': 'failed', 'charge.cancelled': 'cancelled' } as const;

/**
 * onChargeOutcome: a renewal's charge outcome goes to its subscription's workflow, which matches
 * it to the attempt by charge id (the attempt waiting for it, or a late one: applyLateRenewalOutcome).
 * An outcome already booked as it says (a redelivered event) goes nowhere. Once the subscription
 * ended no workflow books anything: the late outcome is applied here (a success its payment does
 * not keep goes back), also when it ended between the read and the signal (its workflow may
 * close without reading it; applying it twice gives the money back once).
 */
export async function routeRenewalOutcome(deps: LifecycleDeps, routed: RoutedPayment, outcome: ChargeOutcome): Promise<boolean> {
  // Not a renewal (no period of a subscription): nothing to read.
  if (routed.subscriptionPeriod === null) return false;
  const paymentId = routed.id;
  const payment = await deps.prisma.payment.findUnique({
    where: { id: paymentId },
    select: { subscriptionPeriod: true, subscription: true, charges: { where: { processorChargeId: outcome.chargeId }, select: { status: true } } },
  });
  if (payment?.subscriptionPeriod == null || !payment.subscription) return false;
  if (payment.charges[0]?.status === CHARGE_STATUS[outcome.type]) return true;
  const attempt: AttemptOutcome =
    outcome.type === 'charge.succeeded'
      ? { status: 'succeeded', chargeId: outcome.chargeId }
      : outcome.type === 'charge.failed'
        ? { status: 'failed', chargeId: outcome.chargeId, failureCode: outcome.failureCode, failureMessage: outcome.failureMessage }
        : { status: 'failed', chargeId: outcome.chargeId, failureCode: 'cancelled', failureMessage: 'The charge was cancelled' };
  const subscription = payment.subscription;
  if (!ENDED.includes(subscription.status)) {
    try {
      await deps.temporal.client.workflow.signalWithStart<typeof subscriptionWorkflow, [{ paymentId: string; outcome: AttemptOutcome }]>('subscriptionWorkflow', {
        ...workflowStart(deps, subscription),
        signal: RENEWAL_CHARGE,
        signalArgs: [{ paymentId, outcome: attempt }],
      });
      const after = await deps.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id }, select: { status: true } });
      if (!ENDED.includes(after.status)) return true;
    } catch (error) {
      if (!ended(error)) throw error;
    }
  }
  log.info({ paymentId, chargeId: outcome.chargeId, type: outcome.type }, 'renewal charge event for a subscription that ended');
  await applyLateRenewalOutcome(deps, paymentId, attempt, clockOf(subscription));
  return true;
}

/**
 * onOrderCancelled: cancelling the order that started a subscription cancels the subscription now
 * (an order CANCELLED whose subscription keeps charging is what integrators fear most). A
 * subscription not started or already ended is left as it is.
 */
export async function cancelWithInitialOrder(deps: LifecycleDeps, scope: Scope, orderId: string): Promise<void> {
  const order = await deps.prisma.order.findUnique({ where: { id: orderId }, select: { number: true, subscription: true } });
  const subscription = order?.subscription;
  if (!subscription || subscription.number !== order.number || NOT_STARTED.includes(subscription.status) || subscription.status === 'cancelled') return;
  try {
    await requestChange(deps, scope, subscription.number, { type: 'cancel', atPeriodEnd: false });
  } catch (error) {
    // Ended meanwhile: nothing left to cancel.
    if (!(error instanceof ValidationFailed)) throw error;
  }
}

/** The items' total, minor units; 400 for an item without a price, a bad quantity or a total out of range. */
export function itemsTotal(items: readonly SubscriptionItemInput[]): number {
  if (items.length === 0) throw new ValidationFailed('items: at least one item');
  const total = items.reduce((sum, item, index) => {
    const line = itemLine(item, index);
    return sum + line.unitPrice * line.quantity;
  }, 0);
  return checkItemsTotal(total);
}

/** POST /v0/subscriptions/{id}/charge: a one-off charge of the items on the saved method, now (PAID, or FAILED: no dunning). */
export async function chargeSubscription(deps: LifecycleDeps, scope: Scope, idOrNumber: string, items: readonly SubscriptionItemInput[]) {
  const amount = itemsTotal(items);
  const paymentId = randomUUID();
  const subscription = await requestChange(deps, scope, idOrNumber, { type: 'charge', paymentId, amount });
  return { subscription, payment: await deps.prisma.payment.findUniqueOrThrow({ where: { id: paymentId } }) };
}
