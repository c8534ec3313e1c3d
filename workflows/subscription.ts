import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  currentUpdateInfo,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
  type RetryPolicy,
} from '@temporalio/workflow';

import type { SubscriptionActivities } from '../src/subscriptions/activities.js';
import type { AttemptOutcome, LifecycleCommand, LifecycleState } from '../src/subscriptions/service.js';

export interface SubscriptionInput {
  subscriptionId: string;
  /** How far the subscription's clock runs ahead of real time (test clocks), in milliseconds. */
  clockOffsetMs: number;
  /** False for the first run (its first period gets its end); true after continue-as-new. */
  begun: boolean;
  /** After continue-as-new: the state the previous run ended with, the state query's answer until this run has loaded its own. */
  lastState?: LifecycleState;
}

/** A request (cancel, undo, pause, resume, payment method replaced, a charge, an items change): answered with the state after it, or failed with the reason (400). */
export const commandUpdate = defineUpdate<LifecycleState, [LifecycleCommand]>('command');
/** A test clock's advance to this time (Unix milliseconds): everything due by then runs, in order. */
export const advanceClockSignal = defineSignal<[number]>('advanceClock');
/** The processor's later word on a renewal charge that was pending (routed by charge id). */
export const renewalChargeSignal = defineSignal<[{ paymentId: string; outcome: AttemptOutcome }]>('renewalChargeOutcome');
/** The state the workflow works from and its clock (Unix milliseconds). */
export const stateQuery = defineQuery<LifecycleState & { clockMs: number }>('state');

const ENDED: readonly string[] = ['cancelled', 'incomplete', 'incomplete_expired'];

/** The charge timings of a run begun before the worker said them (its first state): as that run began. */
const TIMINGS_BEFORE = { pendingChargeMs: 24 * 60 * 60 * 1000, chargeWindowMs: undefined };

/** What the attempt becomes when its pending charge was never confirmed (nor cancelled in time). */
const NOT_CONFIRMED = { failureCode: 'authentication_required', failureMessage: 'The charge was not confirmed in time' };

/** A charge activity's call came past its idempotency key's window (the processor never answered before): it did not call. */
function windowPassed(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === 'ChargeWindowPassed';
}

/**
 * One subscription (workflow id subscription/<workspace>/<number>), from its first paid period
 * to its end: renews at each period's end on the subscription's own clock (real time plus the
 * test clock's offset), retries failed renewals on the dunning schedule, applies requests between
 * its steps (so no charge starts after a cancel is answered), and continues as new after every
 * period it waits past (the periods a test clock's advance catches up share one run), so its
 * history stays bounded for subscriptions that live for years. The records are
 * the activities' (src/subscriptions/service.ts); the workflow decides when.
 */
