import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { operationsOf, readDocument } from './support/openapi.js';
import { ROOT, runProcess, type Finished } from './support/processes.js';

// The published document through two standard generators: openapi-typescript (the suite's and
// the SDK's types) says nothing but its banner, and @hey-api/openapi-ts (a second, independent
// generator) writes a client with one function per operation that type-checks under strict.
const TIMEOUT_MS = 300_000;

const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);
const tsc = (args: string[]) => runProcess(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), ...args]);
// Colours off, so that the output reads as text.
const plain = { NO_COLOR: '1', FORCE_COLOR: '0' };
const shown = (finished: Finished) => `${finished.code}\n${finished.stdout}\n${finished.stderr}`;

describe('schema/openapi.json through standard generators', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'commerce-generators-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  test('openapi-typescript generates with no warning', async () => {
    const out = path.join(folder, 'openapi-typescript.ts');
    const run = await runProcess(bin('openapi-typescript'), ['schema/openapi.json', '-o', out], plain);
    expect([run.code, run.stderr.split('\n').filter((line) => line.trim() && !/openapi-typescript \d|schema\/openapi\.json →/.test(line))]).toEqual([0, []]);
    expect(await readFile(out, 'utf8')).toContain('export interface paths');
  }, TIMEOUT_MS);

  test('@hey-api/openapi-ts generates a fetch client with a function per operation, and it type-checks', async () => {
    const out = path.join(folder, 'hey-api');
    const run = await runProcess(bin('openapi-ts'), ['-i', './schema/openapi.json', '-o', out, '-c', '@hey-api/client-fetch', '-p', '@hey-api/typescript', '@hey-api/sdk', '--no-log-file'], plain);
    expect([run.code, `${run.stdout}${run.stderr}`]).toEqual([0, expect.not.stringMatching(/warn|error/i)]);
    const sdk = await readFile(path.join(out, 'sdk.gen.ts'), 'utf8');
    const document = await readDocument();
    const missing = operationsOf(document).filter(({ operation }) => !sdk.includes(`export const ${operation.operationId} =`));
    expect(missing.map((o) => o.operation.operationId)).toEqual([]);
    const checked = await tsc(['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2023,dom,dom.iterable', path.join(out, 'index.ts')]);
    expect(shown(checked)).toBe('0\n\n');
  }, TIMEOUT_MS);
});
