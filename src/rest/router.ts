import {
  coerceInputValue,
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
import { errorResponse } from './envelope.js';
import { routes, type RestRoute } from './routes.js';

export const BASE_PATH = '/v0';

interface CompiledRoute extends RestRoute {
  pattern: RegExp;
  args: readonly GraphQLArgument[];
}

export type RouteMatch =
  | { kind: 'route'; route: CompiledRoute }
  | { kind: 'not-found' }
  | { kind: 'wrong-method'; allow: string[] };

/** Context handed to SOFA for one request; the raw query lets list parameters keep every value. */
export interface RestContext extends Context {
  rawQuery: URLSearchParams;
}

function compilePath(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
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

/** Maps GraphQL errors to the spec's envelope; internals never leak into a 5xx message. */
export function graphqlErrorsToResponse(errors: readonly unknown[]): Response {
  const first = errors[0];
  const status = statusOf(first);
  if (status >= 500) {
    logger.error({ err: (first as GraphQLError)?.originalError ?? first }, 'unhandled error in a REST operation');
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

/** The JSON body must carry each known field with its GraphQL type exactly: no silent casts. */
export function checkBodyTypes(body: Record<string, unknown>, args: readonly GraphQLArgument[]): void {
  for (const arg of args) {
    if (!(arg.name in body)) continue;
    coerceInputValue(body[arg.name], arg.type as GraphQLInputType, (path, _value, error) => {
      const where = [arg.name, ...path.map(String)].join('.');
      throw new ApiError(400, `${where}: ${error.message}`);
    });
  }
}

export function createRestApi(schema: GraphQLSchema) {
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
    const variableValues = withListParameters(operation, (args.variableValues ?? {}) as Record<string, unknown>, context.rawQuery);
    const result = await graphqlExecute({ ...args, variableValues });
    if (result.errors?.length) return result;
    // The envelope is built here so SOFA's own response writer emits it unchanged.
    return { data: { [fieldName]: { status: 'success', data: result.data?.[fieldName] } } };
  }

  const sofa = useSofa({
    schema,
    basePath: BASE_PATH,
    routes: Object.fromEntries(routes.map((r) => [r.field, { method: r.method, path: r.path, description: r.summary }])),
    execute: execute as typeof graphqlExecute,
    errorHandler: (errors) => graphqlErrorsToResponse(errors),
    context: (serverContext) => (serverContext as unknown as { graphqlContext: RestContext }).graphqlContext,
  });

  const compiled: CompiledRoute[] = routes.map((route) => {
    const [typeName, fieldName] = route.field.split('.') as [string, string];
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`Route ${route.method} ${route.path} names a missing field ${route.field}`);
    return { ...route, pattern: compilePath(route.path), args: field.args };
  });

  function match(method: string, pathname: string): RouteMatch {
    const relative = pathname.slice(BASE_PATH.length) || '/';
    const candidates = compiled.filter((route) => route.pattern.test(relative));
    if (candidates.length === 0) return { kind: 'not-found' };
    // A static path wins over a pattern (/products/list is not /products/:productId).
    const exact = candidates.filter((route) => !route.path.includes(':'));
    const pool = exact.length ? exact : candidates;
    const route = pool.find((r) => r.method === method);
    if (route) return { kind: 'route', route };
    return { kind: 'wrong-method', allow: [...new Set(pool.map((r) => r.method))] };
  }

  async function handle(request: Request, graphqlContext: RestContext): Promise<Response> {
    return sofa.fetch(request, { graphqlContext });
  }

  return { match, handle, sofa };
}

export type RestApi = ReturnType<typeof createRestApi>;
