#!/usr/bin/env node
// The closing summary of .ci/run, from Jest's JSON reports: one line per database engine and a
// last line with the totals, each `N passed, M failed, K skipped`. Under CI (CI set and not
// `false` or `0`) a skipped test fails the run unless test/allowed-skips.json names it with the
// outside reason CI cannot provide (README "CI"); the rest of the suite provisions what it needs.
//   node scripts/test-summary.mjs "embedded PostgreSQL=.tmp/jest-embedded.json" [...]
// Exits 1 when a test failed, a report is missing or a skip is not allowed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SKIPPED = new Set(['pending', 'skipped', 'todo', 'disabled']);
const ci = process.env.CI ?? '';
const underCi = ci !== '' && ci !== 'false' && ci !== '0';

/** @typedef {{ test: string, reason: string }} AllowedSkip */
/** @typedef {{ passed: number, failed: number, skipped: number }} Counts */
/** Jest's JSON report, the fields read here: @typedef {{ numPassedTests: number, numFailedTests: number, numRuntimeErrorTestSuites: number, testResults: { name: string, assertionResults: { status: string, ancestorTitles: string[], title: string }[] }[] }} Report */
/** @type {AllowedSkip[]} */
const allowed = JSON.parse(readFileSync(path.join(root, 'test', 'allowed-skips.json'), 'utf8')).allowed;
for (const entry of allowed) {
  if (!entry.test || !entry.reason?.trim()) throw new Error(`test/allowed-skips.json: every entry names a test and its reason: ${JSON.stringify(entry)}`);
}
/** An entry names a test or a describe block (a prefix of whole titles). @param {string} name */
const allowedFor = (name) => allowed.find((entry) => name === entry.test || name.startsWith(`${entry.test} › `));

/** @param {string} file */
function tally(file) {
  if (!existsSync(file)) return { passed: 0, failed: 1, skipped: [], note: ' (no report: Jest did not finish)' };
  /** @type {Report} */
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = report.testResults.flatMap((suite) =>
    suite.assertionResults
      .filter((result) => SKIPPED.has(result.status))
      .map((result) => [path.relative(root, suite.name), ...result.ancestorTitles, result.title].join(' › ')),
  );
  return { passed: report.numPassedTests, failed: report.numFailedTests + report.numRuntimeErrorTestSuites, skipped, note: '' };
}

/** @param {string} label @param {Counts} counts */
const line = (label, { passed, failed, skipped }) => `${label}: ${passed} passed, ${failed} failed, ${skipped} skipped`;

const total = { passed: 0, failed: 0, skipped: 0 };
/** @type {string[]} */
const refused = [];
for (const argument of process.argv.slice(2)) {
  const [label = argument, file = ''] = argument.split('=');
  const result = tally(path.resolve(root, file));
  console.log(line(label, { ...result, skipped: result.skipped.length }) + result.note);
  for (const name of result.skipped) {
    const entry = allowedFor(name);
    console.log(`  skipped: ${name}${entry ? ` (allowed: ${entry.reason})` : ''}`);
    if (!entry) refused.push(`${label}: ${name}`);
  }
  total.passed += result.passed;
  total.failed += result.failed;
  total.skipped += result.skipped.length;
}
if (underCi && refused.length) {
  console.log(`${refused.length} skipped test(s) without an allowed outside reason fail the run (CI=${ci}); provide what they need, or add them to test/allowed-skips.json with the reason CI cannot:`);
  for (const name of refused) console.log(`  ${name}`);
}
console.log(line('jest', total));
process.exit(total.failed > 0 || (underCi && refused.length > 0) ? 1 : 0);