export async function subscriptionWorkflow(input: SubscriptionInput): Promise<string> {
  const retry: RetryPolicy = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['ValidationFailed', 'ChargeWindowPassed'] };
  const acts = proxyLocalActivities<SubscriptionActivities>({ startToCloseTimeout: '1 minute', retry });
  const { subscriptionId } = input;
  let offset = input.clockOffsetMs;
  const clock = () => Date.now() + offset;
  const requests: { id: string; command: LifecycleCommand; resolve: (state: LifecycleState) => void; reject: (error: Error) => void }[] = [];
  // The processor's word on renewal charges, by charge id: the one a pending attempt waits for, or a late one.
  const laterOutcomes = new Map<string, { paymentId: string; outcome: AttemptOutcome }>();
  let advanced = false;
  // Set by a payment method replaced: a past_due renewal is retried at once; an unpaid subscription renews now.
  let retryNow = false;
  let state: LifecycleState | undefined = input.lastState;

  setHandler(advanceClockSignal, (toMs) => {
    offset = Math.max(offset, toMs - Date.now());
    advanced = true;
  });
  // The update's id names the request: applied once however often its workflow task runs.
  setHandler(commandUpdate, (command) => {
    const id = currentUpdateInfo()!.id;
    return new Promise<LifecycleState>((resolve, reject) => requests.push({ id, command, resolve, reject }));
  });
  setHandler(renewalChargeSignal, (late) => {
    if (late.outcome.chargeId) laterOutcomes.set(late.outcome.chargeId, late);
  });
  setHandler(stateQuery, () => ({ ...state!, clockMs: clock() }));

  state = input.begun ? await acts.loadSubscription(subscriptionId) : await acts.beginSubscription(subscriptionId);
  // The worker's charge timings, read at each run's start: a new configuration applies from each subscription's next period.
  const { pendingChargeMs, chargeWindowMs } = state.timings ?? TIMINGS_BEFORE;
  // A charge is retried under its idempotency key only within the key's window (below the
  // processor's retention of keys): each call is told the deadline (its schedule-to-close), and
  // refuses to call the processor past it. The deadline travels with the call, not as Temporal's
  // scheduleToCloseTimeout: a local activity's retries went on past that (SDK 1.24). It is the
  // workflow's time when it first asked, kept once the retries back off with a timer (after their
  // first minute); a worker lost within that minute replays the call from a later time.
  const deadline = () => (chargeWindowMs === undefined ? Number.MAX_SAFE_INTEGER : Date.now() + chargeWindowMs);

  /**
   * A charge within its key's window, or null once the window passed without the processor's
   * answer: whether it charged is unknown, so the attempt requires attention (an operator event)
   * and no call is made for it under a new key; its event, when it comes, decides it.
   */
  const withinWindow = async <T>(paymentId: string, attempt: number, call: (deadlineMs: number) => Promise<T>): Promise<T | null> => {
    try {
      return await call(deadline());
    } catch (error) {
      if (!windowPassed(error)) throw error;
      await acts.markAttemptRequiresAttention(paymentId, attempt);
      return null;
    }
  };

  /** When the next step is due on the subscription's clock; null when only a request can move it. */
  const nextDue = (s: LifecycleState): number | null => {
    // Paused: nothing is charged; a cancel scheduled for the period's end still ends it then.
    if (s.status === 'paused') return s.cancelAtPeriodEnd ? s.periodEndMs : null;
    // A first attempt with no retry planned was started by a workflow task that never completed
    // (a lost worker, a timed-out task: local activities are recorded only with their task):
    // charge it again now, under the same idempotency key, so the processor answers with the
    // charge it may already have made. Later attempts wait for their retry or the processor.
    if (s.dunning) return retryNow ? clock() : (s.dunning.nextRetryMs ?? (s.dunning.attempts === 0 ? s.dunning.dueMs : null));
    // The payment method was replaced: the command moved the period's end to now.
    if (s.status === 'unpaid') return retryNow ? s.periodEndMs : null;
    return s.periodEndMs;
  };

  /**
   * Charges attempt `attempt` and, while it is pending, waits for the processor's word on it.
   * `atMs` is when the step was due on the subscription's clock: one advance across several
   * periods books each renewal at its own moment, as if the time had passed.
   */
  const charge = async (paymentId: string, attempt: number, dueMs: number, atMs: number) => {
    const outcome = await withinWindow(paymentId, attempt, (deadlineMs) => acts.chargeRenewal(paymentId, attempt, atMs, dueMs, deadlineMs));
    if (outcome?.status !== 'pending' || !outcome.chargeId) return;
    const { chargeId } = outcome;
    const heard = () => laterOutcomes.has(chargeId);
    if (!(await condition(heard, pendingChargeMs))) {
      // Given up: cancelled at the processor first, as the payment workflow's expiry does, so that
      // no money moves for an attempt booked failed. One no longer pending settled meanwhile: its
      // word decides it (waited for as long again). A success that could not be cancelled, or
      // comes later still, is not kept: it goes back (applyLateRenewalOutcome).
      const cancelled = await acts.cancelRenewalCharge(paymentId, attempt).catch(() => true);
      if (!cancelled) await condition(heard, pendingChargeMs);
    }
    const final: AttemptOutcome = laterOutcomes.get(chargeId)?.outcome ?? { status: 'failed', chargeId, ...NOT_CONFIRMED };
    laterOutcomes.delete(chargeId);
    await acts.bookRenewalOutcome(paymentId, attempt, final, clock(), dueMs);
  };

  // end-trial is answered once the charge it causes is booked (the answer shows active or past_due).
  const answerAfterStep: ((state: LifecycleState) => void)[] = [];
  let periodDone = false;
  const quiet = () => requests.length === 0 && answerAfterStep.length === 0;
  /** Continues as new (the next run carries the clock on), unless a request or an outcome came meanwhile: the loop takes it first. */
  const continueOnceSettled = async () => {
    await condition(allHandlersFinished);
    if (requests.length === 0 && laterOutcomes.size === 0) await continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, clockOffsetMs: offset, begun: true, lastState: state });
  };
  for (;;) {
    while (requests.length > 0) {
      const request = requests.shift()!;
      try {
        if (request.command.type === 'charge') {
          const { paymentId, amount } = request.command;
          // Past the window it is answered as it stands: the payment PENDING, its charge requiring attention.
          await withinWindow(paymentId, 0, (deadlineMs) => acts.chargeOnce(subscriptionId, paymentId, amount, clock(), deadlineMs));
          state = await acts.loadSubscription(subscriptionId);
        } else if (request.command.type === 'changeItems') {
          // The next renewal prices from the new items: they are the subscription's once this returns.
          await acts.changeItems(subscriptionId, request.command.changeId, request.command.items, clock());
          state = await acts.loadSubscription(subscriptionId);
        } else state = await acts.applySubscriptionCommand(subscriptionId, request.id, request.command, clock());
        if (request.command.type === 'paymentMethodReplaced' && (state.dunning || state.status === 'unpaid')) retryNow = true;
        if (request.command.type === 'endTrial') answerAfterStep.push(request.resolve);
        else request.resolve(state);
      } catch (error) {
        // A local activity's refusal arrives as the ApplicationFailure itself, a remote one's wrapped in an ActivityFailure.
        const refusal = error instanceof ActivityFailure ? error.cause : error;
        // A refusal is 400 with its reason; the processor unreachable (a plan change's charge) is 503, to retry.
        const known = refusal instanceof ApplicationFailure && (refusal.type === 'ValidationFailed' || refusal.type === 'TemporarilyUnavailable') ? refusal : null;
        request.reject(ApplicationFailure.create({ type: known?.type ?? 'ValidationFailed', message: known?.message ?? 'The request could not be applied', nonRetryable: true }));
      }
    }
    // The processor's word on charges no attempt waits for: booked if their attempt is still open, else a success goes back.
    if (laterOutcomes.size > 0) {
      for (const [chargeId, { paymentId, outcome }] of laterOutcomes) {
        laterOutcomes.delete(chargeId);
        await acts.applyLateRenewalOutcome(paymentId, outcome, clock());
      }
      state = await acts.loadSubscription(subscriptionId);
      continue;
    }
    if (ENDED.includes(state.status)) break;
    // A very long catch-up (years on a test clock) starts a new run before its history grows large.
    if (workflowInfo().continueAsNewSuggested && quiet()) {
      await continueOnceSettled();
      continue;
    }

    const due = nextDue(state);
    if (due !== null && due <= clock()) {
      const { dunning, periodEndMs }: LifecycleState = state;
      if (dunning) {
        retryNow = false;
        await charge(dunning.paymentId, dunning.attempts, dunning.dueMs, due);
      } else if (state.cancelAtPeriodEnd) {
        state = await acts.endAtPeriodEnd(subscriptionId, periodEndMs!);
        continue;
      } else {
        retryNow = false;
        const renewal = await acts.startRenewal(subscriptionId, state.period + 1, periodEndMs!);
        if (renewal) await charge(renewal.paymentId, 0, periodEndMs!, due);
      }
      state = await acts.loadSubscription(subscriptionId);
      for (const answer of answerAfterStep.splice(0)) answer(state);
      periodDone = !state.dunning;
      continue;
    }

    // Everything due by the advanced clock has run: the advance is answered from this record.
    advanced = false;
    if (offset > state.clockOffsetMs) {
      await acts.recordClock(subscriptionId, offset);
      state = { ...state, clockOffsetMs: offset };
    }
    // A new run for every period, once nothing more is due: a period later in real time, one run
    // each. Not in the middle of a test clock's advance: the server holds a continued run's first
    // task until its predecessor lived a second (history.workflowIdReuseMinimalInterval), which made
    // every period of an advance cost a second; the periods it catches up share one run.
    if (periodDone && quiet()) {
      await continueOnceSettled();
      continue;
    }
    const wake = () => requests.length > 0 || advanced || retryNow || laterOutcomes.size > 0;
    if (due === null) await condition(wake);
    else await condition(wake, due - clock());
  }
  for (const answer of answerAfterStep.splice(0)) answer(state);
  // Requests that arrived as it ended are refused (the subscription no longer changes).
  for (const request of requests.splice(0)) request.reject(ApplicationFailure.create({ type: 'ValidationFailed', message: `A subscription in status ${state.status} cannot change`, nonRetryable: true }));
  await condition(allHandlersFinished);
  if (offset > state.clockOffsetMs) await acts.recordClock(subscriptionId, offset);
  return state.status;
}
