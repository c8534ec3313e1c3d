// The topology's figures (docs/deployment.md, "The worked example"): paid checkouts per second
// through one API and one worker (the API's own port, the second worker stopped), then through
// HAProxy with two of each; and where the time goes: CPU seconds per paid checkout of each part
// (the APIs, the workers, the Temporal server, PgBouncer, HAProxy, the database's backends).
import { randomUUID } from 'node:crypto';
import os from 'node:os';

import { CARD, postgresCpuSeconds, postgresCpuSince, treeCpuSeconds } from './support.js';
import type { Topology } from '../scripts/topology.js';

const CHECKOUTS = Number(process.env.TOPOLOGY_BENCH_CHECKOUTS ?? 150);
const CONCURRENCY = 16;

async function round(topology: Topology, url: string, elementId: string) {
  const roots = topology.roots();
  const cpu = () => Object.fromEntries(Object.entries(roots).map(([part, pids]) => [part, pids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0)]));
  const [before, dbBefore] = [cpu(), postgresCpuSeconds(topology.database)];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CHECKOUTS) {
        const response = await fetch(`${url}/checkout/${elementId}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify({ email: `buyer-${randomUUID()}@example.com`, billingDetails: { countryCode: 'HK' }, card: CARD }) });
        const body = (await response.json()) as { data?: { order?: { status?: string } } };
        if (body.data?.order?.status !== 'PAID') throw new Error(`checkout answered ${response.status}: ${JSON.stringify(body)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = cpu();
  const parts = Object.keys(before).map((part) => `${part} ${(((after[part]! - before[part]!) * 1000) / CHECKOUTS).toFixed(1)}`);
  parts.push(`postgres ${((postgresCpuSince(dbBefore, postgresCpuSeconds(topology.database)) * 1000) / CHECKOUTS).toFixed(1)}`);
  return `${(CHECKOUTS / seconds).toFixed(1)} paid checkouts/s (${CHECKOUTS}, ${CONCURRENCY} at a time; load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs); CPU ms per checkout: ${parts.join(', ')}`;
}

export async function measureCheckouts(topology: Topology, elementId: string): Promise<string> {
  const second = topology.workers[1]!;
  await second.running.stop();
  const one = await round(topology, topology.apis[0]!.running.url!, elementId);
  await second.restart();
  const two = await round(topology, topology.url, elementId);
  return `One API + one worker: ${one}\nTwo APIs + two workers (HAProxy): ${two}`;
}
