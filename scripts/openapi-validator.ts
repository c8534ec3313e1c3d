// Ajv (JSON Schema 2020-12, ajv-formats, strict mode) compiled from an OpenAPI 3.1 document: a
// value checked against the schema at a JSON pointer of the document. The test suite checks every
// answer with it (test/support/openapi.ts); the generator checks the document's examples.
//
// The contract lets responses gain fields (clients ignore unknown ones), so the document leaves
// objects open; the check closes every object that lists its properties (additionalProperties:
// false; the JSON scalar stays open): a field the server sends and the document lacks is drift.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = { [key: string]: unknown };

/** The keywords of an OpenAPI document's root, which Ajv would otherwise refuse as unknown keywords of a schema. */
const DOCUMENT_KEYWORDS = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'tags', 'paths', 'webhooks', 'components', 'security', 'externalDocs'];
const DOCUMENT_ID = 'https://commerce-api.invalid/openapi.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A copy of the document whose objects listing properties are closed. */
function closed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closed);
  if (!value || typeof value !== 'object') return value;
  const copy: Json = Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, key === 'properties' ? Object.fromEntries(Object.entries(child as Json).map(([name, property]) => [name, closed(property)])) : closed(child)]),
  );
  if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
  return copy;
}

export const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Problems of `value` against the schema at `pointer` (e.g. #/paths/~1v0~1products~1list/get/...), one line each; none when it fits. */
export type PointerValidator = (pointer: string, value: unknown, prefix?: string) => string[];

export function documentValidator(document: object): PointerValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addVocabulary(DOCUMENT_KEYWORDS);
  ajv.addSchema(closed(document) as Json, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();
  return (pointer, value, prefix = '') => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${prefix}${error.instancePath}: ${error.message}${error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''}`);
  };
}
