import { GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ResponsePath } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { withStablePaths } from '../src/rest/stable-paths.js';

// The prisma plugin finds a list's planned relation loads by the identity of `info.path` objects
// (src/rest/stable-paths.ts). graphql-jit builds a new path object per resolver call; with the
// schema wrapped, a relation field's own path and its children's `path.prev` are one object again.

function schemaRecordingPaths() {
  const seen: { field: string; path: ResponsePath }[] = [];
  const record = (field: string) => (source: unknown, _args: unknown, _ctx: unknown, info: { path: ResponsePath }) => {
    seen.push({ field, path: info.path });
    return source;
  };
  const plan = { pothosPrismaSelect: {} };
  const buyer = new GraphQLObjectType({ name: 'Buyer', fields: { email: { type: GraphQLString, extensions: plan, resolve: () => 'a@example.com' } } });
  const order = new GraphQLObjectType({
    name: 'Order',
    fields: {
      user: { type: buyer, extensions: { pothosPrismaRelationField: true }, resolve: record('user') },
      number: { type: GraphQLString, extensions: plan, resolve: record('number') },
    },
  });
  const query = new GraphQLObjectType({ name: 'Query', fields: { orders: { type: new GraphQLList(order), resolve: () => [{}, {}] } } });
  return { schema: new GraphQLSchema({ query }), seen };
}

test('under graphql-jit, a relation field and the fields beneath it see the same path objects', async () => {
  const { schema, seen } = schemaRecordingPaths();
  const compiled = compileQuery(withStablePaths(schema), parse('{ orders { user { email } number } }'));
  if (!isCompiledQuery(compiled)) throw new Error('not compiled');
  const context = {};
  await compiled.query(undefined, context, {});
  const users = seen.filter((s) => s.field === 'user');
  const numbers = seen.filter((s) => s.field === 'number');
  expect(users).toHaveLength(2);
  // Siblings on one row share their parent (the row's) path object; different rows do not.
  expect(users[0]!.path.prev).toBe(numbers[0]!.path.prev);
  expect(users[1]!.path.prev).toBe(numbers[1]!.path.prev);
  expect(users[0]!.path.prev).not.toBe(users[1]!.path.prev);
  expect(users.map((u) => u.path.prev?.key)).toEqual([0, 1]);
});

test('another request gets path objects of its own', async () => {
  const { schema, seen } = schemaRecordingPaths();
  const compiled = compileQuery(withStablePaths(schema), parse('{ orders { number } }'));
  if (!isCompiledQuery(compiled)) throw new Error('not compiled');
  await compiled.query(undefined, {}, {});
  await compiled.query(undefined, {}, {});
  expect(seen[0]!.path).not.toBe(seen[2]!.path);
  expect(seen[0]!.path.prev).not.toBe(seen[2]!.path.prev);
});
