// `node scripts/run.mjs tsx test/support/provision-seaweedfs.ts` (.ci/run, before the suite):
// prints the SeaweedFS `weed` executable, built with Go when it is missing (progress on stderr), for
// the S3 storage driver's tests. Exits 1 when there is no Go to build it with.
import { SEAWEEDFS_MISSING, findOrProvisionSeaweedfs } from './seaweedfs.js';

const executable = await findOrProvisionSeaweedfs();
if (!executable) {
  process.stderr.write(`${SEAWEEDFS_MISSING}\n`);
  process.exit(1);
}
process.stdout.write(`${executable}\n`);
