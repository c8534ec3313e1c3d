import { createRequire } from 'node:module';
import {
  coerceInputValue,
  getNullableType,
  isListType,
  execute as graphqlExecute,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { useSofa } from 'sofa-api';
import { ApiError, type ErrorStatus } from '../errors.js';
import type { Context } from '../graphql/context.js';
import { logger } from '../logger.js';
import { createCompiledExecutor } from './compiled-execute.js';
import { errorResponse } from './envelope.js';
import { routes } from '../domains.js';
import { routeField, type RestRoute } from './route.js';

export const BASE_PATH = '/v0';

type SofaErrorHandler = NonNullable<Parameters<typeof useSofa>[0]['errorHandler']>;

/** SOFA's handler of one route, as it registers it on its fets router. */
type SofaHandler = (request: Request, serverContext: { graphqlContext: RestContext }) => Response | Promise<Response>;

// SOFA reads query strings with its own copy of qs: the same copy reads them here.
const parseQuery = createRequire(createRequire(import.meta.url).resolve('sofa-api'))('qs').parse as (query: string) => Record<string, unknown>;

interface CompiledRoute extends RestRoute {
  pattern: RegExp;
  args: readonly GraphQLArgument[];
  pathParams: readonly string[];
  handler: SofaHandler;
}

export type RouteMatch =
  | { kind: 'route'; route: CompiledRoute; /** The path parameters' raw (still encoded) values, in route.pathParams order. */ pathValues: string[] }
  | { kind: 'not-found' }
  | { kind: 'wrong-method'; allow: string[] };

/** Context handed to SOFA for one request; the raw query lets list parameters keep every value. */
export interface RestContext extends Context {
  rawQuery: URLSearchParams;
  /** The JSON body of a write; {} for a read. */
  rawBody: Record<string, unknown>;
}

function compilePath(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

function statusOf(error: unknown): ErrorStatus {
  if (error instanceof ApiError) return error.status;
  if (error instanceof GraphQLError) {
    if (error.originalError instanceof ApiError) return error.originalError.status;
    const http = (error.extensions?.http as { status?: number } | undefined)?.status;
    if (http && http >= 400 && http < 500) return http as ErrorStatus;
    // Errors without a path come from parsing and coercing the request: the caller's input.
    if (!error.path && !error.originalError) return 400;
    if (!error.path && error.originalError instanceof GraphQLError) return 400;
  }
  return 500;
}

/** A 5xx thrown on purpose as an ApiError (e.g. 503 "retry later"): its status and message are for the caller. */
const isDeliberate = (error: unknown) =>
  error instanceof ApiError || (error instanceof GraphQLError && error.originalError instanceof ApiError);

// Errors of an operation are logged where the request id is known; SOFA's own ones are logged here.
const loggedErrors = new WeakSet<object>();

function logInternal(error: unknown, requestId?: string): void {
  logger.error({ err: (error as GraphQLError)?.originalError ?? error, requestId }, 'unhandled error in a REST operation');
  if (error && typeof error === 'object') loggedErrors.add(error);
}

/** Maps GraphQL errors to the spec's envelope; internals never leak into a 5xx message. */
export function graphqlErrorsToResponse(errors: readonly unknown[]): Response {
  const first = errors[0];
  const status = statusOf(first);
  if (status >= 500 && !isDeliberate(first)) {
    if (!(first && typeof first === 'object' && loggedErrors.has(first))) logInternal(first);
    return errorResponse(500, 'Internal server error');
  }
  const message = first instanceof Error ? first.message : 'Bad request';
  return errorResponse(status, message);
}

const BUILTIN_QUERY_PARSERS: Record<string, (raw: string) => unknown> = {
  Int: (raw) => (/^-?\d+$/.test(raw) ? Number(raw) : raw),
  Float: (raw) => (raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw),
  Boolean: (raw) => raw === 'true',
};

function listItemTypeName(type: TypeNode): string | undefined {
  const inner = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (inner.kind !== Kind.LIST_TYPE) return undefined;
  const item = inner.type.kind === Kind.NON_NULL_TYPE ? inner.type.type : inner.type;
  return item.kind === Kind.NAMED_TYPE ? item.name.value : undefined;
}

/**
 * SOFA reads query strings with qs, which turns more than 20 repeated values into an object.
 * List parameters are re-read here from the raw query so `ids=a&ids=b&...` keeps every value.
 */
function withListParameters(operation: OperationDefinitionNode, variables: Record<string, unknown>, query: URLSearchParams) {
  const merged = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const itemType = listItemTypeName(definition.type);
    if (!itemType) continue;
    const name = definition.variable.name.value;
    const values = [...query.getAll(name), ...query.getAll(`${name}[]`)];
    if (values.length === 0) continue;
    const parse = BUILTIN_QUERY_PARSERS[itemType];
    merged[name] = parse ? values.map(parse) : values;
  }
  return merged;
}

/**
 * SOFA drops body fields whose value is null, which would make null mean "absent". They are
 * passed on, so a write can clear a nullable field with null (absent keeps the stored value).
 */
function withBodyNulls(operation: OperationDefinitionNode, variables: Record<string, unknown>, body: Record<string, unknown>) {
  const merged = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (body[name] === null && !(name in merged)) merged[name] = null;
  }
  return merged;
}

