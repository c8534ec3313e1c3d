// `npm run temporal:dev`: the dev server of DATA_DIR on its own, for the server and worker
// processes to share (they find it through the lock file), and for the test suite.
import { config } from '../config.js';
import { shutdownHandler, runUntilSignalledOrOrphaned } from '../lifecycle.js';
import { startDevServer } from './dev-server.js';

const shutdown = shutdownHandler();
const { devPort, uiPort, namespace } = config.temporal;
const server = await startDevServer({ dataDir: config.dataDir, port: devPort, uiPort, namespaces: [namespace] });
shutdown.onStop(() => server.stop());
server.failure.catch(shutdown.fatal);
if (!server.owned) {
  console.error(`A Temporal dev server for ${config.dataDir} already runs at ${server.address} (UI ${server.uiUrl})`);
  process.exit(1);
}
console.log(`Temporal dev server ready at ${server.address}, UI ${server.uiUrl}`);

runUntilSignalledOrOrphaned();
