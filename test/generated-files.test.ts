import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, runProcess, type Finished } from './support/processes.js';

// The checked-in generated files (npm run generate) against a fresh generation. No database: it
// runs once in .ci/run (test/engine-independent.json).
const CHECK_TIMEOUT = 240_000;

const runCheck = (against: string[]) =>
  runProcess(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--check', ...against.flatMap((dir) => ['--against', dir])], { NODE_OPTIONS: '' });

describe('generated artifacts', () => {
  let scratch: string;
  let check: Finished;

  beforeAll(async () => {
    // A copy of the checked-in artifacts with three kinds of staleness, checked alongside the real ones.
    scratch = await mkdtemp(path.join(tmpdir(), 'commerce-artifacts-'));
    for (const dir of ['schema', 'test/generated', 'src/generated', 'sdk/src/generated']) await cp(path.join(ROOT, dir), path.join(scratch, dir), { recursive: true });
    const openapi = path.join(scratch, 'schema/openapi.json');
    await writeFile(openapi, (await readFile(openapi, 'utf8')).replace('"title": "Commerce API"', '"title": "Edited by hand"'));
    await rm(path.join(scratch, 'test/generated/graphql/index.ts'));
    await writeFile(path.join(scratch, 'src/generated/prisma/models/Leftover.ts'), 'export {};\n');
    // One generation compared with both trees (generating is the slow part).
    check = await runCheck([ROOT, scratch]);
  }, CHECK_TIMEOUT);

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  test('the checked-in copies match a fresh generation (npm run generate:check)', async () => {
    expect(check.stdout + check.stderr).toContain(`generated files are up to date in ${ROOT}.`);
    expect(check.stderr).not.toContain(`Stale generated files in ${ROOT} `);
  });

  test('the check names every stale, missing and leftover file', async () => {
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`Stale generated files in ${scratch} `);
    const listed = check.stderr.split('\n').filter((line) => line.startsWith('  ')).map((line) => line.trim());
    expect(listed).toEqual(['schema/openapi.json', 'src/generated/prisma/models/Leftover.ts (not generated any more)', 'test/generated/graphql/index.ts']);
  });
});
