// The services' own Prometheus metrics (beside the HTTP ones of src/http/metrics.ts): counters a
// domain keeps about what it saw, served by every server's /metrics with the HTTP ones.
import { Registry } from 'prom-client';

/** The process's registry for the domains' metrics; /metrics merges it with the server's own. */
export const serviceMetrics = new Registry();
