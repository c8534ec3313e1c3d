import { rm } from 'node:fs/promises';
import { dropDatabase } from './database.ts'; // .ts: Jest loads it as CommonJS without moduleNameMapper.
import { runProcess } from './processes.ts';

// Also what a failed global setup runs: each step skips what was not started.
export default async function globalTeardown() {
  // The money invariants over the whole suite's database (suite-money-check.ts), while its server
  // and Temporal still run; its verdict after everything is stopped.
  const moneyCheck = globalThis.__commerceServer ? await runProcess(process.execPath, ['--import', 'tsx', 'test/support/suite-money-check.ts']) : undefined;
  const serverOutput = globalThis.__commerceServer?.output() ?? '';
  await globalThis.__commerceServer?.stop();
  await globalThis.__temporalServer?.stop();
  await globalThis.__pgBouncer?.stop();
  if (process.env.TEST_DATABASE_NAME) await dropDatabase(process.env.TEST_DATABASE_NAME);
  // The Temporal server's (TEST_TEMPORAL=server): history and visibility.
  const temporal = process.env.TEST_TEMPORAL_DATABASE;
  if (temporal) for (const name of [temporal, `${temporal}_visibility`]) await dropDatabase(name);
  await globalThis.__adminDatabase?.stop();
  // The suite's DATA_DIR (see global-setup.ts): the dev server's history and the embedded database.
  if (process.env.TEST_DATA_DIR) await rm(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  printServerErrors(serverOutput);
  if (moneyCheck) process.stdout.write(`\n${moneyCheck.stdout}`);
  if (moneyCheck && moneyCheck.code !== 0) throw new Error(`The suite's money check failed (${moneyCheck.code}):\n${moneyCheck.stderr}`);
}

/** The last of the suite server's error lines (pino level 50 and up), cut short: what explains a 500 a test saw, which CI keeps only in this output. */
function printServerErrors(output: string): void {
  const errors = output.split('\n').filter((line) => /^\{"level":(5|6)\d,/.test(line));
  if (errors.length === 0) return;
  const shown = errors.slice(-20).map((line) => (line.length > 1500 ? `${line.slice(0, 1500)}…` : line));
  process.stdout.write(`\nThe suite's server logged ${errors.length} error lines; the last ${shown.length}:\n${shown.join('\n')}\n`);
}
