// Entry point of `npm run worker` (src/main.ts is the one of `npm start`): Temporal workers alone,
// so API and workers scale separately. Same configuration as the server (database, Temporal);
// with no TEMPORAL_ADDRESS it uses the dev server of DATA_DIR, started by whichever process comes
// first.
import { connectDatabase } from './db/embedded.js';
import { createPrismaClient } from './db/client.js';
import { migrateDeploy } from './db/migrate.js';
import { shutdownHandler } from './lifecycle.js';
import { logger } from './logger.js';
import { refuseIncompleteProduction } from './production-settings.js';
import { connectTemporal } from './temporal/client.js';
import { bundleWorkflows, runWorker } from './temporal/worker.js';
import { webhookAllowHostsFromEnv } from './webhooks/index.js';

// Production's settings and a malformed SSRF allow-list stop the start, as in the server, before anything connects.
refuseIncompleteProduction();
webhookAllowHostsFromEnv();
const shutdown = shutdownHandler();
const [workflowBundle, database, temporal] = await Promise.all([bundleWorkflows(), connectDatabase(), connectTemporal()]);
await migrateDeploy(database.directUrl);
const prisma = createPrismaClient(database.url);
// Its dispatcher also hands over what was left pending while no worker ran.
const worker = await runWorker(prisma, temporal, workflowBundle);
shutdown.onStop(async () => {
  await worker.shutdown();
  await temporal.stop();
  await prisma.$disconnect();
  await database.close();
});
Promise.race([worker.failure, temporal.failure]).catch(shutdown.fatal);
logger.info({ address: temporal.address, namespace: temporal.namespace, taskQueue: worker.taskQueue }, 'worker running');
if (temporal.uiUrl) console.log(`Temporal dev server at ${temporal.address} (namespace ${temporal.namespace}), UI ${temporal.uiUrl}`);
console.log(`Temporal worker polling task queue ${worker.taskQueue} at ${temporal.address} (namespace ${temporal.namespace})`);
