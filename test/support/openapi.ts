import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { documentValidator, escapePointer } from '../../scripts/openapi-validator.js';
import { ROOT } from './processes.js';
import { recordExchange } from './recorder.js';

// The published OpenAPI document (schema/openapi.json) as a test oracle: every answer a test sees
// is validated with Ajv (JSON Schema 2020-12, ajv-formats, strict mode, objects closed:
// scripts/openapi-validator.ts) against the schema the document gives its operation and status.
// raw() and the typed REST client check every answer (checkResponse); the fuzzer walks the
// document's operations and checks each of its answers.

export type Schema = { [key: string]: any };
export type OpenApi = { paths: Record<string, Record<string, Schema>>; components: Schema };

export interface DocumentedOperation {
  /** The document's path template, e.g. /v0/products/{productId}/update. */
  path: string;
  /** Upper case, e.g. PATCH. */
  method: string;
  operation: Schema;
}

export const readDocument = async (): Promise<OpenApi> => JSON.parse(await readFile(path.join(ROOT, 'schema/openapi.json'), 'utf8'));

export const operationsOf = (document: OpenApi): DocumentedOperation[] =>
  Object.entries(document.paths).flatMap(([documentPath, item]) => Object.entries(item).map(([method, operation]) => ({ path: documentPath, method: method.toUpperCase(), operation })));

/**
 * The operation serving a concrete path, as the router picks it: a static path wins over a
 * template whatever the method (the router answers 405 there), so the method is looked up on the
 * path item that wins; undefined when the document has none.
 */
export function documentedOperation(document: OpenApi, method: string, concretePath: string): DocumentedOperation | undefined {
  const matching = Object.keys(document.paths).filter((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concretePath));
  const template = matching.find((t) => !t.includes('{')) ?? matching[0];
  const operation = template === undefined ? undefined : document.paths[template]![method.toLowerCase()];
  return operation && { path: template!, method: method.toUpperCase(), operation };
}

/** documentedOperation for a path the caller knows the document lists. */
export function operationAt(document: OpenApi, method: string, concretePath: string): DocumentedOperation {
  const found = documentedOperation(document, method, concretePath);
  if (!found) throw new Error(`The document has no operation for ${method} ${concretePath}`);
  return found;
}

export const resolve = (document: OpenApi, node: Schema): Schema =>
  node.$ref ? resolve(document, (node.$ref as string).split('/').slice(1).reduce((parent: any, key) => parent[key], document)) : node;

/**
 * A schema with its nullability taken off (`anyOf: [X, {type: 'null'}]`, `type: [T, 'null']`) and
 * its reference resolved: the node of one type, and whether null is allowed.
 */
export function unwrapNullable(document: OpenApi, schema: Schema): { node: Schema; nullable: boolean } {
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((branch: Schema) => branch.type === 'null')) {
    const [inner] = schema.anyOf.filter((branch: Schema) => branch.type !== 'null');
    return { node: resolve(document, inner), nullable: true };
  }
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { node: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: types.length < schema.type.length };
  }
  return { node: resolve(document, schema), nullable: false };
}

interface Checker {
  /** Problems of an answer's body against the schema of an operation's response for a status. */
  problems(operation: Schema, status: string, body: unknown): string[];
}

const checkers = new WeakMap<OpenApi, Checker>();

function checkerFor(document: OpenApi): Checker {
  let checker = checkers.get(document);
  if (checker) return checker;
  const validate = documentValidator(document);
  const pointers = new Map<Schema, string>();
  for (const { path: template, method, operation } of operationsOf(document)) pointers.set(operation, `#/paths/${escapePointer(template)}/${method.toLowerCase()}`);
  checker = {
    problems(operation, status, body) {
      const response = operation.responses[status] as Schema;
      const responsePointer = response.$ref ?? `${pointers.get(operation) ?? '(an operation of another document)'}/responses/${status}`;
      return validate(`${responsePointer}/content/application~1json/schema`, body, 'body');
    },
  };
  checkers.set(document, checker);
  return checker;
}

/** A response checked against its operation: the status must be documented, the body fit its schema and, given the headers, each required header be there. */
export function responseProblems(document: OpenApi, operation: Schema, status: number, body: unknown, headers?: Headers): string[] {
  const response = operation.responses[String(status)];
  if (!response) return [`status ${status} is not documented`];
  const documented = resolve(document, response);
  const missing = Object.entries((documented.headers ?? {}) as Record<string, Schema>)
    .filter(([name, header]) => headers && resolve(document, header).required && !headers.has(name))
    .map(([name]) => `header ${name} is missing`);
  return [...missing, ...checkerFor(document).problems(operation, String(status), body)];
}

/** The document as this run has it, for the checks on every answer. */
const published: OpenApi = JSON.parse(readFileSync(path.join(ROOT, 'schema/openapi.json'), 'utf8'));

/**
 * Why an answer does not match the document, or undefined when it does. A path the document does
 * not list (unknown paths, /healthz and the like) and a method it does not list for a listed path
 * (the 405 answer) are left out: the document describes operations, not their absence.
 */
export function responseMismatch(method: string, url: string, status: number, body: unknown, headers?: Headers): string | undefined {
  const pathname = new URL(url, 'http://localhost').pathname;
  const documented = documentedOperation(published, method, pathname);
  if (!documented) return undefined;
  const problems = responseProblems(published, documented.operation, status, body, headers);
  return problems.length ? `${method} ${pathname} answered ${status}, which the OpenAPI document does not allow: ${problems.join('; ')}\n${JSON.stringify(body).slice(0, 2000)}` : undefined;
}

/** Throws when the answer does not match the document (see responseMismatch); records the exchange when the run records them. */
export function checkResponse(method: string, url: string, status: number, body: unknown, headers?: Headers, request?: unknown): void {
  const mismatch = responseMismatch(method, url, status, body, headers);
  recordExchange({ method, url, status, request, response: body, valid: mismatch === undefined });
  if (mismatch) throw new Error(mismatch);
}
