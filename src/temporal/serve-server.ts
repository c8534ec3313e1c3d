// `npm run temporal:server`: a Temporal server on PostgreSQL in the foreground (temporal-server.ts),
// for the service to reach with TEMPORAL_ADDRESS. Its settings (README, "Temporal"):
// TEMPORAL_SERVER_DATABASE_URL, TEMPORAL_SERVER_HOST, TEMPORAL_SERVER_PORT,
// TEMPORAL_SERVER_HISTORY_SHARDS, TEMPORAL_SERVER_RETENTION_DAYS, TEMPORAL_NAMESPACE.
import { intEnv } from '../config.js';
import { shutdownHandler, runUntilSignalledOrOrphaned } from '../lifecycle.js';
import { startTemporalServer } from './temporal-server.js';

const shutdown = shutdownHandler();
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
const server = await startTemporalServer({
  databaseUrl: process.env.TEMPORAL_SERVER_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/temporal',
  host: process.env.TEMPORAL_SERVER_HOST || '127.0.0.1',
  port: intEnv('TEMPORAL_SERVER_PORT', 7233),
  historyShards: intEnv('TEMPORAL_SERVER_HISTORY_SHARDS', 4),
  namespace,
  retentionDays: intEnv('TEMPORAL_SERVER_RETENTION_DAYS', 30),
  output: (lines) => process.stderr.write(`${lines}\n`),
});
shutdown.onStop(() => server.stop());
server.failure.catch(shutdown.fatal);
console.log(`Temporal server ready at ${server.address} (namespace ${namespace})`);

runUntilSignalledOrOrphaned();
