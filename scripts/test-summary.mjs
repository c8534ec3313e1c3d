#!/usr/bin/env node
// The closing summary of .ci/run, from Jest's JSON reports: one line per database engine and a
// last line with the totals, each `N passed, M failed, K skipped`. Under CI (CI set and not
// `false` or `0`) a skipped test fails the run unless test/allowed-skips.json names it with the
// outside reason CI cannot provide (docs/operations.md "CI"); the rest of the suite provisions what it needs.
// Under CI both engines must have reported: a run on one engine alone proves only half.
//   node scripts/test-summary.mjs "embedded PostgreSQL=.tmp/jest-embedded.json,.tmp/jest-embedded-s3.json" "installed PostgreSQL=..." [...]
// (an engine's suite may come in several Jest runs: their reports, comma-separated, make its line).
// Exits 1 when a test failed, a report is missing, an engine is missing under CI or a skip is not allowed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SKIPPED = new Set(['pending', 'skipped', 'todo', 'disabled']);
/** The engines every CI run proves (the labels .ci/run gives their reports). */
const ENGINES = ['embedded PostgreSQL', 'installed PostgreSQL'];
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
function tallyOne(file) {
  if (!existsSync(file)) return { passed: 0, failed: 1, skipped: [], note: ` (no report ${path.relative(root, file)}: Jest did not finish, or its global setup or teardown failed: see the log above)` };
  /** @type {Report} */
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = report.testResults.flatMap((suite) =>
    suite.assertionResults
      .filter((result) => SKIPPED.has(result.status))
      .map((result) => [path.relative(root, suite.name), ...result.ancestorTitles, result.title].join(' › ')),
  );
  return { passed: report.numPassedTests, failed: report.numFailedTests + report.numRuntimeErrorTestSuites, skipped, note: '' };
}

/** An engine's reports together; none given: it did not run. @param {string[]} files */
function tally(files) {
  if (!files.length) return { passed: 0, failed: 1, skipped: [], note: ' (not run: CI proves every engine)' };
  const results = files.map((file) => tallyOne(path.resolve(root, file)));
  return {
    passed: results.reduce((sum, r) => sum + r.passed, 0),
    failed: results.reduce((sum, r) => sum + r.failed, 0),
    skipped: results.flatMap((r) => r.skipped),
    note: results.map((r) => r.note).join(''),
  };
}

/** @param {string} label @param {Counts} counts */
const line = (label, { passed, failed, skipped }) => `${label}: ${passed} passed, ${failed} failed, ${skipped} skipped`;

const total = { passed: 0, failed: 0, skipped: 0 };
/** @type {string[]} */
const refused = [];
const reports = process.argv.slice(2).map((argument) => {
  const [label = argument, files = ''] = argument.split('=');
  return { label, files: files.split(',').filter(Boolean) };
});
// Under CI an engine left out counts as a report that never came: one failure, on its own line.
if (underCi) for (const engine of ENGINES) if (!reports.some((report) => report.label === engine)) reports.push({ label: engine, files: [] });
for (const { label, files } of reports) {
  const result = tally(files);
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
