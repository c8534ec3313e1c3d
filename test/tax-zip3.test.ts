import { usZipCodes } from '../scripts/zipcodes-package.js';
import { statesOfZip } from '../src/tax/us-zip.js';

// The committed ZIP3 table (src/tax/data/us-zip3.ts) against the `zipcodes` package it is
// generated from, over every US code the package knows: regenerate the table
// (scripts/generate-zip3.ts) when the package changes and this fails.

const codes = usZipCodes();

test('every code the package knows maps to its state, and to that state only', () => {
  const wrong = codes.filter(({ zip, state }) => {
    const states = statesOfZip(zip);
    return states.size !== 1 || !states.has(state);
  });
  expect(codes.length).toBeGreaterThan(40_000);
  expect(wrong).toEqual([]);
});

test('a ZIP+4 code is its first five digits; a prefix the package has no code under maps to no state', () => {
  expect([...statesOfZip('98101-1234')]).toEqual(['WA']);
  const known = new Set(codes.map(({ zip }) => zip.slice(0, 3)));
  const unknown = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0')).filter((prefix) => !known.has(prefix));
  expect(unknown.length).toBeGreaterThan(0);
  for (const prefix of unknown) expect([prefix, statesOfZip(`${prefix}01`).size]).toEqual([prefix, 0]);
});

test('a code the package does not list in a prefix shared by several states may be in any of them', () => {
  // 739: Oklahoma's panhandle and Texas' 73960; 73955 is listed by neither.
  expect([...statesOfZip('73955')].sort()).toEqual(['OK', 'TX']);
  expect([...statesOfZip('73960')]).toEqual(['TX']);
});
