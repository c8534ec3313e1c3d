import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { importCycles } from '../scripts/import-cycles.js';
import { ROOT as root } from './support/processes.js';

// The check behind `npm run lint` (scripts/import-cycles.ts): that it finds what it must. The
// project itself is checked by `npm run lint` alone (CI runs it; here it cost 10 s more of CPU).

describe('import cycles', () => {
  let fixture: string;

  beforeAll(async () => {
    // A project laid out like ours (NodeNext, `.js` naming `.ts`), with two loops and a dangling import.
    fixture = await mkdtemp(path.join(os.tmpdir(), 'commerce-import-cycles-'));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true } }),
      // Closed by a type-only import.
      'src/a.ts': "import type { B } from './b.js';\nexport const a = 1;\nexport type A = B;\n",
      'src/b.ts': "import { a } from './a.js';\nexport type B = typeof a;\n",
      // Across folders, closed by a dynamic import.
      'test/c.ts': "export const load = () => import('../scripts/d.js');\n",
      'scripts/d.ts': "import '../test/c.js';\n",
      'workflows/e.ts': "import './missing.js';\n",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(fixture, file)), { recursive: true });
      await writeFile(path.join(fixture, file), text);
    }
  });

  afterAll(async () => {
    await rm(fixture, { recursive: true, force: true });
  });

  test('a loop is found through type-only and dynamic imports, and an unresolvable import is reported', async () => {
    const { cycles, unresolved } = await importCycles(fixture);
    expect(cycles.map((cycle) => [...cycle].sort()).sort()).toEqual([
      ['scripts/d.ts', 'test/c.ts'],
      ['src/a.ts', 'src/b.ts'],
    ]);
    expect(unresolved).toEqual(['./missing.js']);
  });

  test('the lint step exits non-zero naming the loop', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'import-cycles.ts'), fixture], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('import cycle: src/a.ts -> src/b.ts -> src/a.ts');
  });
});
