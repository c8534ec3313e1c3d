// The published OpenAPI document of the /v0 routes (GET /v0/openapi.json, schema/openapi.json).
// SOFA's own document (sofa.ts) is the starting point: it lists the operations exactly as the
// routes are served, with their path and query parameters and JSON bodies. Its gaps are fixed here
// (SOFA issues #1356, #1366): routes outside the table are dropped, body fields repeated as query
// parameters and path parameters repeated in bodies are removed, $refs to custom scalars get their
// missing components (openapi-schemas.ts), nullability is stated, responses get the envelope, the
// error responses, the key headers and x-request-id. Everything about a domain comes from its
// routes and its tag (src/domains.ts).
import type { GraphQLSchema } from 'graphql';
import { createSofa } from 'sofa-api';
import { documentedEndpoints, routes, tags, type DocumentedEndpoint } from '../domains.js';
import type { ErrorStatus } from '../errors.js';
import { JSON_LIMITS } from '../graphql/input-limits.js';
import {
  collectRefs,
  componentSchema,
  nullable,
  ref,
  responseShape,
  withMaxLength,
  type SchemaObject,
  type Selection,
} from './openapi-schemas.js';
import { addExamples, recordedExamples } from './openapi-examples.js';
import { BASE_PATH, readAccess, routeField, servedPath, type TaggedRoute } from './route.js';
import { sofaRouter } from './sofa.js';

export type { SchemaObject } from './openapi-schemas.js';

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  example?: unknown;
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
  requestBody?: { required: boolean; description?: string; content: Record<string, { schema: SchemaObject; examples?: Record<string, SchemaObject> }> };
  responses: Record<string, SchemaObject>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
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
  402: { name: 'PaymentRequired', description: 'The payment was declined (the message says why); the order and its FAILED payment stay, and another card may be tried with a new request' },
  403: { name: 'Forbidden', description: 'The feature is not enabled for the workspace' },
  404: { name: 'NotFound', description: 'The resource does not exist or is not in the workspace (archived records are hidden)' },
  409: { name: 'Conflict', description: 'A limit of the account is reached' },
  413: { name: 'PayloadTooLarge', description: 'The request body is larger than the server accepts (MAX_BODY_BYTES, 1 MiB by default)' },
  415: { name: 'UnsupportedMediaType', description: 'The request has a body that is not JSON: send content-type: application/json (UTF-8)' },
  422: { name: 'UnprocessableEntity', description: 'A well-formed request that cannot be fulfilled' },
  429: { name: 'TooManyRequests', description: 'Rate limit hit; retry with exponential backoff' },
  431: { name: 'RequestHeaderFieldsTooLarge', description: 'The request line (URL included) and headers are too large' },
  500: { name: 'InternalServerError', description: 'The request did not complete; retry with backoff' },
  503: { name: 'ServiceUnavailable', description: 'A dependency did not answer; retry with backoff' },
};

/** The error statuses as a Markdown table, for the document's description (the docs page shows it). */
const errorTable = () =>
  [
    '## Errors',
    '',
    'A failure is `{"status": "error", "error": {"message": "..."}}`: branch on the HTTP status; the message is human text and may be reworded.',
    '',
    '| Status | Meaning |',
    '| --- | --- |',
    ...Object.entries(ERROR_RESPONSES).map(([status, known]) => `| ${status} ${known!.name.replace(/([a-z])([A-Z])/g, '$1 $2')} | ${known!.description} |`),
  ].join('\n');

/** A route path in OpenAPI's spelling: /products/:productId is /products/{productId}. */
const oasPath = (path: string) => path.replace(/:([^/]+)/g, '{$1}');

const SECURITY_SCHEMES = {
  publicKey: { type: 'apiKey', in: 'header', name: 'x-svc-public-key', description: 'Public key: every request' },
  secretKey: { type: 'apiKey', in: 'header', name: 'x-svc-secret-key', description: 'Secret key: writes (POST, PATCH); never send it from a browser' },
};

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

const IDEMPOTENCY_KEY: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Any unique string of 1 to 255 printable ASCII characters: a repeat with the same key and body returns the first result instead of doing it again (retry after a timeout with the same key); the same key with another body is 400',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

