// A REST route: a public path and the GraphQL field that serves it. Each domain lists its own (its
// routes.ts); src/domains.ts assembles the table, and nothing outside it is reachable under /v0 or
// as a buyer route.
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { ErrorStatus } from '../errors.js';

/** Where the integrators' API lives. */
export const BASE_PATH = '/v0';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface RestRoute {
  method: HttpMethod;
  /** Relative to /v0; a buyer route's path is its whole path. */
  path: string;
  /**
   * `buyer`: a route for buyers' browsers (hosted checkout), served at `path` outside /v0 without
   * API keys: the record in the path (a checkout element, public like a payment link) names the
   * workspace and mode. Its resolver never asks for the principal.
   */
  audience?: 'buyer';
  /** The route takes an `Idempotency-Key` header: a repeat with the same key returns the first result. */
  idempotencyKey?: boolean;
  field: `Query.${string}` | `Mutation.${string}`;
  summary: string;
  /** A POST the public key alone may call (the seller's software checking a license key): it changes no merchant data. */
  publicKeyOnly?: boolean;
  /** Error statuses beyond the common ones (400, 401, 404 with a path id, 429, 500), for the OpenAPI document. */
  errors?: readonly ErrorStatus[];
}

/** The path a route is served at: /v0 + its path, or a buyer route's own path. */
/** Whether a route needs only the public key: reads, and the writes marked publicKeyOnly. */
export const readAccess = (route: Pick<RestRoute, 'method' | 'publicKeyOnly'>) => route.method === 'GET' || route.publicKeyOnly === true;

export const servedPath = (route: Pick<RestRoute, 'path' | 'audience'>) => (route.audience === 'buyer' ? route.path : `${BASE_PATH}${route.path}`);

/** A route as the table holds it: with the OpenAPI tag of its domain. */
export interface TaggedRoute extends RestRoute {
  tag: string;
}

/** The GraphQL field a route serves; a route naming a missing field is a programming error. */
export function routeField(schema: GraphQLSchema, route: RestRoute): GraphQLField<unknown, unknown> {
  const [typeName, fieldName] = route.field.split('.') as [string, string];
  const field = (typeName === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[fieldName];
  if (!field) throw new Error(`Route ${route.method} ${route.path} names a missing field ${route.field}`);
  return field;
}
