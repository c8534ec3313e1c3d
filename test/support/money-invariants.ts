import path from 'node:path';

// Jest's setup file (jest.config.js setupFilesAfterEnv): after every test file that moves money
// (orders, payments, refunds, subscriptions, checkout, reconciliation), the money invariants
// (./invariants.ts) on the file's own databases: the workspaces it made on the suite's shared
// one, and every database of its own still there. Registered before the file's own hooks, so it
// runs before the file stops its servers and drops its databases. Workflows the last test left
// running may still be settling: the checks are read again until they hold, and the file fails
// with what still breaks them after CHECK_WAIT_MS.

const MONEY_FILES = /^(orders?|payments?|payment-|refunds?|subscriptions?|checkout|reconciliation)[^/]*\.test\.ts$/;
const CHECK_WAIT_MS = 30_000;

const testPath = expect.getState().testPath ?? '';
if (MONEY_FILES.test(path.basename(testPath))) {
  const since = new Date();
  const [{ createdWorkspaces }, { migratedDatabase, scratchDatabases }, { invariantViolations, violationsOnceSettled }] = await Promise.all([
    import('./api.js'),
    import('./database.js'),
    import('./invariants.js'),
  ]);
  afterAll(async () => {
    const targets = [{ name: 'the suite database', url: process.env.DATABASE_URL!, workspaceIds: [...createdWorkspaces] as readonly string[] | undefined }];
    for (const database of scratchDatabases) if (await migratedDatabase(database.name)) targets.push({ name: database.name, url: database.url, workspaceIds: undefined });
    const check = async () => (await Promise.all(targets.map(async (t) => (await invariantViolations(t.url, { workspaceIds: t.workspaceIds, since })).map((v) => `${t.name}: ${v}`)))).flat();
    const violations = await violationsOnceSettled(check, CHECK_WAIT_MS, 500);
    if (violations.length > 0) throw new Error(`The money invariants do not hold after ${path.basename(testPath)}:\n${violations.join('\n')}`);
  }, CHECK_WAIT_MS + 60_000);
}