/** The JSON body must carry each known field with its GraphQL type exactly: no silent casts. */
export function checkBodyTypes(body: Record<string, unknown>, args: readonly GraphQLArgument[]): void {
  for (const arg of args) {
    if (!(arg.name in body)) continue;
    // GraphQL would wrap a lone value into a one-item list; JSON bodies get no such cast.
    const value = body[arg.name];
    if (isListType(getNullableType(arg.type)) && value !== null && !Array.isArray(value)) {
      throw new ApiError(400, `${arg.name}: expected an array`);
    }
    coerceInputValue(body[arg.name], arg.type as GraphQLInputType, (path, _value, error) => {
      const where = [arg.name, ...path.map(String)].join('.');
      // GraphQL's messages end with the rejected value; a misplaced secret must not be echoed.
      throw new ApiError(400, `${where}: ${error.message.replace(/(value)\s*:[\s\S]*$/i, '$1')}`);
    });
  }
}

export function createRestApi(schema: GraphQLSchema) {
  const executeCompiled = createCompiledExecutor();
  const operationFields = new WeakMap<DocumentNode, { fieldName: string; operation: OperationDefinitionNode }>();

  function describe(document: DocumentNode) {
    let info = operationFields.get(document);
    if (!info) {
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
      const selection = operation?.selectionSet.selections[0];
      if (!operation || selection?.kind !== Kind.FIELD) throw new Error('SOFA produced an unexpected document');
      info = { fieldName: selection.name.value, operation };
      operationFields.set(document, info);
    }
    return info;
  }

  async function execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const { fieldName, operation } = describe(args.document);
    const context = args.contextValue as RestContext;
    const fromRequest = withListParameters(operation, (args.variableValues ?? {}) as Record<string, unknown>, context.rawQuery);
    const variableValues = withBodyNulls(operation, fromRequest, context.rawBody);
    const result = await executeCompiled({ ...args, variableValues });
    if (result.errors?.length) {
      for (const error of result.errors) if (statusOf(error) >= 500 && !isDeliberate(error)) logInternal(error, context.requestId);
      return result;
    }
    // The envelope is built here so SOFA's own response writer emits it unchanged.
    return { data: { [fieldName]: { status: 'success', data: result.data?.[fieldName] } } };
  }

  const sofa = useSofa({
    schema,
    basePath: BASE_PATH,
    routes: Object.fromEntries(routes.map((r) => [r.field, { method: r.method, path: r.path, description: r.summary }])),
    execute: execute as typeof graphqlExecute,
    // SOFA types the handler with fets' Response; the standard Response it gets is the same at run time.
    errorHandler: graphqlErrorsToResponse as unknown as SofaErrorHandler,
    context: (serverContext) => (serverContext as unknown as { graphqlContext: RestContext }).graphqlContext,
  });

  // The route is matched here already, so each request goes straight to SOFA's handler for it:
  // fets' router and server adapter in between would only repeat that work.
  const sofaHandlers = new Map(sofa.__routes.map((r) => [`${r.method} ${r.path}`, r.handler as unknown as SofaHandler]));

  const compiled: CompiledRoute[] = routes.map((route) => {
    const field = routeField(schema, route);
    const handler = sofaHandlers.get(`${route.method} ${route.path}`);
    if (!handler) throw new Error(`SOFA has no handler for ${route.method} ${route.path}`);
    const pathParams = route.path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
    return { ...route, pattern: compilePath(route.path), args: field.args, pathParams, handler };
  });

  function match(method: string, pathname: string): RouteMatch {
    const relative = pathname.slice(BASE_PATH.length) || '/';
    const candidates = compiled.flatMap((route) => {
      const values = route.pattern.exec(relative);
      return values ? [{ route, pathValues: values.slice(1) }] : [];
    });
    if (candidates.length === 0) return { kind: 'not-found' };
    // A static path wins over a pattern (/products/list is not /products/:productId).
    const exact = candidates.filter(({ route }) => !route.path.includes(':'));
    const pool = exact.length ? exact : candidates;
    const found = pool.find(({ route }) => route.method === method);
    if (found) return { kind: 'route', ...found };
    return { kind: 'wrong-method', allow: [...new Set(pool.map(({ route }) => route.method))] };
  }

  /**
   * Runs the route's SOFA handler. Its arguments go in as route params, which SOFA reads first:
   * a read's query string parsed once (SOFA would parse it again for every variable; empty values
   * still count as absent), a write's body as already parsed and checked (RestContext.rawBody);
   * path parameters win over both.
   */
  async function handle(matched: Extract<RouteMatch, { kind: 'route' }>, url: URL, context: RestContext): Promise<Response> {
    const { route, pathValues } = matched;
    const params: Record<string, unknown> = Object.create(null);
    if (route.method === 'GET') {
      for (const [name, value] of Object.entries(parseQuery(url.search.slice(1)))) if (value) params[name] = value;
    } else {
      Object.assign(params, context.rawBody);
    }
    route.pathParams.forEach((name, index) => {
      const raw = pathValues[index] ?? '';
      // Decoded when SOFA reads it, as fets does, so a malformed escape is SOFA's 400.
      Object.defineProperty(params, name, { enumerable: true, configurable: true, get: () => decodeURIComponent(raw) });
    });
    const forwarded = new Request(`${url.origin}${url.pathname}`);
    Object.defineProperty(forwarded, 'params', { value: params });
    return route.handler(forwarded, { graphqlContext: context });
  }

  return { match, handle, sofa };
}

export type RestApi = ReturnType<typeof createRestApi>;
