// GraphQL types as OpenAPI 3.1 schemas (JSON Schema 2020-12), for openapi.ts: argument and field types, the components
// they reference, and the shape of a response as SOFA selects it (sofa.ts).
import {
  getNamedType,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { STRING_LIMITS } from '../graphql/input-limits.js';
import { MAX_TIMESTAMP } from '../graphql/scalars.js';

export type SchemaObject = { [key: string]: unknown };

const BUILTIN_SCALARS: Record<string, SchemaObject> = {
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: 'string' },
};

// Our custom scalars; any other scalar may describe itself with extensions.jsonSchema.
const CUSTOM_SCALARS: Record<string, SchemaObject> = {
  UUID: { type: 'string', format: 'uuid' },
  Timestamp: { type: 'integer', format: 'int64', minimum: 0, maximum: MAX_TIMESTAMP },
  PageSize: { type: 'integer', format: 'int64' },
  JSON: {},
};

const REF_PREFIX = '#/components/schemas/';
export const ref = (name: string): SchemaObject => ({ $ref: `${REF_PREFIX}${name}` });

/**
 * A schema that may also be null, in JSON Schema 2020-12's words: a typed schema gets 'null' in
 * its `type` list, a reference becomes `anyOf: [{$ref}, {type: 'null'}]` (a $ref admits only its
 * target). A schema without a type (the JSON scalar) admits null as it is.
 */
export function nullable(schema: SchemaObject): SchemaObject {
  if ('$ref' in schema) {
    const { $ref, ...annotations } = schema;
    return { anyOf: [{ $ref }, { type: 'null' }], ...annotations };
  }
  if (!('type' in schema)) return schema;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
}

export function described(schema: SchemaObject, description: string | null | undefined): SchemaObject {
  return description ? { ...schema, description } : schema;
}

/** A string schema, or a list of strings, with the maximum length the server enforces (graphql/input-limits.ts). */
export function withMaxLength(schema: SchemaObject, name: string): SchemaObject {
  const maxLength = STRING_LIMITS[name];
  if (maxLength === undefined) return schema;
  if (schema.type === 'string') return { ...schema, maxLength };
  const items = schema.items as SchemaObject | undefined;
  if (schema.type === 'array' && items?.type === 'string') return { ...schema, items: { ...items, maxLength } };
  return schema;
}

/** The GraphQL type of a value as a schema: named types other than built-in scalars are components. */
function typeSchema(type: GraphQLType): SchemaObject {
  if (isNonNullType(type)) return innerSchema(type.ofType);
  return nullable(innerSchema(type));
}

function innerSchema(type: GraphQLType): SchemaObject {
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType) };
  const named = type as GraphQLNamedType;
  const builtin = BUILTIN_SCALARS[named.name];
  return builtin ? { ...builtin } : ref(named.name);
}

export function componentSchema(type: GraphQLNamedType): SchemaObject {
  if (isScalarType(type)) {
    const known = CUSTOM_SCALARS[type.name] ?? (type.extensions.jsonSchema as SchemaObject | undefined) ?? {};
    return described({ ...known }, type.description);
  }
  if (isEnumType(type)) return described({ type: 'string', enum: type.getValues().map((v) => v.name) }, type.description);
  if (isUnionType(type)) return described({ oneOf: type.getTypes().map((t) => ref(t.name)) }, type.description);
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const required = fields.filter((f) => isNonNullType(f.type)).map((f) => f.name);
    return described(
      {
        type: 'object',
        properties: Object.fromEntries(fields.map((f) => [f.name, described(withMaxLength(typeSchema(f.type), f.name), f.description)])),
        ...(required.length ? { required } : {}),
      },
      type.description,
    );
  }
  // Object and interface types: every field is always present in a response, null or not.
  const fields = Object.values(type.getFields());
  return described(
    {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, described(typeSchema(f.type), f.description)])),
      required: fields.map((f) => f.name),
    },
    type.description,
  );
}

interface Shape {
  schema: SchemaObject;
  /** Whether SOFA selects the whole type, so that its component describes it. */
  complete: boolean;
}

export interface Selection {
  schema: GraphQLSchema;
  /** SOFA's "models": types with a list query and a by-id query. */
  models: ReadonlySet<string>;
}

/**
 * The response shape of a field as SOFA selects it: SOFA omits a field whose object type is
 * already on the path from the root (circular references) and reduces a nested "model" type to
 * its id. Where nothing is omitted the component is referenced; otherwise the shape is inline.
 */
export function responseShape(type: GraphQLOutputType, ancestors: readonly string[], selection: Selection, root: boolean): Shape {
  if (isNonNullType(type)) return responseInner(type.ofType, ancestors, selection, root);
  const inner = responseInner(type, ancestors, selection, root);
  return { schema: nullable(inner.schema), complete: inner.complete };
}

function responseInner(type: GraphQLOutputType, ancestors: readonly string[], selection: Selection, root: boolean): Shape {
  if (isListType(type)) {
    const items = responseShape(type.ofType, ancestors, selection, root);
    return { schema: { type: 'array', items: items.schema }, complete: items.complete };
  }
  if (isObjectType(type)) return objectShape(type, ancestors, selection, root);
  if (isAbstractType(type)) {
    const members = selection.schema
      .getPossibleTypes(type)
      .filter((t) => !ancestors.includes(t.name))
      .map((t) => objectShape(t, ancestors, selection, root));
    if (members.every((m) => m.complete)) return { schema: ref(type.name), complete: true };
    return { schema: { oneOf: members.map((m) => m.schema) }, complete: false };
  }
  return { schema: innerSchema(type), complete: true };
}

function objectShape(type: GraphQLObjectType, ancestors: readonly string[], selection: Selection, root: boolean): Shape {
  if (!root && selection.models.has(type.name) && type.getFields().id) {
    return { schema: { type: 'object', properties: { id: typeSchema(type.getFields().id!.type) }, required: ['id'] }, complete: false };
  }
  const properties: Record<string, SchemaObject> = {};
  let complete = true;
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    if (!isScalarType(named) && ancestors.includes(named.name)) {
      complete = false;
      continue;
    }
    const shape = responseShape(field.type, [...ancestors, type.name], selection, false);
    complete &&= shape.complete;
    properties[field.name] = described(shape.schema, field.description);
  }
  if (complete) return { schema: ref(type.name), complete };
  return { schema: { type: 'object', properties, required: Object.keys(properties) }, complete };
}

/** Every component name referenced (transitively) from a value. */
export function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(REF_PREFIX)) into.add(child.slice(REF_PREFIX.length));
      else collectRefs(child, into);
    }
  }
}
