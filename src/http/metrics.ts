import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** Prometheus metrics: request counts and latencies per route pattern and status, and the domains' own (`domainMetrics`). */
export function createMetrics(domainMetrics: readonly Metric[] = []) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of domainMetrics) registry.registerMetric(metric);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    observe(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