function errorStatuses(route: Pick<TaggedRoute, 'audience' | 'method' | 'path' | 'errors'>): DocumentedStatus[] {
  // Buyer routes take no keys: no 401.
  const statuses = new Set<DocumentedStatus>([400, ...(route.audience === 'buyer' ? [] : [401 as const]), 429, 431, 500, ...(route.errors ?? [])]);
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

type SofaParameter = { name: string; in: string; required?: boolean; schema?: SchemaObject };
type SofaOperation = {
  parameters?: SofaParameter[];
  requestBody?: { content?: { 'application/json'?: { schema?: SchemaObject } } };
};

function buildOperation(route: TaggedRoute, sofaOperation: SofaOperation, selection: Selection, operationId: string): OperationObject {
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
  if (route.idempotencyKey) parameters.push(IDEMPOTENCY_KEY);

  let requestBody: OperationObject['requestBody'];
  if (!isRead) {
    // Path parameters come from the path only; optional fields accept null like their arguments.
    const sofaBody = sofaOperation.requestBody?.content?.['application/json']?.schema ?? {};
    const sofaRequired = new Set((sofaBody.required as string[] | undefined) ?? []);
    const properties = Object.entries((sofaBody.properties ?? {}) as Record<string, SchemaObject>)
      .filter(([name]) => !pathParameters.has(name))
      .map(([name, property]) => {
        const fixed = withMaxLength(property, name);
        if (sofaRequired.has(name)) return [name, fixed] as const;
        if (!field.args.some((arg) => arg.name === name)) throw new Error(`${route.method} ${route.path}: SOFA's body field ${name} is not an argument of ${route.field}`);
        return [name, nullable(fixed)] as const;
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
  return {
    operationId,
    summary: route.summary,
    ...(field.description ? { description: field.description } : {}),
    tags: [route.tag],
    security: route.audience === 'buyer' ? [] : [readAccess(route) ? { publicKey: [] } : { publicKey: [], secretKey: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: operationResponses(data, errorStatuses(route)),
  };
}

/** The success envelope around `data`, and the error responses of `statuses`. */
function operationResponses(data: SchemaObject, statuses: readonly DocumentedStatus[]): Record<string, SchemaObject> {
  const responses: Record<string, SchemaObject> = {
    200: {
      description: 'Success',
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema: envelopeSchema(data) } },
    },
  };
  for (const status of statuses) responses[status] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return responses;
}

/** The error statuses of an endpoint: those of a write with both keys, but a raw body of any media type (no 415). */
const endpointStatuses = (endpoint: DocumentedEndpoint) =>
  errorStatuses({ method: 'POST', path: endpoint.path, errors: endpoint.operation.errors }).filter((status) => status !== 415);

/** An endpoint with a raw body (a file): its query parameters, its bytes, its answer's components. */
function endpointOperation(endpoint: DocumentedEndpoint): OperationObject {
  const { operation } = endpoint;
  const pathParameters = [...endpoint.path.matchAll(/:([^/]+)/g)].map(([, name]): ParameterObject => ({ name: name!, in: 'path', required: true, schema: ref('UUID') }));
  const data: SchemaObject = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(operation.data).map(([name, component]) => [name, ref(component)])),
    required: Object.keys(operation.data),
  };
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [endpoint.tag],
    security: [{ publicKey: [], secretKey: [] }],
    parameters: [...pathParameters, ...operation.query.map((q): ParameterObject => ({ ...q, in: 'query', schema: { ...q.schema } }))],
    requestBody: { required: true, description: operation.body.description, content: { [operation.body.mediaType]: { schema: { type: 'string', format: 'binary' } } } },
    responses: operationResponses(data, endpointStatuses(endpoint)),
  };
}

function buildDocument(schema: GraphQLSchema): OpenApiDocument {
  // Each operation sits under its domain's tag, described in the document's tags.
  for (const route of routes) if (!tags.some((tag) => tag.name === route.tag)) throw new Error(`${route.method} ${route.path} has no tag: its domain declares none`);
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
    const path = oasPath(servedPath(route));
    (paths[path] ??= {})[method] = buildOperation(route, sofaOperation, selection, operationId);
    for (const status of errorStatuses(route)) usedStatuses.add(status);
  }
  for (const endpoint of documentedEndpoints) {
    (paths[oasPath(endpoint.path)] ??= {}).post = endpointOperation(endpoint);
    for (const status of endpointStatuses(endpoint)) usedStatuses.add(status);
  }
  addExamples(paths, recordedExamples());

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
        ...(status === 429 ? { 'retry-after': { description: 'Whole seconds to wait before a retry can pass: the edge cooldown, or until the budget that was exceeded (per workspace, per subscription) frees a request', required: true, schema: { type: 'integer', minimum: 1 } } } : {}),
      },
      content: { 'application/json': { schema: ref('ErrorEnvelope') } },
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Commerce API',
      version: '0',
      description:
        'Every response is an envelope: {status: "success", data} or {status: "error", error: {message}}; branch on the HTTP status. ' +
        'Reads (GET) need the x-svc-public-key header; writes (POST, PATCH) need x-svc-public-key and x-svc-secret-key. ' +
        'Buyer routes (hosted checkout, under /checkout) take no keys: the checkout element in the path names the workspace and mode. ' +
        'Every response carries x-request-id (a request that sends one has it echoed back). ' +
        `Request bodies are JSON (content-type: application/json, UTF-8) of at most 1 MiB by default (MAX_BODY_BYTES; 413 beyond) and ${JSON_LIMITS.depth} levels of nesting; ` +
        'strings have the maxLength shown. Requests the HTTP parser refuses (malformed, headers too large, too slow) get the error envelope as well, then the connection closes.\n\n' +
        errorTable(),
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: tags.filter((tag) => routes.some((route) => route.tag === tag.name)),
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

/** The OpenAPI 3.1 document of the /v0 routes (built once per schema). */
export function openApiDocument(schema: GraphQLSchema): OpenApiDocument {
  let document = documents.get(schema);
  if (!document) {
    document = buildDocument(schema);
    documents.set(schema, document);
  }
  return document;
}
