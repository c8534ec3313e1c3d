// `npm run examples`: the OpenAPI document's examples, taken from the test suite's real exchanges.
//   1. runs the recording test files (RECORDING_FILES) with TEST_RECORD_EXCHANGES set, so that every
//      answer the suite checks is recorded with its request (test/support/recorder.ts); or, with
//      `--from <dir>`, reads an earlier recording (e.g. of the whole suite);
//   2. validates every recorded answer against schema/openapi.json with Ajv and reports the share
//      that passes (anything below 100 % fails, listing the mismatches);
//   3. picks one successful exchange per operation (the first by test file, test name and order in
//      the file) and normalises what differs from run to run: ids, times, hosts, secrets, random
//      names. The result is schema/openapi-examples.json, committed; `npm run generate` embeds it
//      in the document and fails when an operation has no example or one no longer validates.
import { spawn } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { documentValidator, escapePointer } from './openapi-validator.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const EXAMPLES_FILE = 'schema/openapi-examples.json';

/** The test files whose exchanges cover every operation with a success. */
const RECORDING_FILES = [
  'test/card-sources.test.ts',
  'test/checkout-elements.test.ts',
  'test/checkout-idempotency.test.ts',
  'test/checkout.test.ts',
  'test/discounts-update-list.test.ts',
  'test/discounts.test.ts',
  'test/downloads.test.ts',
  'test/invoices.test.ts',
  'test/license-key-validation.test.ts',
  'test/license-keys.test.ts',
  'test/offers-update-list.test.ts',
  'test/offers.test.ts',
  'test/orders.test.ts',
  'test/payment-method-sessions.test.ts',
  'test/payment-test-helpers.test.ts',
  'test/payments.test.ts',
  'test/portal-sessions.test.ts',
  'test/portal.test.ts',
  'test/products-update-archive.test.ts',
  'test/products-variants-lists.test.ts',
  'test/products.test.ts',
  'test/refunds.test.ts',
  'test/subscriptions-cancel.test.ts',
  'test/subscriptions-lifecycle.test.ts',
  'test/subscriptions-plan.test.ts',
  'test/subscriptions-read.test.ts',
  'test/subscriptions-trials.test.ts',
  'test/tax.test.ts',
  'test/users-inventory-tenancy.test.ts',
  'test/users.test.ts',
  'test/webhooks-attempts-tenancy.test.ts',
  'test/webhooks-create.test.ts',
  'test/webhooks-events.test.ts',
];

interface Recorded {
  method: string;
  url: string;
  status: number;
  request?: unknown;
  response: unknown;
  valid: boolean;
  testPath: string;
  testName: string;
  sequence: number;
}

export interface OperationExample {
  request: { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  response: unknown;
}

type Operation = { parameters?: { name: string; in: string; schema?: { type?: unknown } }[]; requestBody?: { required?: boolean; content: Record<string, unknown> }; responses: Record<string, { $ref?: string }> };
type Document = { paths: Record<string, Record<string, Operation>> };

function record(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/run.mjs'), 'test', '--', ...RECORDING_FILES], {
      cwd: ROOT,
      env: { ...process.env, TEST_RECORD_EXCHANGES: dir },
      stdio: 'inherit',
    });
    child.once('error', reject);
    // A failing test (a timing on a loaded machine) does not spoil what was recorded: every answer is validated below.
    child.once('close', (code) => {
      if (code !== 0) console.error(`The recording run had failing tests (exit ${code}); its exchanges are still validated and used.`);
      resolve();
    });
  });
}

async function readRecording(dir: string): Promise<Recorded[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.jsonl')).sort();
  const lines = await Promise.all(files.map(async (file) => (await readFile(path.join(dir, file), 'utf8')).split('\n').filter(Boolean)));
  return lines.flat().map((line) => JSON.parse(line) as Recorded);
}

