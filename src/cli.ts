// Admin CLI: `npm run --silent cli -- <command>`. Results are JSON on stdout; logs go to stderr.
process.env.LOG_FD = '2';

import type { PrismaClient } from './generated/prisma/client.js';

const USAGE = `Usage:
  cli workspace create --name <name>
  cli workspace set <workspaceId> <key>=<value> ...
  cli workspace show <workspaceId>
  cli keys rotate <workspaceId>
  cli reconcile [--workspace <id>] [--since <ISO time>] [--until <ISO time>] [--dry-run]`;

/** What a command prints as it is (a table) instead of as JSON. */
class Printed {
  constructor(readonly text: string) {}
}

async function main(argv: string[]): Promise<unknown> {
  const { connectDatabase } = await import('./db/embedded.js');
  const { migrateDeploy } = await import('./db/migrate.js');
  const { createPrismaClient } = await import('./db/client.js');
  const workspaces = await import('./workspaces/service.js');
  const [group, command, ...rest] = argv;
  const run = async (action: (prisma: ReturnType<typeof createPrismaClient>) => Promise<unknown>) => {
    // Through the running server's embedded database when there is one; never a second opener.
    const database = await connectDatabase();
    const prisma = createPrismaClient(database.url);
    try {
      await migrateDeploy(database.directUrl);
      return await action(prisma);
    } finally {
      await prisma.$disconnect();
      await database.close();
    }
  };
  if (group === 'workspace' && command === 'create') {
    const at = rest.indexOf('--name');
    const name = at >= 0 ? rest[at + 1] : undefined;
    if (!name) throw new Error('workspace create needs --name <name>');
    return run((prisma) => workspaces.createWorkspace(prisma, name));
  }
  if (group === 'workspace' && command === 'set') {
    const [workspaceId, ...assignments] = rest;
    if (!workspaceId) throw new Error('workspace set needs a workspace id');
    return run((prisma) => workspaces.setWorkspaceSettings(prisma, workspaceId, assignments));
  }
  if (group === 'workspace' && command === 'show') {
    const [workspaceId] = rest;
    if (!workspaceId) throw new Error('workspace show needs a workspace id');
    return run(async (prisma) => workspaces.settingsView(await workspaces.requireWorkspace(prisma, workspaceId)));
  }
  if (group === 'keys' && command === 'rotate') {
    const [workspaceId] = rest;
    if (!workspaceId) throw new Error('keys rotate needs a workspace id');
    return run((prisma) => workspaces.rotateKeys(prisma, workspaceId));
  }
  if (group === 'reconcile') return run((prisma) => reconcileCommand(prisma, argv.slice(1)));
  throw new Error(USAGE);
}

/** Our books against the processor's, repairs applied unless --dry-run; a table of what was found. */
async function reconcileCommand(prisma: PrismaClient, args: string[]): Promise<Printed> {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, 'dry-run': { type: 'boolean', default: false } } });
  const { reconcileConfigured, reportTable, WINDOW_HOURS } = await import('./reconciliation/index.js');
  // Repairs run the webhooks' code, which hands refund and stranded-charge events to the reactions the domains' modules register.
  await import('./domains.js');
  const time = (name: string, raw: string | undefined, fallback: Date) => {
    if (raw === undefined) return fallback;
    const parsed = new Date(raw);
    if (Number.isNaN(parsed.getTime())) throw new Error(`--${name} must be an ISO time such as 2026-11-27T00:00:00Z`);
    return parsed;
  };
  const until = time('until', values.until, new Date());
  const since = time('since', values.since, new Date(until.getTime() - WINDOW_HOURS * 3_600_000));
  const dryRun = values['dry-run'];
  // Repairs signal payment workflows and start refund workflows: Temporal is needed unless nothing is repaired.
  const temporal = dryRun ? null : await (await import('./temporal/client.js')).connectTemporal();
  try {
    const report = await reconcileConfigured({ prisma, temporal, now: () => new Date() }, { since, until, workspaceIds: values.workspace ? [values.workspace] : undefined, dryRun });
    return new Printed(reportTable(report));
  } finally {
    await temporal?.stop();
  }
}

try {
  const result = await main(process.argv.slice(2));
  process.stdout.write(result instanceof Printed ? result.text : `${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
