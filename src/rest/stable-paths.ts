// graphql-jit hands every resolver a response path built anew for that one call, where graphql-js
// shares one path object per response position. @pothos/selection-mapper finds the relation loads
// a list's query planned by the identity of those path objects (a WeakMap keyed by `info.path`),
// so under graphql-jit the plan beneath a list's rows is never found and every page reloads its
// nested relations by id (on GET /v0/orders/list: 4 statements instead of 2, and half the
// throughput; README, "Orders list at 100,000 orders"). Each resolver of the schema /v0 runs on is
// therefore given one path object per response position and request, as graphql-js would give.
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema, type ResponsePath } from 'graphql';

type PathKey = string | number;

/** Per request (its context): the stable path of each response position, by its parent's and its key. */
interface PathTable {
  roots: Map<PathKey, ResponsePath>;
  children: WeakMap<ResponsePath, Map<PathKey, ResponsePath>>;
}

const tables = new WeakMap<object, PathTable>();

function stablePath(table: PathTable, path: ResponsePath | undefined): ResponsePath | undefined {
  if (!path) return undefined;
  const prev = stablePath(table, path.prev);
  let siblings = prev ? table.children.get(prev) : table.roots;
  if (!siblings) {
    siblings = new Map();
    table.children.set(prev!, siblings);
  }
  let stable = siblings.get(path.key);
  if (!stable) {
    stable = { prev, key: path.key, typename: path.typename };
    siblings.set(path.key, stable);
  }
  return stable;
}

const wrapped = new WeakSet<GraphQLSchema>();

/** Wraps every field resolver of `schema` (once) so that `info.path` is the request's stable object for its position. */
export function withStablePaths(schema: GraphQLSchema): GraphQLSchema {
  if (wrapped.has(schema)) return schema;
  wrapped.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve: GraphQLFieldResolver<unknown, object> | undefined = field.resolve;
      if (!resolve) continue;
      field.resolve = (source, args, context, info) => {
        let table = tables.get(context);
        if (!table) {
          table = { roots: new Map(), children: new WeakMap() };
          tables.set(context, table);
        }
        // The info object is the call's own (both engines build one per resolver call).
        (info as { path: ResponsePath }).path = stablePath(table, info.path)!;
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
