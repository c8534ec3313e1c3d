// Runs a route's GraphQL document (sofa.ts) with the arguments of one request (arguments.ts).
// Each document is compiled once, at its first use, with graphql-jit, which runs it several times
// faster than graphql-js; a document graphql-jit cannot compile runs on graphql-js. Resolvers see
// stable response paths (stable-paths.ts), as under graphql-js.
import { execute, type DocumentNode, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Context } from '../graphql/context.js';
import type { Arguments } from './arguments.js';
import type { ServedRoute } from './router.js';
import { routeDocuments } from './sofa.js';
import { withStablePaths } from './stable-paths.js';

interface Operation {
  document: DocumentNode;
  /** null when graphql-jit cannot compile the document; undefined until its first use. */
  compiled?: CompiledQuery | null;
}

export async function createOperations(schema: GraphQLSchema) {
  withStablePaths(schema);
  const operations = new Map<string, Operation>();
  for (const [field, document] of await routeDocuments(schema)) operations.set(field, { document });

  /**
   * The value of the route's field for arguments that arguments.ts has checked. The first error of
   * the execution is thrown: a resolver's ApiError, or an internal error (envelope.ts maps both).
   */
  return async function executeRoute(route: ServedRoute, args: Arguments, context: Context): Promise<unknown> {
    const operation = operations.get(route.field)!;
    if (operation.compiled === undefined) {
      const compiled = compileQuery(schema, operation.document);
      operation.compiled = isCompiledQuery(compiled) ? compiled : null;
    }
    const result = operation.compiled
      ? await operation.compiled.query(undefined, context, args)
      : await execute({ schema, document: operation.document, contextValue: context, variableValues: args });
    if (result.errors?.length) throw result.errors[0];
    return result.data?.[route.fieldName];
  };
}
