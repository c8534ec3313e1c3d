// Run as `node --import tsx test/support/loaded-packages.ts`: imports the modules an API process
// and a worker process load at start (src/server.ts; the worker's src/temporal/worker.ts and
// every domain's activities), then does what a checkout asks of them without S3, SMTP or Redis
// configured (a US address's tax, the file storage), and prints the packages loaded, one per line.
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
    if (match) loaded.add(match[1]!);
    return resolved;
  },
});

await import('../../src/server.js');
await import('../../src/temporal/worker.js');
const { checkTaxLocation } = await import('../../src/tax/location.js');
checkTaxLocation({ country: 'US', state: 'CA', postalCode: '94107' });
const { fileStorage } = await import('../../src/delivery/storage.js');
fileStorage();
console.log([...loaded].sort().join('\n'));
