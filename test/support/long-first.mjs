// Jest's test sequencer, with the suite's longest files first when Jest has no timings of its own.
// Jest orders files by their last durations, kept in its cache; a fresh clone has none, and then
// Jest orders by file size, which starts the kill test (a short file, the longest run) late: a
// pass may then wait minutes for it alone. test/long-files.json lists the long files,
// longest first (measured; docs/operations.md "CI").
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Its CommonJS build: the types describe that one (an ES import's default differs in type only).
const Sequencer = createRequire(import.meta.url)('@jest/test-sequencer').default;

/** @type {string[]} */
const LONG = JSON.parse(readFileSync(new URL('../long-files.json', import.meta.url), 'utf8')).files;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export default class LongFirst extends Sequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  async sort(tests) {
    const sorted = await super.sort(tests);
    /** @param {import('@jest/test-result').Test} test */
    const rank = (test) => {
      const index = LONG.indexOf(path.relative(root, test.path));
      return test.duration == null && index >= 0 ? index : LONG.length;
    };
    // A stable sort: the rest keeps Jest's order (failed first, then by duration or size).
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
