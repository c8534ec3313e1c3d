// The reconciliation's public door: what other code (the admin CLI, the tests' invariants) may use.
/** The admin CLI's `reconcile` and the test suite's invariants checker run a reconciliation. */
export { reconcile, type Finding, type ReconcileOptions, type ReconciliationReport } from './service.js';
/** The CLI prints a run as a table. */
export { reportTable } from './table.js';
/** The tests make sure of the schedule and read it back by its id. */
export { ensureReconciliationSchedule, reconciliationScheduleId } from './schedule.js';
/** The CLI runs against the configured processor, by default over the scheduled run's window. */
export { reconcileConfigured, WINDOW_HOURS } from './activities.js';
/** The /metrics gauge, read by the tests against a database of their own. */
export { reconciliationGauge } from './metrics.js';
