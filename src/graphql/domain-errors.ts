import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { asApiError } from '../errors.js';

// Services throw named domain errors (src/core/errors.ts) that know nothing of GraphQL or HTTP.
// The root fields' resolvers turn them into the API's error (src/errors.ts: status, code, message),
// so /v0 and /graphql report them alike; any other error stays internal (500, masked).

const reported = (item: unknown) =>
  item instanceof Promise
    ? item.catch((error: unknown) => {
        throw asApiError(error);
      })
    : asApiError(item);

/** Wraps every root field's resolver (in place; returns the schema). */
export function reportDomainErrors(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      field.resolve = async (source, args, context, info) => {
        let result: unknown;
        try {
          result = await resolve(source, args, context, info);
        } catch (error) {
          throw asApiError(error);
        }
        // Federation's _entities answers each representation on its own, as a promise in the list.
        return Array.isArray(result) ? result.map(reported) : result;
      };
    }
  }
  return schema;
}
