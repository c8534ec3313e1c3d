// `npm run temporal:provision`: makes sure the `temporal` CLI exists (see temporal-cli-binary.ts)
// and prints its path on stdout; progress and what to do on failure go to stderr. scripts/run.mjs
// runs it before `npm start` (without TEMPORAL_ADDRESS) and `npm test`.
import { findOrProvisionTemporalCli } from './temporal-cli-binary.js';

try {
  process.stdout.write(`${await findOrProvisionTemporalCli()}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}
