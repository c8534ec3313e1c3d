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
import { createSofa } from 'sofa-api';
import type { ErrorStatus } from '../errors.js';
import { JSON_LIMITS, STRING_LIMITS } from '../graphql/input-limits.js';
import { MAX_TIMESTAMP } from '../graphql/scalars.js';
import { BASE_PATH } from './router.js';
import { sofaRouter } from './sofa.js';
import { routes } from '../domains.js';
import { routeField, type TaggedRoute as RestRoute } from './route.js';

/*
 * The published OpenAPI document. SOFA's own document is the starting point: it lists the
 * operations exactly as the router serves them, with their path and query parameters and JSON
 * bodies. Its gaps are fixed here (SOFA issues #1356, #1366): routes outside the
 * table are dropped, body fields repeated as query parameters and path parameters repeated in
 * bodies are removed, $refs to custom scalars get their missing components, nullability is
 * stated, responses get the envelope, the error responses, the key headers and x-request-id.
 */

export type SchemaObject = { [key: string]: unknown };

export interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  style?: 'form';
  explode?: boolean;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: SchemaObject } } };
  responses: Record<string, SchemaObject>;
}

export interface OpenApiDocument {
  openapi: '3.0.3';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    headers: Record<string, SchemaObject>;
    responses: Record<string, SchemaObject>;
    schemas: Record<string, SchemaObject>;
    securitySchemes: Record<string, SchemaObject>;
  };
}

/** 431 comes from the HTTP parser, so it is not an ErrorStatus of the app. */
type DocumentedStatus = ErrorStatus | 431;

const ERROR_RESPONSES: Partial<Record<DocumentedStatus, { name: string; description: string }>> = {
  400: { name: 'BadRequest', description: 'Validation failure, or the request is not valid for the resource\'s current state' },
  401: { name: 'Unauthorized', description: 'Key missing, malformed or invalid; a write without a valid secret key; test mode not set up; workspace offline' },
  403: { name: 'Forbidden', description: 'The feature is not enabled for the workspace' },
  404: { name: 'NotFound', description: 'The resource does not exist or is not in the workspace (archived records are hidden)' },
  409: { name: 'Conflict', description: 'A limit of the account collides (the plan\'s product limit)' },
  413: { name: 'PayloadTooLarge', description: 'The request body is larger than the server accepts (MAX_BODY_BYTES, 1 MiB by default)' },
  415: { name: 'UnsupportedMediaType', description: 'The request has a body that is not JSON: send content-type: application/json (UTF-8)' },
  422: { name: 'UnprocessableEntity', description: 'A well-formed request that cannot be fulfilled' },
  429: { name: 'TooManyRequests', description: 'Rate limit hit; retry with exponential backoff' },
  431: { name: 'RequestHeaderFieldsTooLarge', description: 'The request line (URL included) and headers are too large' },
  500: { name: 'InternalServerError', description: 'The request did not complete; retry with backoff' },
  503: { name: 'ServiceUnavailable', description: 'A dependency did not answer; retry with backoff' },
};

/** Tag names by the first path segment; an unlisted segment is its own tag. */
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

const SECURITY_SCHEMES = {
  publicKey: { type: 'apiKey', in: 'header', name: 'x-svc-public-key', description: 'Public key: every request' },
  secretKey: { type: 'apiKey', in: 'header', name: 'x-svc-secret-key', description: 'Secret key: writes (POST, PATCH); never send it from a browser' },
};

const REF_PREFIX = '#/components/schemas/';
const ref = (name: string): SchemaObject => ({ $ref: `${REF_PREFIX}${name}` });

/** A schema that may also be null (OpenAPI 3.0 ignores siblings of $ref, hence allOf). */
const nullable = (schema: SchemaObject): SchemaObject => ('$ref' in schema ? { allOf: [schema], nullable: true } : { ...schema, nullable: true });

function described(schema: SchemaObject, description: string | null | undefined): SchemaObject {
  if (!description) return schema;
  return '$ref' in schema ? { allOf: [schema], description } : { ...schema, description };
}

const oasPath = (path: string) => path.replace(/:([^/]+)/g, '{$1}');

