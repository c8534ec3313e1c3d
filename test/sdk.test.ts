import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { baseUrl, newWorkspace } from './support/api.js';
import { ROOT, runProcess, type Finished } from './support/processes.js';

// The SDK as an integrator gets it: `npm pack` of the workspace package, installed into an empty
// folder with nothing else (its runtime dependencies from the registry or npm's cache), and the
// README's quickstart, taken verbatim from sdk/README.md, type-checked against the installed
// package and run against the suite's server: a sale, a refund and a subscription's year on its
// test clock.
const TIMEOUT_MS = 600_000;

/** npm of the Node running the suite (first on PATH: scripts/run.mjs). */
const npm = (args: string[]) => runProcess('npm', args, { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });

const ok = (step: string, finished: Finished) => {
  if (finished.code !== 0) throw new Error(`${step} failed (${finished.code}):\n${finished.stdout}\n${finished.stderr}`);
  return finished;
};

/** The TypeScript block of the README's quickstart section. */
async function quickstart(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'sdk/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quickstart'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('sdk/README.md has no quickstart code');
  return block[1]!;
}

describe('the SDK package (sdk/), packed and installed into an empty folder', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'commerce-sdk-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  test("the README's quickstart drives a sale, a refund and a subscription's year through the installed tarball", async () => {
    // npm pack builds it (prepack: tsc to ESM and .d.ts).
    const packed = ok('npm pack', await npm(['pack', '--workspace', 'sdk', '--pack-destination', folder, '--json']));
    const { filename, files } = (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[])[0]!;
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts']));
    expect(files.filter((f) => f.path.startsWith('src/'))).toEqual([]);

    const project = path.join(folder, 'project');
    await runProcess('mkdir', ['-p', project]);
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    ok('npm install', await npm(['install', '--prefix', project, '--prefer-offline', '--no-package-lock', path.join(folder, filename)]));
    // Nothing but the SDK and its runtime dependencies.
    expect((await readdir(path.join(project, 'node_modules'))).filter((name) => !name.startsWith('.')).sort()).toEqual(['@commerce-api', 'openapi-fetch', 'openapi-typescript-helpers']);

    const script = path.join(project, 'quickstart.ts');
    await writeFile(script, await quickstart());
    // The README's code type-checks against the installed package's declarations.
    const typescript = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const nodeTypes = ['--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules/@types')];
    ok('tsc', await runProcess(process.execPath, [typescript, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', ...nodeTypes, script]));

    const ws = await newWorkspace('SDK quickstart', ['testMode=true']);
    const run = ok(
      'the quickstart',
      await runProcess(process.execPath, ['--experimental-strip-types', '--no-warnings', script], {
        COMMERCE_API_URL: baseUrl(),
        COMMERCE_PUBLIC_KEY: ws.testPublicKey,
        COMMERCE_SECRET_KEY: ws.testSecretKey,
        COMMERCE_PROJECT_ID: ws.projectId,
        NODE_OPTIONS: '',
      }),
    );
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(summary).toEqual({
      sale: { number: expect.any(String), status: 'PAID', value: 2000 },
      refund: { status: expect.stringMatching(/^(succeeded|pending)$/), amount: 1000, orderStatus: expect.stringMatching(/REFUND/) },
      // The first payment and twelve monthly renewals.
      subscription: { status: 'active', payments: 13, clock: expect.any(Number) },
      subscriptions: 1,
    });
  }, TIMEOUT_MS);
});
