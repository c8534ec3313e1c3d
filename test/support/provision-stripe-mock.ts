// `node scripts/run.mjs tsx test/support/provision-stripe-mock.ts` (.ci/run, before the suite):
// prints the stripe-mock executable, built with Go when it is missing (progress on stderr), so the
// Stripe adapter's tests run instead of skipping. Exits 1 when there is no Go to build it with.
import { findOrProvisionStripeMock } from './stripe-mock.js';

const executable = await findOrProvisionStripeMock();
if (!executable) {
  process.stderr.write('stripe-mock is not installed and there is no Go to build it: install Go (https://go.dev/dl/) or set STRIPE_MOCK_PATH.\n');
  process.exit(1);
}
process.stdout.write(`${executable}\n`);
