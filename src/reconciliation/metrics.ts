// The reconciliation on /metrics: the discrepancies the latest run over every workspace reported,
// per processor and kind (every kind 0 after a clean run), read from its rows when scraped, so
// that every API process serves the same figure whichever worker ran it. Alert on anything above 0.
import { Gauge } from 'prom-client';

import type { PrismaClient } from '../generated/prisma/client.js';
import { FINDING_KINDS } from './rules.js';

export function reconciliationGauge(prisma: PrismaClient): Gauge {
  return new Gauge({
    name: 'reconciliation_discrepancies',
    help: "Differences between our books and the processor's that the latest reconciliation run reported (not repaired), by processor and kind",
    labelNames: ['processor', 'kind'],
    registers: [],
    async collect() {
      const latest = await prisma.$queryRaw<{ id: string; processor: string }[]>`
        SELECT DISTINCT ON (processor) id, processor::text AS processor FROM "ReconciliationRun" WHERE "workspaceId" IS NULL ORDER BY processor, "finishedAt" DESC`;
      const counts = await prisma.reconciliationFinding.groupBy({ by: ['runId', 'kind'], where: { runId: { in: latest.map((run) => run.id) }, outcome: 'reported' }, _count: { _all: true } });
      this.reset();
      for (const run of latest) {
        for (const kind of FINDING_KINDS) this.set({ processor: run.processor, kind }, counts.find((c) => c.runId === run.id && c.kind === kind)?._count._all ?? 0);
      }
    },
  });
}
