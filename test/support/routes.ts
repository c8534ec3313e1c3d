import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
  type IntrospectionQuery,
} from 'graphql';
import { routes } from '../../src/domains.js';
import { servedPath, type RestRoute } from '../../src/rest/route.js';

// The rules tests iterate over the route table as it is when they run, with each route's
// arguments read from the running server's schema, so every route that exists is covered.

export interface RouteInfo extends RestRoute {
  /** The GraphQL arguments: path parameters, query parameters or body fields by name. */
  args: readonly GraphQLArgument[];
  pathParams: string[];
  /** The concrete path (under /v0, or a buyer route's own) with the given path parameter values (URL-encoded here). */
  url(params?: Record<string, string>): string;
}

export async function describeRoutes(baseUrl: string): Promise<RouteInfo[]> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const { data } = (await response.json()) as { data: IntrospectionQuery };
  const schema = buildClientSchema(data);
  return routes.map((route) => {
    const [typeName, fieldName] = route.field.split('.') as [string, string];
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`${route.field} is not in the served schema`);
    const pathParams = route.path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
    const url = (params: Record<string, string> = {}) =>
      servedPath(route).replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? crypto.randomUUID()));
    return { ...route, args: field.args, pathParams, url };
  });
}

export const argNames = (route: RouteInfo) => route.args.map((arg) => arg.name);
export const hasArgs = (route: RouteInfo, ...names: string[]) => names.every((name) => argNames(route).includes(name));
export const typeName = (type: GraphQLInputType) => getNamedType(type).name;
export const isList = (type: GraphQLInputType) => isListType(isNonNullType(type) ? type.ofType : type);

/** GET routes with offset pagination (skip/take) and page pagination (page/limit). */
export const offsetLists = (all: RouteInfo[]) => all.filter((r) => r.method === 'GET' && hasArgs(r, 'skip', 'take'));
export const pageLists = (all: RouteInfo[]) => all.filter((r) => r.method === 'GET' && hasArgs(r, 'page', 'limit'));

/** The one array in a list response's data (products, discounts, users, ...). */
export function listOf(data: Record<string, unknown>): unknown[] {
  const arrays = Object.values(data).filter(Array.isArray);
  if (arrays.length !== 1) throw new Error(`expected one array in ${JSON.stringify(data).slice(0, 200)}`);
  return arrays[0]!;
}
