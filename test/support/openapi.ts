import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './processes.js';

// The published OpenAPI document (schema/openapi.json) as a test oracle: responses are checked
// against it status for status and field for field. raw() and the typed REST client check every
// answer a test sees (checkResponse); the fuzzer walks the document's operations.

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

/** The body checked against a schema of the document; properties the document lacks count as drift. */
function conformance(document: OpenApi, schema: Schema, value: unknown, where: string): string[] {
  if (schema.$ref) return conformance(document, resolve(document, schema), value, where);
  if (value === null) {
    if (schema.nullable) return [];
    if (schema.allOf) return schema.allOf.flatMap((branch: Schema) => conformance(document, branch, value, where));
    return schema.type || schema.enum || schema.oneOf ? [`${where}: null is not allowed`] : [];
  }
  if (schema.allOf) return schema.allOf.flatMap((branch: Schema) => conformance(document, branch, value, where));
  if (schema.oneOf) {
    const fits = schema.oneOf.some((branch: Schema) => conformance(document, branch, value, where).length === 0);
    return fits ? [] : [`${where}: matches no oneOf branch`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`];
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${where}: expected an object`];
      const record = value as Record<string, unknown>;
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return [
        ...((schema.required ?? []) as string[]).filter((key) => !(key in record)).map((key) => `${where}.${key}: missing`),
        ...Object.keys(record).filter((key) => !(key in properties)).map((key) => `${where}.${key}: not in the document`),
        ...Object.entries(record).flatMap(([key, child]) => (properties[key] ? conformance(document, properties[key], child, `${where}.${key}`) : [])),
      ];
    }
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, index) => conformance(document, schema.items, item, `${where}[${index}]`)) : [`${where}: expected an array`];
    case 'integer':
      return Number.isInteger(value) ? [] : [`${where}: expected an integer`];
    case 'number':
      return typeof value === 'number' ? [] : [`${where}: expected a number`];
    case 'string':
      return typeof value === 'string' ? [] : [`${where}: expected a string`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${where}: expected a boolean`];
    default:
      return [];
  }
}

/** A response checked against its operation: the status must be documented, the body fit it and, given the headers, each required header be there. */
export function responseProblems(document: OpenApi, operation: Schema, status: number, body: unknown, headers?: Headers): string[] {
  const response = operation.responses[String(status)];
  if (!response) return [`status ${status} is not documented`];
  const documented = resolve(document, response);
  const missing = Object.entries((documented.headers ?? {}) as Record<string, Schema>)
    .filter(([name, header]) => headers && resolve(document, header).required && !headers.has(name))
    .map(([name]) => `header ${name} is missing`);
  return [...missing, ...conformance(document, documented.content['application/json'].schema, body, 'body')];
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

/** Throws when the answer does not match the document (see responseMismatch). */
export function checkResponse(method: string, url: string, status: number, body: unknown, headers?: Headers): void {
  const mismatch = responseMismatch(method, url, status, body, headers);
  if (mismatch) throw new Error(mismatch);
}
