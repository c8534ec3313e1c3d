import { shutdownHandler } from './lifecycle.js';
import { logger } from './logger.js';
import { refuseIncompleteProduction } from './production-settings.js';
import { startServer } from './server.js';

// Entry point of `npm start`: the whole service on embedded defaults unless configured otherwise.
refuseIncompleteProduction();
const shutdown = shutdownHandler();
const server = await startServer();
shutdown.onStop(() => server.close());
const { temporal } = server;
logger.info({ url: server.url, temporal }, 'listening');
// Printed before the "listening" line, which tells scripts that everything is up.
console.log(
  temporal.uiUrl
    ? `Temporal dev server at ${temporal.address} (namespace ${temporal.namespace}), UI ${temporal.uiUrl}`
    : `Temporal at ${temporal.address} (namespace ${temporal.namespace})`,
);
console.log(
  temporal.worker
    ? `Temporal worker in this process on task queue ${temporal.taskQueue}`
    : `No Temporal worker in this process (WORKER_IN_PROCESS=false): run \`npm run worker\` for task queue ${temporal.taskQueue}`,
);
console.log(`Commerce API listening on ${server.url} (REST ${server.url}/v0, GraphQL ${server.url}/graphql)`);
server.failure.catch(shutdown.fatal);
