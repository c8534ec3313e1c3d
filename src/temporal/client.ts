// The process's Temporal connection for request handlers and services (starting workflows,
// signalling them); startServer and the worker entry provide it once at start.
import type { TemporalConnection } from './connection.js';

let current: TemporalConnection | undefined;

export function provideTemporal(connection: TemporalConnection | undefined): void {
  current = connection;
}

/** The Temporal client, namespace and task queue of this process; throws before start. */
export function temporal(): TemporalConnection {
  if (!current) throw new Error('Temporal is not connected in this process (startServer or the worker entry connects it)');
  return current;
}
