// The file-length check of `npm run lint`: no source file (src/, test/, workflows/, scripts/,
// bench/, sdk/) over 400 lines, so that each reads in one sitting; a longer one is split along its
// seams. Generated code is exempt, by the explicit list below (npm run generate writes it).
// `tsx scripts/file-length.ts [root]` lists the long files and exits 1 when there is one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const MAX_LINES = 400;
const SOURCE = /\.(ts|mts|js|mjs)$/;
/** Generated code (npm run generate, Prisma), exempt from the limit. */
export const GENERATED = ['src/generated/', 'test/generated/', 'sdk/src/generated/'];

/** The tracked source files over the limit, with their line counts. */
export function longFiles(root: string): { file: string; lines: number }[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\n');
  return tracked
    .filter((file) => SOURCE.test(file) && !GENERATED.some((prefix) => file.startsWith(prefix)))
    .map((file) => ({ file, lines: readFileSync(path.join(root, file), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const long = longFiles(root);
  for (const { file, lines } of long) console.error(`${file}: ${lines} lines (at most ${MAX_LINES}; split it along its seams)`);
  if (long.length > 0) process.exitCode = 1;
  else console.log(`no source file over ${MAX_LINES} lines`);
}
