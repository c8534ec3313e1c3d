// tsx src/db/migrate-cli.ts deploy
// tsx src/db/migrate-cli.ts dev --name <name> [--accept-data-loss]
// tsx src/db/migrate-cli.ts resolve --rolled-back <migration>
// Uses DATABASE_DIRECT_URL, else DATABASE_URL, or the embedded PostgreSQL when both are unset.
import { parseArgs } from 'node:util';

import { connectDatabase } from './embedded.js';
import { markRolledBack, migrateDeploy, migrateDev } from './migrate.js';

const USAGE = 'usage: migrate-cli deploy | dev --name <name> [--accept-data-loss] | resolve --rolled-back <migration>';

function command(argv: string[]): (url: string) => Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'accept-data-loss': { type: 'boolean', default: false },
      'rolled-back': { type: 'string' },
    },
  });
  const [name, ...extra] = positionals;
  const { name: migrationName, 'accept-data-loss': acceptDataLoss, 'rolled-back': rolledBack } = values;
  if (extra.length > 0) throw new Error(USAGE);
  if (name === 'deploy') {
    return async (url) => {
      const applied = await migrateDeploy(url);
      return applied.length > 0 ? `applied ${applied.join(', ')}` : 'no pending migrations';
    };
  }
  if (name === 'dev' && migrationName) {
    return async (url) => {
      const created = await migrateDev(url, migrationName, { acceptDataLoss });
      return created ? `created and applied ${created}` : 'no schema change: no migration created';
    };
  }
  if (name === 'resolve' && rolledBack) {
    return async (url) => {
      await markRolledBack(url, rolledBack);
      return `marked ${rolledBack} as rolled back`;
    };
  }
  throw new Error(USAGE);
}

async function main(): Promise<void> {
  const run = command(process.argv.slice(2));
  const database = await connectDatabase();
  try {
    console.log(await run(database.directUrl));
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
