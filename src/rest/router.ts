// The route table as the server serves it: each route of src/domains.ts with its path pattern,
// its path parameters and the arguments of the GraphQL field that serves it; match() finds the
// route of a request (a /v0 route or a buyer route).
import type { GraphQLArgument, GraphQLSchema } from 'graphql';
import { routes } from '../domains.js';
import { routeField, servedPath, type TaggedRoute } from './route.js';

export interface ServedRoute extends TaggedRoute {
  /** The field's name, which keys its value in the operation's result. */
  fieldName: string;
  /** The field's arguments: path parameters, query parameters or body fields by name. */
  args: readonly GraphQLArgument[];
  /** The path's parameters in the order the path names them. */
  pathParams: readonly string[];
  /** The served path pattern, e.g. /v0/products/:productId, as metrics label it. */
  label: string;
  pattern: RegExp;
}

export type RouteMatch =
  | { kind: 'route'; route: ServedRoute; /** The path parameters' raw (still encoded) values, in route.pathParams order. */ pathValues: string[] }
  | { kind: 'not-found' }
  | { kind: 'wrong-method'; allow: string[] };

function compilePath(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function createRouter(schema: GraphQLSchema) {
  const served: ServedRoute[] = routes.map((route) => {
    const field = routeField(schema, route);
    const pathParams = route.path.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1));
    const label = servedPath(route);
    return { ...route, fieldName: field.name, args: field.args, pathParams, label, pattern: compilePath(label) };
  });
  // A static path wins over a pattern (/products/list is not /products/:productId): static paths are looked up first.
  const staticRoutes = new Map<string, ServedRoute[]>();
  for (const route of served) if (route.pathParams.length === 0) staticRoutes.set(route.label, [...(staticRoutes.get(route.label) ?? []), route]);
  const patternRoutes = served.filter((route) => route.pathParams.length > 0);

  function match(method: string, pathname: string): RouteMatch {
    let candidates = (staticRoutes.get(pathname) ?? []).map((route) => ({ route, pathValues: [] as string[] }));
    if (candidates.length === 0) {
      candidates = patternRoutes.flatMap((route) => {
        const values = route.pattern.exec(pathname);
        return values ? [{ route, pathValues: values.slice(1) }] : [];
      });
    }
    if (candidates.length === 0) return { kind: 'not-found' };
    const found = candidates.find(({ route }) => route.method === method);
    if (found) return { kind: 'route', ...found };
    return { kind: 'wrong-method', allow: [...new Set(candidates.map(({ route }) => route.method))] };
  }

  return { match };
}
