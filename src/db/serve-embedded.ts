// `npm run db:embedded`: the embedded PostgreSQL of DATA_DIR on its own, for servers, workers and
// the CLI to share (they find it through its lock file), and for the test suite. Prints the URL
// without the password, which is in DATA_DIR/postgres.password.
import { config } from '../config.js';
import { shutdownHandler, runUntilSignalledOrOrphaned } from '../lifecycle.js';
import { connectDatabase, embeddedPaths } from './embedded.js';

const shutdown = shutdownHandler();
if (process.env.DATABASE_URL) {
  console.error('DATABASE_URL is set: there is no embedded PostgreSQL to run');
  process.exit(1);
}
const database = await connectDatabase();
shutdown.onStop(() => database.close());
const url = new URL(database.url);
url.password = '';
console.log(`Embedded PostgreSQL ready at ${url.toString()} (password in ${embeddedPaths(config.dataDir).passwordFile})`);

runUntilSignalledOrOrphaned();
