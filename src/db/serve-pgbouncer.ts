// `npm run db:pgbouncer`: PgBouncer in transaction mode (pgbouncer.ts) in front of the PostgreSQL
// server of PGBOUNCER_UPSTREAM_URL (default the machine's, postgresql://postgres@127.0.0.1:5432),
// on PGBOUNCER_PORT (default 6432; 0 a free one) with PGBOUNCER_POOL_SIZE server connections per
// database (default 20), its files under DATA_DIR/pgbouncer. For the test suite (TEST_PGBOUNCER)
// and local topologies; a deployment runs its own PgBouncer with the same settings.
import path from 'node:path';

import { config, intEnv } from '../config.js';
import { shutdownHandler, runUntilSignalledOrOrphaned } from '../lifecycle.js';
import { startPgBouncer } from './pgbouncer.js';

const shutdown = shutdownHandler();
const bouncer = await startPgBouncer({
  upstream: process.env.PGBOUNCER_UPSTREAM_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
  dir: path.join(config.dataDir, 'pgbouncer'),
  port: intEnv('PGBOUNCER_PORT', 6432),
  poolSize: intEnv('PGBOUNCER_POOL_SIZE', 20),
});
shutdown.onStop(() => bouncer.stop());
bouncer.failure.catch(shutdown.fatal);
console.log(`PgBouncer ready on port ${bouncer.port} (transaction mode)`);

runUntilSignalledOrOrphaned();
