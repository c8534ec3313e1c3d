// A /v0 route: a public REST path and the GraphQL field that serves it. Each domain lists its own
// (its routes.ts); src/domains.ts assembles the table, and nothing outside it is reachable under /v0.
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { ErrorStatus } from '../errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface RestRoute {
  method: HttpMethod;
  path: string;
  field: `Query.${string}` | `Mutation.${string}`;
  summary: string;
  /** Error statuses beyond the common ones (400, 401, 404 with a path id, 429, 500), for the OpenAPI document. */
  errors?: readonly ErrorStatus[];
}

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
