import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';

// Every response a test sees is checked against the published OpenAPI document (schema/openapi.json):
// raw() and the typed client call checkResponse, so a response that the document does not describe
// (an undocumented status, a missing or mistyped field) fails the test that saw it.

type Json = Record<string, unknown>;
interface PathItem {
  pattern: RegExp;
  /** A path without parameters wins over patterns, as in the router. */
  static: boolean;
  operations: Record<string, { responses: Record<string, Json> }>;
}

const document = JSON.parse(readFileSync(path.join(process.cwd(), 'schema', 'openapi.json'), 'utf8')) as Json & {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: { responses: Record<string, Json> };
};

/** OpenAPI 3.0's `nullable` as JSON Schema: null becomes one more allowed value. */
function jsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Json;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(value as Json).map(([name, s]) => [name, jsonSchema(s)])) : jsonSchema(value)]));
  return nullable ? { anyOf: [converted, { type: 'null' }] } : converted;
}

// Formats (int64, uuid) are documentation here; the types and shapes are what is checked.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'openapi', components: jsonSchema(document.components) });

const pathItems: PathItem[] = Object.entries(document.paths).map(([template, operations]) => ({
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  static: !template.includes('{'),
  operations,
}));

const validators = new Map<Json, ValidateFunction>();
function validatorFor(response: Json): ValidateFunction | undefined {
  const resolved = typeof response.$ref === 'string' ? document.components.responses[response.$ref.split('/').pop()!]! : response;
  const schema = (resolved.content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
  if (!schema) return undefined;
  let validate = validators.get(resolved);
  if (!validate) {
    // Local references point into the components of the schema added above.
    const text = JSON.stringify(jsonSchema(schema)).replaceAll('"$ref":"#/components/', '"$ref":"openapi#/components/');
    validate = ajv.compile(JSON.parse(text) as object);
    validators.set(resolved, validate);
  }
  return validate;
}

/**
 * Why a response does not match the document, or undefined when it does. Paths and methods the
 * document does not list (unknown paths, a wrong method's 405, /healthz and the like) are left out.
 */
export function responseMismatch(method: string, url: string, status: number, body: unknown): string | undefined {
  const pathname = new URL(url, 'http://localhost').pathname;
  const matching = pathItems.filter((item) => item.pattern.test(pathname));
  const operation = (matching.find((item) => item.static) ?? matching[0])?.operations[method.toLowerCase()];
  if (!operation) return undefined;
  const response = operation.responses[String(status)] ?? operation.responses.default;
  if (!response) return `${method} ${pathname} answered ${status}, which the OpenAPI document does not list for it`;
  const validate = validatorFor(response);
  if (validate && !validate(body)) {
    return `${method} ${pathname} answered ${status} with a body the OpenAPI document does not allow: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`;
  }
  return undefined;
}

/** Throws when the response does not match the document (see responseMismatch). */
export function checkResponse(method: string, url: string, status: number, body: unknown): void {
  const mismatch = responseMismatch(method, url, status, body);
  if (mismatch) throw new Error(mismatch);
}
