// `npm run bench`: GET /v0/products/list?take=20 over 1,000 products, the full stack (the real
// server, started as `npm start` does) against a bare node:http + pg handler running the same SQL
// and writing the same bytes. Targets: the full stack reaches 55% of the bare handler's
// throughput, and the server's RSS stays under 250 MB. Then the same load on the whole default
// tree (server with worker, embedded PostgreSQL, Temporal dev server): its memory under 600 MB.
import path from 'node:path';
import { embeddedDatabaseUrl } from '../test/support/database.js';
import { runCli, startServerProcess } from '../test/support/processes.js';
import { autocannon, PATH, PRODUCTS, seedProducts, type Workspace } from './products-load.js';
import { CONNECTIONS, DURATION_S, listSideBySide, ROUNDS } from './side-by-side.js';
import { sampleMemory, withBenchEnvironment } from './support.js';

const TARGET_TREE_MB = 600;
// Issue 36: the list path at 55% of the bare handler at least.
const TARGET_RATIO = 0.55;

await withBenchEnvironment(async (environment) => {
  const { env, stopLater } = environment;
  const { ratioOk, rssOk } = await listSideBySide(environment, { seed: seedProducts, path: PATH, listKey: 'products', describe: `${PRODUCTS} products`, targetRatio: TARGET_RATIO });

  const tree = await measureDefaultTree(path.join(env.DATA_DIR, 'default-tree'), stopLater);
  const treeOk = tree.treePss < TARGET_TREE_MB;
  console.log(`\nthe whole default tree (npm start with nothing configured: server + in-process worker, embedded PostgreSQL, Temporal dev server), peaks under the same load:`);
  console.log(`  server process RSS ${tree.rootRss.toFixed(1)} MB; tree RSS summed ${tree.treeRss.toFixed(1)} MB (shared pages counted per process); tree PSS ${tree.treePss.toFixed(1)} MB (target < ${TARGET_TREE_MB} MB) ${treeOk ? 'PASS' : 'FAIL'}`);
  const parts = Object.entries(tree.pssByProgram).filter(([, mb]) => mb >= 0.5).sort(([, a], [, b]) => b - a);
  console.log(`  PSS by program (peaks): ${parts.map(([program, mb]) => `${program} ${mb.toFixed(1)} MB`).join(', ')}`);
  if (!ratioOk || !rssOk || !treeOk) process.exitCode = 1;
});

/**
 * The memory of what a fresh clone's `npm start` runs, serving the same list: the server with its
 * in-process worker, the embedded PostgreSQL and the Temporal dev server it starts, all in one
 * process tree (the database and the dev server are children of the server).
 */
async function measureDefaultTree(dataDir: string, stopLater: (running: { stop(): Promise<unknown> }) => void) {
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', TEMPORAL_ADDRESS: '', WORKER_IN_PROCESS: 'true' };
  const server = await startServerProcess({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_POINTS: '1000000000' }, 300_000);
  stopLater(server);
  const ws = await runCli<Workspace>(['workspace', 'create', '--name', 'Bench default tree'], env);
  await seedProducts(await embeddedDatabaseUrl(dataDir), ws);
  const memory = sampleMemory(server.child.pid!);
  for (let round = 0; round < ROUNDS; round += 1) {
    const result = await autocannon(`${server.url}${PATH}`, { 'x-svc-public-key': ws.publicKey }, DURATION_S, CONNECTIONS);
    if (result.non2xx || result.errors || result.timeouts) throw new Error(`default tree: ${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return memory.stop();
}
