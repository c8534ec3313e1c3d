import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.js';

// The exchange recorder: with TEST_RECORD_EXCHANGES set to a folder, every answer the suite checks
// against the OpenAPI document (raw(), the typed clients, the fuzzers) is appended there as one
// JSON line, with its request and whether it matched. `npm run examples` records a run this way,
// reports how many exchanges validate, and picks the document's examples from it
// (scripts/openapi-examples.ts).

export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** The request body as sent (text), when there was one. */
  request?: unknown;
  response: unknown;
  valid: boolean;
}

export interface RecordedExchange extends Exchange {
  /** The test file, relative to the project root, and the test's full name. */
  testPath: string;
  testName: string;
  /** The order of the exchange in its test file's run. */
  sequence: number;
}

let sequence = 0;
let lastTestPath: string | undefined;

export function recordExchange(exchange: Exchange): void {
  const folder = process.env.TEST_RECORD_EXCHANGES;
  if (!folder) return;
  const state: { testPath?: string; currentTestName?: string } = typeof expect === 'function' ? expect.getState() : {};
  const testPath = state.testPath ? path.relative(ROOT, state.testPath) : '';
  // Counted per test file, so that a file's exchanges are numbered alike whatever ran before it in this worker.
  if (testPath !== lastTestPath) [lastTestPath, sequence] = [testPath, 0];
  const line: RecordedExchange = { ...exchange, testPath, testName: state.currentTestName ?? '', sequence: sequence++ };
  mkdirSync(folder, { recursive: true });
  appendFileSync(path.join(folder, `${process.env.JEST_WORKER_ID ?? '0'}-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}