/** The operation (method and template) serving a path, a static path winning over a template. */
function operationOf(document: Document, method: string, pathname: string): { template: string; operation: Operation } | undefined {
  const matching = Object.keys(document.paths).filter((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname));
  const template = matching.find((t) => !t.includes('{')) ?? matching[0];
  const operation = template === undefined ? undefined : document.paths[template]![method.toLowerCase()];
  return operation && { template: template!, operation };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** Random hex in names and codes (randomUUID().slice(0, 8) and the like): letters and digits mixed. */
const RANDOM_HEX = /(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,}(?![0-9A-Za-z])/g;
const RANDOM_CODE = /(?<![0-9A-Za-z])(?=[0-9A-F]*[A-F])(?=[0-9A-F]*[0-9])[0-9A-F]{8,}(?![0-9A-Za-z])/g;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const LOCAL_ORIGIN = /https?:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+/g;
const TOKEN = /[A-Za-z0-9_-]{40,}(\.[A-Za-z0-9_-]{10,})*/g;
const SECRET = /^whsec_[A-Za-z0-9+/=]+$/;
/** 2026-01-01T00:00:00Z: recorded times keep their distance from the earliest, rounded to the hour. */
const EPOCH = 1_767_225_600;

/** Normalises one example (request and response together, so that an id keeps one value in both). */
function normaliser(values: unknown[]) {
  const ids = new Map<string, string>();
  const stable = (value: string, make: (n: number) => string) => {
    const key = value.toLowerCase();
    if (!ids.has(key)) ids.set(key, make(ids.size + 1));
    return ids.get(key)!;
  };
  const seconds: number[] = [];
  const collect = (value: unknown) => {
    if (typeof value === 'number' && Number.isInteger(value)) {
      if (value >= 1e9 && value < 4e9) seconds.push(value);
      else if (value >= 1e12 && value < 4e12) seconds.push(Math.floor(value / 1000));
    } else if (typeof value === 'string' && ISO_TIME.test(value)) seconds.push(Math.floor(Date.parse(value) / 1000));
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  values.forEach(collect);
  const base = seconds.length ? Math.min(...seconds) : 0;
  const time = (s: number) => EPOCH + Math.round((s - base) / 3600) * 3600;

  const text = (value: string): string => {
    if (SECRET.test(value)) return `whsec_${'A'.repeat(43)}=`;
    if (ISO_TIME.test(value)) return new Date(time(Math.floor(Date.parse(value) / 1000)) * 1000).toISOString();
    return value
      .replace(LOCAL_ORIGIN, 'https://api.example.com')
      .replace(UUID, (id) => stable(id, (n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`))
      .replace(TOKEN, (token) => stable(token, (n) => `token${String(n).padStart(35, '0')}`))
      .replace(RANDOM_HEX, (hex) => stable(hex, (n) => String(n).padStart(hex.length, '0')))
      .replace(RANDOM_CODE, (hex) => stable(hex, (n) => String(n).padStart(hex.length, '0')));
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (typeof value === 'number' && Number.isInteger(value)) {
      if (value >= 1e9 && value < 4e9) return time(value);
      if (value >= 1e12 && value < 4e12) return time(Math.floor(value / 1000)) * 1000;
      return value;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, walk(child)]));
    return value;
  };
  return walk;
}

const byOrigin = (a: Recorded, b: Recorded) => a.testPath.localeCompare(b.testPath) || a.testName.localeCompare(b.testName) || a.sequence - b.sequence;

function parsedBody(request: unknown): unknown {
  if (typeof request !== 'string' || request === '') return undefined;
  try {
    return JSON.parse(request);
  } catch {
    // A raw body (an upload) is shown as text when it is printable.
    return /^[\x20-\x7e\n\t]{1,200}$/.test(request) ? request : undefined;
  }
}

/** A schema's type, through a reference to a component. */
function typeOf(document: Document & { components?: { schemas?: Record<string, { type?: unknown }> } }, schema: { type?: unknown; $ref?: string } | undefined): unknown {
  if (schema?.$ref) return typeOf(document, document.components?.schemas?.[schema.$ref.split('/').pop()!]);
  return Array.isArray(schema?.type) ? schema.type.find((t) => t !== 'null') : schema?.type;
}

/** A query value as its schema types it (take=100 is the integer 100). */
function typedValue(type: unknown, value: string): unknown {
  if (type === 'integer' || type === 'number') return Number.isFinite(Number(value)) ? Number(value) : value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

function exampleOf(document: Document, template: string, operation: Operation, exchange: Recorded): OperationExample {
  const url = new URL(exchange.url, 'http://localhost');
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const values = new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}$`).exec(url.pathname)!.slice(1).map(decodeURIComponent);
  const pathValues = Object.fromEntries(names.map((name, i) => [name, values[i]!]));
  const documented = new Map((operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => [p.name, p.schema as { type?: unknown; items?: { type?: unknown } }]));
  const query = Object.fromEntries(
    [...new Set(url.searchParams.keys())]
      .filter((name) => documented.has(name))
      .map((name) => {
        const schema = documented.get(name)!;
        const type = typeOf(document, schema);
        return [name, type === 'array' ? url.searchParams.getAll(name).map((v) => typedValue(typeOf(document, schema.items), v)) : typedValue(type, url.searchParams.get(name)!)];
      }),
  );
  const body = operation.requestBody ? parsedBody(exchange.request) : undefined;
  const walk = normaliser([pathValues, query, body, exchange.response]);
  return {
    request: {
      ...(names.length ? { path: walk(pathValues) as Record<string, string> } : {}),
      ...(Object.keys(query).length ? { query: walk(query) as Record<string, unknown> } : {}),
      ...(body !== undefined ? { body: walk(body) } : {}),
    },
    response: walk(exchange.response),
  };
}

/** Problems of the examples against the document: operations without one, examples that do not validate. */
export function examplesProblems(document: Document, examples: Record<string, OperationExample>): string[] {
  const validate = documentValidator(document);
  const problems: string[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${template}`;
      const example = examples[key];
      if (!example) {
        problems.push(`${key}: no example (record it with npm run examples)`);
        continue;
      }
      const pointer = `#/paths/${escapePointer(template)}/${method}`;
      const response = operation.responses['200']!;
      problems.push(...validate(`${response.$ref ?? `${pointer}/responses/200`}/content/application~1json/schema`, example.response, `${key} response`));
      if (operation.requestBody?.content['application/json'] && example.request.body !== undefined) {
        problems.push(...validate(`${pointer}/requestBody/content/application~1json/schema`, example.request.body, `${key} request`));
      }
    }
  }
  return problems;
}

async function main() {
  const { values } = parseArgs({ options: { from: { type: 'string' } } });
  const dir = values.from ? path.resolve(values.from) : path.join(ROOT, '.tmp', 'exchanges');
  if (!values.from) {
    await rm(dir, { recursive: true, force: true });
    await record(dir);
  }
  const document = JSON.parse(await readFile(path.join(ROOT, 'schema/openapi.json'), 'utf8')) as Document;
  const validate = documentValidator(document);
  const recorded = await readRecording(dir);
  // Every recorded answer against the document as it is now (the recorder's own verdict was the run's document).
  const mismatches = recorded.flatMap((exchange) => {
    const found = operationOf(document, exchange.method, new URL(exchange.url, 'http://localhost').pathname);
    if (!found) return [];
    const response = found.operation.responses[String(exchange.status)];
    if (!response) return [`${exchange.method} ${exchange.url} ${exchange.status}: status not documented`];
    const pointer = response.$ref ?? `#/paths/${escapePointer(found.template)}/${exchange.method.toLowerCase()}/responses/${exchange.status}`;
    return validate(`${pointer}/content/application~1json/schema`, exchange.response, `${exchange.method} ${found.template} ${exchange.status}`);
  });
  const share = recorded.length ? ((recorded.length - mismatches.length) / recorded.length) * 100 : 0;
  console.log(`${recorded.length} exchanges recorded; ${recorded.length - mismatches.length} valid against schema/openapi.json with Ajv (${share.toFixed(1)} %).`);
  if (mismatches.length) {
    console.error(mismatches.slice(0, 50).join('\n'));
    process.exit(1);
  }

  const examples: Record<string, OperationExample> = {};
  for (const exchange of recorded.filter((e) => e.status === 200).sort(byOrigin)) {
    const found = operationOf(document, exchange.method, new URL(exchange.url, 'http://localhost').pathname);
    if (!found) continue;
    const key = `${exchange.method} ${found.template}`;
    // A write's example shows its body (when the operation requires one).
    if (examples[key] || (found.operation.requestBody?.required && parsedBody(exchange.request) === undefined)) continue;
    examples[key] = exampleOf(document, found.template, found.operation, exchange);
  }
  const sorted = Object.fromEntries(Object.keys(examples).sort().map((key) => [key, examples[key]!]));
  await writeFile(path.join(ROOT, EXAMPLES_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
  const problems = examplesProblems(document, sorted);
  console.log(`Wrote ${EXAMPLES_FILE}: ${Object.keys(sorted).length} operations.`);
  if (problems.length) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
