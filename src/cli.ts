// Admin CLI: `npm run --silent cli -- <command>`. Results are JSON on stdout; logs go to stderr.
process.env.LOG_FD = '2';

const USAGE = `Usage:
  cli workspace create --name <name>
  cli workspace set <workspaceId> <key>=<value> ...
  cli workspace show <workspaceId>
  cli keys rotate <workspaceId>`;

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
  throw new Error(USAGE);
}

try {
  const result = await main(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