/** A string schema, or a list of strings, with the maximum length the server enforces (graphql/input-limits.ts). */
function withMaxLength(schema: SchemaObject, name: string): SchemaObject {
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

function componentSchema(type: GraphQLNamedType): SchemaObject {
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

interface Selection {
  schema: GraphQLSchema;
  /** SOFA's "models": types with a list query and a by-id query. */
  models: ReadonlySet<string>;
}

/**
 * The response shape of a field as SOFA selects it: SOFA omits a field whose object type is
 * already on the path from the root (circular references) and reduces a nested "model" type to
 * its id. Where nothing is omitted the component is referenced; otherwise the shape is inline.
 */
function responseShape(type: GraphQLOutputType, ancestors: readonly string[], selection: Selection, root: boolean): Shape {
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

const envelopeSchema = (data: SchemaObject): SchemaObject => ({
  type: 'object',
  properties: { status: { type: 'string', enum: ['success'] }, data },
  required: ['status', 'data'],
});

const ERROR_ENVELOPE: SchemaObject = {
  type: 'object',
  description: 'The failure envelope: branch on the HTTP status; the message is human text and may be reworded',
  properties: {
    status: { type: 'string', enum: ['error'] },
    error: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  required: ['status', 'error'],
};

function errorStatuses(route: RestRoute): DocumentedStatus[] {
  const statuses = new Set<DocumentedStatus>([400, 401, 429, 431, 500, ...(route.errors ?? [])]);
  if (route.path.includes(':')) statuses.add(404);
  // Only writes read a body.
  if (route.method !== 'GET') for (const status of [413, 415] as const) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

function errorResponseName(status: DocumentedStatus): string {
  const known = ERROR_RESPONSES[status];
  if (!known) throw new Error(`No error response is described for status ${status}`);
  return known.name;
}

/** Every component name referenced (transitively) from a value. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(REF_PREFIX)) into.add(child.slice(REF_PREFIX.length));
      else collectRefs(child, into);
    }
  }
}

type SofaParameter = { name: string; in: string; required?: boolean; schema?: SchemaObject };
type SofaOperation = {
  parameters?: SofaParameter[];
  requestBody?: { content?: { 'application/json'?: { schema?: SchemaObject } } };
};

/** A SOFA parameter or body field schema: its description moves out of $ref siblings. */
function fixSchema(schema: SchemaObject): SchemaObject {
  const { description, ...rest } = schema;
  return described(rest, description as string | undefined);
}

function buildOperation(route: RestRoute, sofaOperation: SofaOperation, selection: Selection, operationId: string): OperationObject {
  const { schema } = selection;
  const field = routeField(schema, route);
  const isRead = route.method === 'GET';

  // SOFA lists body fields as query parameters too, sometimes twice: keep each (in, name) once.
  const seen = new Set<string>();
  const parameters: ParameterObject[] = [];
  for (const parameter of sofaOperation.parameters ?? []) {
    const key = `${parameter.in}:${parameter.name}`;
    if (seen.has(key) || (parameter.in !== 'path' && (parameter.in !== 'query' || !isRead))) continue;
    seen.add(key);
    const { description, ...schemaOnly } = parameter.schema ?? {};
    parameters.push({
      name: parameter.name,
      in: parameter.in as 'path' | 'query',
      required: parameter.in === 'path' || parameter.required === true,
      ...(typeof description === 'string' && description ? { description } : {}),
      schema: withMaxLength(schemaOnly, parameter.name),
      // Lists repeat the parameter: ids=a&ids=b.
      ...(schemaOnly.type === 'array' ? { style: 'form' as const, explode: true } : {}),
    });
  }
  const pathParameters = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name));
  // Path parameters first, in the order the path names them.
  const position = (p: ParameterObject) => (p.in === 'path' ? route.path.indexOf(`:${p.name}`) : Number.MAX_SAFE_INTEGER);
  parameters.sort((a, b) => position(a) - position(b));

  let requestBody: OperationObject['requestBody'];
  if (!isRead) {
    // Path parameters come from the path only; optional fields accept null like their arguments.
    const sofaBody = sofaOperation.requestBody?.content?.['application/json']?.schema ?? {};
    const sofaRequired = new Set((sofaBody.required as string[] | undefined) ?? []);
    const properties = Object.entries((sofaBody.properties ?? {}) as Record<string, SchemaObject>)
      .filter(([name]) => !pathParameters.has(name))
      .map(([name, property]) => {
        const fixed = withMaxLength(fixSchema(property), name);
        return [name, sofaRequired.has(name) ? fixed : nullable(fixed)] as const;
      });
    const required = properties.map(([name]) => name).filter((name) => sofaRequired.has(name));
    requestBody = {
      required: required.length > 0,
      content: {
        'application/json': {
          schema: { type: 'object', properties: Object.fromEntries(properties), ...(required.length ? { required } : {}) },
        },
      },
    };
  }

  const data = responseShape(field.type, [route.field.split('.')[0]!], selection, true).schema;
  const responses: Record<string, SchemaObject> = {
    200: {
      description: 'Success',
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema: envelopeSchema(data) } },
    },
  };
  for (const status of errorStatuses(route)) responses[status] = { $ref: `#/components/responses/${errorResponseName(status)}` };

  return {
    operationId,
    summary: route.summary,
    ...(field.description ? { description: field.description } : {}),
    tags: [route.tag],
    security: [isRead ? { publicKey: [] } : { publicKey: [], secretKey: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

function buildDocument(schema: GraphQLSchema): OpenApiDocument {
  const sofaDocument = sofaRouter(schema).openAPIDocument as { paths?: Record<string, Record<string, SofaOperation>> };
  const selection: Selection = { schema, models: new Set(createSofa({ schema, basePath: BASE_PATH }).models) };

  const fieldUses = new Map<string, number>();
  for (const route of routes) fieldUses.set(route.field, (fieldUses.get(route.field) ?? 0) + 1);

  const paths: OpenApiDocument['paths'] = {};
  const usedStatuses = new Set<DocumentedStatus>();
  for (const route of routes) {
    const method = route.method.toLowerCase();
    const sofaOperation = sofaDocument.paths?.[oasPath(route.path)]?.[method];
    if (!sofaOperation) throw new Error(`SOFA does not serve ${route.method} ${route.path}`);
    const fieldName = route.field.split('.')[1]!;
    // A field served on several paths gets one operation id per path.
    const operationId = fieldUses.get(route.field) === 1 ? fieldName : `${fieldName}_${route.method.toLowerCase()}${route.path.replace(/[/:]+/g, '_')}`;
    const path = `${BASE_PATH}${oasPath(route.path)}`;
    (paths[path] ??= {})[method] = buildOperation(route, sofaOperation, selection, operationId);
    for (const status of errorStatuses(route)) usedStatuses.add(status);
  }

  const schemas: Record<string, SchemaObject> = { ErrorEnvelope: ERROR_ENVELOPE };
  const pending = new Set<string>();
  collectRefs(paths, pending);
  while (pending.size) {
    const name = pending.values().next().value as string;
    pending.delete(name);
    if (schemas[name]) continue;
    const type = schema.getType(name);
    if (!type) throw new Error(`The document references a type the schema lacks: ${name}`);
    schemas[name] = componentSchema(type);
    const refs = new Set<string>();
    collectRefs(schemas[name], refs);
    for (const r of refs) if (!schemas[r]) pending.add(r);
  }

  const responses: Record<string, SchemaObject> = {};
  for (const status of [...usedStatuses].sort((a, b) => a - b)) {
    const { name, description } = ERROR_RESPONSES[status]!;
    responses[name] = {
      description,
      headers: {
        'x-request-id': { $ref: '#/components/headers/RequestId' },
        ...(status === 429 ? { 'retry-after': { description: 'Seconds until the cooldown ends', schema: { type: 'integer' } } } : {}),
      },
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
    };
  }

  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name }));
  return {
    openapi: '3.0.3',
    info: {
      title: 'Commerce API',
      version: '0',
      description:
        'Every response is an envelope: {status: "success", data} or {status: "error", error: {message}}; branch on the HTTP status. ' +
        'Reads (GET) need the x-svc-public-key header; writes (POST, PATCH) need x-svc-public-key and x-svc-secret-key. ' +
        'Every response carries x-request-id (a request that sends one has it echoed back). ' +
        `Request bodies are JSON (content-type: application/json, UTF-8) of at most 1 MiB by default (MAX_BODY_BYTES; 413 beyond) and ${JSON_LIMITS.depth} levels of nesting; ` +
        'strings have the maxLength shown. Requests the HTTP parser refuses (malformed, headers too large, too slow) get the error envelope as well, then the connection closes.',
    },
    servers: [{ url: '/', description: 'This server' }],
    tags,
    paths,
    components: {
      headers: { RequestId: { description: 'The request id: the one sent by the caller, or a generated one', schema: { type: 'string' } } },
      responses,
      schemas: Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]!])),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

const documents = new WeakMap<GraphQLSchema, OpenApiDocument>();

/** The OpenAPI 3.0 document of the /v0 routes (built once per schema). */
export function openApiDocument(schema: GraphQLSchema): OpenApiDocument {
  let document = documents.get(schema);
  if (!document) {
    document = buildDocument(schema);
    documents.set(schema, document);
  }
  return document;
}

/** The docs page: self-contained (no CDN); it renders /v0/openapi.json in the browser. */
export function docsHtml(): string {
  return DOCS_HTML;
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Commerce API v0</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 2rem; color: #1b1b1b; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f5f5f5; padding: .5rem; overflow-x: auto; }
h2 { border-bottom: 1px solid #ddd; margin-top: 2rem; }
details.op { border: 1px solid #ddd; border-radius: 4px; margin: .4rem 0; }
details.op > summary { cursor: pointer; padding: .4rem .6rem; list-style: none; }
details.op > div { padding: 0 .8rem .6rem; }
.method { display: inline-block; min-width: 4rem; font-weight: 600; }
.GET { color: #0a6; } .POST { color: #06c; } .PATCH { color: #a60; }
table { border-collapse: collapse; margin: .3rem 0; }
td, th { border: 1px solid #ddd; padding: .2rem .5rem; text-align: left; vertical-align: top; }
.muted { color: #666; }
</style>
</head>
<body>
<h1>Commerce API v0</h1>
<p>The machine-readable document: <a href="/v0/openapi.json">/v0/openapi.json</a> (OpenAPI 3.0).</p>
<div id="intro"></div>
<div id="operations"><noscript>This page renders the document with JavaScript; without it, read <a href="/v0/openapi.json">/v0/openapi.json</a>.</noscript></div>
<div id="schemas"></div>
<script>
(async () => {
  const doc = await (await fetch('/v0/openapi.json')).json();
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  };
  const resolve = (value) => {
    while (value && value.$ref) value = value.$ref.split('/').slice(1).reduce((o, k) => o[k], doc);
    return value;
  };
  const typeName = (schema) => {
    if (!schema) return 'any';
    let name;
    if (schema.$ref) name = schema.$ref.split('/').pop();
    else if (schema.allOf) name = schema.allOf.map(typeName).join(' & ');
    else if (schema.oneOf) name = schema.oneOf.map(typeName).join(' | ');
    else if (schema.type === 'array') name = typeName(schema.items) + '[]';
    else if (schema.enum) name = schema.enum.map((v) => JSON.stringify(v)).join(' | ');
    else name = schema.type ? schema.type + (schema.format ? ' (' + schema.format + ')' : '') : 'any';
    return schema.nullable ? name + ' | null' : name;
  };
  const link = (schema) => {
    const name = typeName(schema);
    const target = schema && (schema.$ref || (schema.items && schema.items.$ref) || (schema.allOf && schema.allOf[0].$ref));
    return target ? el('a', { href: '#schema-' + target.split('/').pop() }, name) : el('code', {}, name);
  };
  const fieldsTable = (schema) => {
    const table = el('table', {}, el('tr', {}, el('th', {}, 'field'), el('th', {}, 'type'), el('th', {}, 'required'), el('th', {}, 'description')));
    const required = new Set(schema.required || []);
    for (const [name, prop] of Object.entries(schema.properties || {})) {
      table.append(el('tr', {}, el('td', {}, el('code', {}, name)), el('td', {}, link(prop)), el('td', {}, required.has(name) ? 'yes' : ''), el('td', {}, prop.description || '')));
    }
    return table;
  };
  document.getElementById('intro').append(el('p', {}, doc.info.description));
  const operations = document.getElementById('operations');
  operations.textContent = '';
  for (const tag of doc.tags) {
    operations.append(el('h2', {}, tag.name));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.tags.includes(tag.name)) continue;
        const body = el('div');
        if (op.description) body.append(el('p', {}, op.description));
        const keys = Object.keys(op.security[0]).map((s) => doc.components.securitySchemes[s].name).join(' + ');
        body.append(el('p', { class: 'muted' }, 'Headers: ' + keys + '. Operation id: ' + op.operationId));
        if (op.parameters) {
          const table = el('table', {}, el('tr', {}, el('th', {}, 'parameter'), el('th', {}, 'in'), el('th', {}, 'type'), el('th', {}, 'required'), el('th', {}, 'description')));
          for (const p of op.parameters) table.append(el('tr', {}, el('td', {}, el('code', {}, p.name)), el('td', {}, p.in), el('td', {}, link(p.schema)), el('td', {}, p.required ? 'yes' : ''), el('td', {}, p.description || '')));
          body.append(el('h4', {}, 'Parameters'), table);
        }
        if (op.requestBody) body.append(el('h4', {}, 'JSON body'), fieldsTable(op.requestBody.content['application/json'].schema));
        const data = op.responses['200'].content['application/json'].schema.properties.data;
        body.append(el('h4', {}, '200: {status: "success", data}'), resolve(data).properties ? fieldsTable(resolve(data)) : link(data));
        const errors = Object.keys(op.responses).filter((s) => s !== '200').map((s) => s + ' ' + resolve(op.responses[s]).description);
        body.append(el('h4', {}, 'Errors: {status: "error", error: {message}}'), el('ul', {}, ...errors.map((e) => el('li', {}, e))));
        operations.append(el('details', { class: 'op' }, el('summary', {}, el('span', { class: 'method ' + method.toUpperCase() }, method.toUpperCase()), el('code', {}, path), ' ', op.summary), body));
      }
    }
  }
  const schemas = document.getElementById('schemas');
  schemas.append(el('h2', {}, 'Schemas'));
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    schemas.append(el('h3', { id: 'schema-' + name }, name));
    if (schema.description) schemas.append(el('p', {}, schema.description));
    schemas.append(schema.properties ? fieldsTable(schema) : el('pre', {}, JSON.stringify(schema, null, 2)));
  }
})();
</script>
</body>
</html>
`;
