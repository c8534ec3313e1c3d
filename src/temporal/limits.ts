// Temporal's limits that the service's own ids must meet.

/**
 * The longest workflow id a server on SQL persistence stores (`limit.maxIDLength`, a VARCHAR(255)
 * column); the local dev server is started with the same limit, so an id that works there works
 * on a production cluster.
 */
export const MAX_WORKFLOW_ID_LENGTH = 255;
