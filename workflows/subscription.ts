import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';

import type { SubscriptionActivities } from '../src/subscriptions/activities.js';
import type { AttemptOutcome, LifecycleCommand, LifecycleState } from '../src/subscriptions/service.js';

export interface SubscriptionInput {
  subscriptionId: string;
  /** How far the subscription's clock runs ahead of real time (test clocks), in milliseconds. */
  clockOffsetMs: number;
  /** False for the first run (its first period gets its end); true after continue-as-new. */
  begun: boolean;
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

/** How long a renewal charge may stay pending at the processor (3-D Secure asked off-session) before it counts as failed. */
const PENDING_CHARGE_MS = 24 * 60 * 60 * 1000;

/**
 * One subscription (workflow id subscription/<workspace>/<number>), from its first paid period
 * to its end: renews at each period's end on the subscription's own clock (real time plus the
 * test clock's offset), retries failed renewals on the dunning schedule, applies requests between
 * its steps (so no charge starts after a cancel is answered), and continues as new after every
 * period, so its history stays bounded for subscriptions that live for years. The records are
 * the activities' (src/subscriptions/service.ts); the workflow decides when.
 */
export async function subscriptionWorkflow(input: SubscriptionInput): Promise<string> {
  const acts = proxyLocalActivities<SubscriptionActivities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['ValidationFailed'] },
  });
  const { subscriptionId } = input;
  let offset = input.clockOffsetMs;
  const clock = () => Date.now() + offset;
  const requests: { command: LifecycleCommand; resolve: (state: LifecycleState) => void; reject: (error: Error) => void }[] = [];
  const laterOutcomes = new Map<string, AttemptOutcome>();
  let advanced = false;
  // Set by a payment method replaced: a past_due renewal is retried at once; an unpaid subscription renews now.
  let retryNow = false;
  let state: LifecycleState | undefined;

  setHandler(advanceClockSignal, (toMs) => {
    offset = Math.max(offset, toMs - Date.now());
    advanced = true;
  });
  setHandler(commandUpdate, (command) => new Promise<LifecycleState>((resolve, reject) => requests.push({ command, resolve, reject })));
  setHandler(renewalChargeSignal, ({ outcome }) => {
    if (outcome.chargeId) laterOutcomes.set(outcome.chargeId, outcome);
  });
  setHandler(stateQuery, () => ({ ...state!, clockMs: clock() }));

  state = input.begun ? await acts.loadSubscription(subscriptionId) : await acts.beginSubscription(subscriptionId);

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
    const outcome = await acts.chargeRenewal(paymentId, attempt, atMs, dueMs);
    if (outcome.status !== 'pending' || !outcome.chargeId) return;
    const { chargeId } = outcome;
    const arrived = await condition(() => laterOutcomes.has(chargeId), PENDING_CHARGE_MS);
    const final: AttemptOutcome = arrived
      ? laterOutcomes.get(chargeId)!
      : { status: 'failed', chargeId: outcome.chargeId, failureCode: 'authentication_required', failureMessage: 'The charge was not confirmed in time' };
    await acts.bookRenewalOutcome(paymentId, attempt, final, clock(), dueMs);
  };

  // end-trial is answered once the charge it causes is booked (the answer shows active or past_due).
  const answerAfterStep: ((state: LifecycleState) => void)[] = [];
  let periodDone = false;
  for (;;) {
    while (requests.length > 0) {
      const request = requests.shift()!;
      try {
        if (request.command.type === 'charge') {
          await acts.chargeOnce(subscriptionId, request.command.paymentId, request.command.amount, clock());
          state = await acts.loadSubscription(subscriptionId);
        } else if (request.command.type === 'changeItems') {
          // The next renewal prices from the new items: they are the subscription's once this returns.
          await acts.changeItems(subscriptionId, request.command.changeId, request.command.items, clock());
          state = await acts.loadSubscription(subscriptionId);
        } else state = await acts.applySubscriptionCommand(subscriptionId, request.command, clock());
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
    if (ENDED.includes(state.status)) break;
    // A new run for every period, even in the middle of an advance (the next run carries the clock on).
    if ((periodDone || workflowInfo().continueAsNewSuggested) && requests.length === 0 && answerAfterStep.length === 0) {
      await condition(allHandlersFinished);
      if (requests.length === 0) return continueAsNew<typeof subscriptionWorkflow>({ subscriptionId, clockOffsetMs: offset, begun: true });
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
    const wake = () => requests.length > 0 || advanced || retryNow;
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
