// Every workflow the workers run: the worker bundles this file for the workflow sandbox, so
// workflow code is deterministic and imports only @temporalio/workflow and types from src/.
export * from './bench-noop.js';
export * from './platform-health-check.js';
export * from './webhook-delivery.js';
