// tsx src/db/migrate-cli.ts deploy
// tsx src/db/migrate-cli.ts dev --name <name> [--accept-data-loss]
// tsx src/db/migrate-cli.ts resolve --rolled-back <migration>
// Uses DATABASE_URL, or the embedded PostgreSQL when it is unset.
import { parseArgs } from 'node:util';

import { connectDatabase } from './embedded.js';
import { markRolledBack, migrateDeploy, migrateDev } from './migrate.js';

const usage =
  'usage: migrate-cli deploy | dev --name <name> [--accept-data-loss] | resolve --rolled-back <migration>';

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'accept-data-loss': { type: 'boolean', default: false },
      'rolled-back': { type: 'string' },
    },
  });
  const [command, ...extra] = positionals;
  if (extra.length > 0) throw new Error(usage);

  const database = await connectDatabase();
  try {
    switch (command) {
      case 'deploy': {
        const applied = await migrateDeploy(database.url);
        console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'no pending migrations');
        break;
      }
      case 'dev': {
        if (!values.name) throw new Error(usage);
        const created = await migrateDev(database.url, values.name, { acceptDataLoss: values['accept-data-loss'] });
        console.log(created ? `created and applied ${created}` : 'no schema change: no migration created');
        break;
      }
      case 'resolve': {
        if (!values['rolled-back']) throw new Error(usage);
        await markRolledBack(database.url, values['rolled-back']);
        console.log(`marked ${values['rolled-back']} as rolled back`);
        break;
      }
      default:
        throw new Error(usage);
    }
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
