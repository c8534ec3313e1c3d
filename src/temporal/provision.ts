// `npm run temporal:provision [-- server]`: makes sure the `temporal` CLI exists (see
// temporal-cli-binary.ts), or with `server` the Temporal server's programs (server-binary.ts), and
// prints its path on stdout; progress and what to do on failure go to stderr. scripts/run.mjs runs
// it before `npm start` (without TEMPORAL_ADDRESS) and `npm test`; .ci/run builds the server's
// beside the suite's first pass, for its second.
import { findOrProvisionTemporalServer } from './server-binary.js';
import { findOrProvisionTemporalCli } from './temporal-cli-binary.js';

try {
  const path = process.argv[2] === 'server' ? (await findOrProvisionTemporalServer()).server : await findOrProvisionTemporalCli();
  process.stdout.write(`${path}\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}
