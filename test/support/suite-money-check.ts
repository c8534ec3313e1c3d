// The money invariants and the reconciliation over the whole suite's database, once at its end
// (run by global-teardown.ts while the suite's server and Temporal still run): every workspace
// any test file made, money files or not. The suite's server holds the sandbox's webhooks in its
// outbox for the tests that read them (SANDBOX_WEBHOOK_DELIVERY=false); a deployment delivers
// them, so they are delivered first, as the relay would, and the workflows they wake are given
// time to settle. Prints what still breaks an invariant and exits 1; exits 0 when all hold.
import { config } from '../../src/config.js';
import { createPrismaClient } from '../../src/db/client.js';
import { relaySandboxWebhooks } from '../../src/payments/sandbox-webhook-relay.js';
import { SandboxProcessor } from '../../src/payments/processors/sandbox.js';
import { connectTemporal } from '../../src/temporal/client.js';
import { invariantViolations, violationsOnceSettled } from './invariants.js';

const SETTLE_WAIT_MS = 60_000;

// The webhooks' code hands outcomes to the reactions the domains' modules register (as the CLI's reconcile does).
await import('../../src/domains.js');

const since = new Date(Number(process.env.TEST_SUITE_STARTED_AT));
const started = Date.now();
// Straight to PostgreSQL when the suite goes through PgBouncer: the checks are long read-only queries.
const url = process.env.DATABASE_DIRECT_URL ?? process.env.DATABASE_URL!;
const prisma = createPrismaClient(url);
const temporal = await connectTemporal({ ...config.temporal, address: process.env.TEST_TEMPORAL_ADDRESS! });
try {
  const sandbox = new SandboxProcessor({ prisma });
  let delivered = 0;
  for (let applied = await relaySandboxWebhooks(prisma, temporal, sandbox); applied > 0; applied = await relaySandboxWebhooks(prisma, temporal, sandbox)) delivered += applied;
  const workspaceIds = (await prisma.workspace.findMany({ select: { id: true } })).map((w) => w.id);
  const violations = await violationsOnceSettled(() => invariantViolations(url, { workspaceIds, since }), SETTLE_WAIT_MS, 1000);
  if (violations.length > 0) {
    // The workspaces' names say which test file made the rows.
    const ids = [...new Set(violations.join('\n').match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])];
    const owners = await prisma.$queryRaw<{ name: string; id: string }[]>`
      SELECT DISTINCT w.name, w.id::text FROM "Workspace" w
      WHERE w.id IN (SELECT "workspaceId" FROM "Order" WHERE id::text = ANY(${ids}) UNION SELECT "workspaceId" FROM "Payment" WHERE id::text = ANY(${ids})
                     UNION SELECT "workspaceId" FROM "Refund" WHERE id::text = ANY(${ids}) UNION SELECT id FROM "Workspace" WHERE id::text = ANY(${ids})
                     UNION SELECT o."workspaceId" FROM "OrderItem" i JOIN "Order" o ON o.id = i."orderId" WHERE i.id::text = ANY(${ids}))`;
    console.error(
      `The money invariants do not hold after the whole suite (${workspaceIds.length} workspaces, ${delivered} held sandbox webhooks delivered first):\n${violations.join('\n')}\n` +
        `Their workspaces: ${owners.map((o) => `${o.name} (${o.id})`).join(', ')}`,
    );
    process.exitCode = 1;
  } else {
    console.log(`The money invariants hold after the whole suite: ${workspaceIds.length} workspaces; ${delivered} held sandbox webhooks delivered first; the reconciliation finds nothing (${((Date.now() - started) / 1000).toFixed(1)} s).`);
  }
} finally {
  await temporal.stop();
  await prisma.$disconnect();
}
