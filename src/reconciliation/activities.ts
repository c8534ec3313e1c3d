// The scheduled run's activity (workflows/reconciliation.ts): a reconciliation of the configured
// processor over the last WINDOW_HOURS, with repairs. Retrying it is safe: every repair goes
// through the webhooks' idempotent code (a second run finds it done), and each try records a run
// of its own.
import type { ActivityDependencies } from '../domain-module.js';
import { createPaymentProcessor, paymentProcessorConfigFromEnv } from './domain-calls.js';
import { reconcile, type ReconcileDeps, type ReconcileOptions } from './service.js';

/**
 * How far back a scheduled run looks: two days, so that every hourly run sees again what the ones
 * before saw (a refund the processor settles a day later is still in the window).
 */
export const WINDOW_HOURS = 48;

export interface RunSummary {
  runId: string | null;
  chargesChecked: number;
  refundsChecked: number;
  repaired: number;
  reported: number;
}

/** A run against the processor PAYMENT_PROCESSOR configures (the schedule's and the CLI's). */
export function reconcileConfigured(deps: Omit<ReconcileDeps, 'processor'>, options: ReconcileOptions) {
  return reconcile({ ...deps, processor: createPaymentProcessor(paymentProcessorConfigFromEnv(), { prisma: deps.prisma, now: deps.now }) }, options);
}

export function createReconciliationActivities({ prisma, temporal }: ActivityDependencies) {
  return {
    async reconcileWithProcessor(): Promise<RunSummary> {
      const now = () => new Date();
      const until = now();
      const report = await reconcileConfigured({ prisma, temporal, now }, { since: new Date(until.getTime() - WINDOW_HOURS * 3_600_000), until });
      const repaired = report.findings.filter((f) => f.outcome === 'repaired').length;
      return { runId: report.runId, chargesChecked: report.chargesChecked, refundsChecked: report.refundsChecked, repaired, reported: report.findings.length - repaired };
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
