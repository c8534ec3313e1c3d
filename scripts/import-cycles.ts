// The import-cycle check of `npm run lint` (madge): no module of src/, workflows/, scripts/,
// bench/ or test/ may reach itself again through its imports. Every kind of import counts:
// static, dynamic (`import()`), re-exports and `import type` too, since a loop of types is still
// a loop to untangle before a module can be read or moved on its own (issue 7's loop through
// temporal/activities, webhooks/activities and workflows/ ran through type imports).
// `tsx scripts/import-cycles.ts [root]` prints the cycles and exits 1 when there is one.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import madge from 'madge';

export const CHECKED_DIRS = ['src', 'workflows', 'scripts', 'bench', 'test'];

export interface ImportGraphReport {
  /** Each cycle as the files on it, relative to the root. */
  cycles: string[][];
  /** Relative imports that resolve to no file: the graph would miss their edges. */
  unresolved: string[];
}

export async function importCycles(root: string): Promise<ImportGraphReport> {
  const result = await madge(
    CHECKED_DIRS.map((dir) => path.join(root, dir)).filter((dir) => existsSync(dir)),
    {
      baseDir: root,
      fileExtensions: ['ts', 'mts', 'js', 'mjs'],
      // NodeNext resolution: `./x.js` names ./x.ts.
      tsConfig: path.join(root, 'tsconfig.json'),
      // Prisma's generated client has cycles of its own and imports nothing of ours.
      excludeRegExp: [/^src\/generated\//],
      detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
    },
  );
  // Packages are left out of the graph; a relative path madge skipped is one of ours it could not resolve.
  const unresolved = result.warnings().skipped.filter((file) => file.startsWith('.') || path.isAbsolute(file));
  return { cycles: result.circular(), unresolved };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const { cycles, unresolved } = await importCycles(root);
  for (const cycle of cycles) console.error(`import cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
  for (const file of unresolved) console.error(`unresolved import, so the cycle check cannot see past it: ${file}`);
  if (cycles.length > 0 || unresolved.length > 0) process.exitCode = 1;
  else console.log(`no import cycle in ${CHECKED_DIRS.join('/, ')}/`);
}
