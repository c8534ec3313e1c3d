// SOFA (sofa-api) turns GraphQL fields into REST routes. It is used at start-up only, through its
// public API: it gives each /v0 route its GraphQL document (the field with the selection SOFA
// makes: circular references left out, nested "model" types reduced to their id) and the OpenAPI
// document's parameters and bodies (openapi.ts). Requests never go through it: operations.ts runs
// the documents itself, with arguments read by arguments.ts.
import type { DocumentNode, ExecutionArgs, GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { routes } from '../domains.js';
import { BASE_PATH } from './route.js';

type SofaExecute = NonNullable<Parameters<typeof useSofa>[0]['execute']>;

/** SOFA serving the route table; `execute` is what it calls with each route's document. */
export function sofaRouter(schema: GraphQLSchema, execute?: SofaExecute) {
  return useSofa({
    schema,
    basePath: BASE_PATH,
    routes: Object.fromEntries(routes.map((r) => [r.field, { method: r.method, path: r.path, description: r.summary }])),
    ...(execute ? { execute } : {}),
  });
}

/**
 * The GraphQL document SOFA runs for each route, keyed by the route's field. Each route is
 * requested once, without arguments, from a SOFA whose `execute` keeps the document it is given
 * and runs nothing.
 */
export async function routeDocuments(schema: GraphQLSchema): Promise<Map<string, DocumentNode>> {
  const documents = new Map<string, DocumentNode>();
  let field = '';
  const keep = ((args: ExecutionArgs) => {
    documents.set(field, args.document);
    return { data: null };
  }) as SofaExecute;
  const sofa = sofaRouter(schema, keep);
  for (const route of routes) {
    field = route.field;
    const path = route.path.replace(/:[^/]+/g, 'x');
    await sofa.fetch(`http://sofa${BASE_PATH}${path}`, { method: route.method });
    if (!documents.has(route.field)) throw new Error(`SOFA ran no document for ${route.method} ${route.path}`);
  }
  return documents;
}
