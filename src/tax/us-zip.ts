// A US ZIP code's state, from the committed ZIP3 table (./data/us-zip3.ts, a few kilobytes):
// the `zipcodes` package it is generated from holds 42,000 codes (about 94 MB once loaded) and is
// not loaded at run time.
import { ZIP3_RUNS, ZIP3_SHARED } from './data/us-zip3.js';

const STATE_OF_PREFIX = new Map<string, string>();
for (const [first, last, state] of ZIP3_RUNS) {
  for (let prefix = Number(first); prefix <= Number(last); prefix++) STATE_OF_PREFIX.set(String(prefix).padStart(3, '0'), state);
}

/**
 * The states a US ZIP code (its first five digits) can be in: its prefix's state; in a prefix
 * shared by several states, the state of the run of codes it falls in, or else all of them; none
 * for a prefix no state has.
 */
export function statesOfZip(zip: string): ReadonlySet<string> {
  const five = zip.slice(0, 5);
  const prefix = five.slice(0, 3);
  const state = STATE_OF_PREFIX.get(prefix);
  if (state) return new Set([state]);
  const shared = ZIP3_SHARED[prefix] ?? [];
  const run = shared.find(([first, last]) => five >= first && five <= last);
  return new Set(run ? [run[2]] : shared.map(([, , sharing]) => sharing));
}
