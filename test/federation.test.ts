import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { CreateProductDocument, ListProductsDocument } from './generated/graphql/graphql.js';
import { baseUrl, newWorkspace, type Workspace } from './support/api.js';
import { graphqlClient, restClient } from './support/client.js';
import { ROOT } from './support/processes.js';

const KEY_HEADERS = ['x-svc-public-key', 'x-svc-secret-key'] as const;

interface GatewayContext {
  keys: Record<string, string>;
}

// Entity resolution is part of the subgraph schema only, so this document is not in test/graphql.
const ProductEntities = parse(`
  query ProductEntities($representations: [_Any!]!) {
    _entities(representations: $representations) {
      ... on Product { object id name slug }
    }
  }
`) as TypedDocumentNode<
  { _entities: ({ object: string; id: string; name: string; slug: string } | null)[] },
  { representations: { __typename: string; id: string }[] }
>;

describe('federation: the checked-in supergraph behind @apollo/gateway', () => {
  let ws: Workspace;
  let other: Workspace;
  let server: ApolloServer<GatewayContext>;
  let gatewayUrl: string;

  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('Federation'), newWorkspace('Federation other')]);
    const gateway = new ApolloGateway({
      supergraphSdl: readFileSync(path.join(ROOT, 'schema/supergraph.graphql'), 'utf8'),
      // The supergraph names the subgraph's usual URL; here it is the test server's /graphql.
      buildService: () =>
        new RemoteGraphQLDataSource<GatewayContext>({
          url: `${baseUrl()}/graphql`,
          willSendRequest({ request, context }) {
            const { keys = {} } = context as Partial<GatewayContext>;
            for (const [name, value] of Object.entries(keys)) request.http?.headers.set(name, value);
          },
        }),
    });
    server = new ApolloServer<GatewayContext>({ gateway });
    const started = await startStandaloneServer(server, {
      listen: { port: 0, host: '127.0.0.1' },
      context: async ({ req }) => ({
        keys: Object.fromEntries(KEY_HEADERS.flatMap((name) => (typeof req.headers[name] === 'string' ? [[name, req.headers[name]]] : []))),
      }),
    });
    gatewayUrl = started.url;
  });

  afterAll(async () => {
    await server?.stop();
  });

  test('a products query through the gateway returns what REST returns', async () => {
    for (const name of ['Federated One', 'Federated Two']) {
      const created = await graphqlClient(ws)(CreateProductDocument, { name, projectId: ws.projectId, type: 'DigitalDownload' });
      expect(created.errors).toBeUndefined();
    }

    const viaGateway = await graphqlClient(ws, { write: false }, gatewayUrl)(ListProductsDocument, { termOrId: 'Federated', returnCount: true });
    expect(viaGateway.errors).toBeUndefined();
    const { data: rest, response } = await restClient(ws, { write: false }).GET('/v0/products/list', { params: { query: { termOrId: 'Federated', returnCount: true } } });
    expect(response.status).toBe(200);

    const products = viaGateway.data!.products;
    expect(products.count).toBe(2);
    expect(products.products.map((p) => p.name)).toEqual(['Federated Two', 'Federated One']);
    expect(rest!.data.count).toBe(2);
    // The gateway's selection is a subset of the REST object; each field must agree.
    expect(rest!.data.products.map((p) => Object.fromEntries(Object.keys(products.products[0]!).map((key) => [key, p[key as keyof typeof p]])))).toEqual(products.products);
  });

  test('the gateway forwards the keys: without them the subgraph refuses', async () => {
    const result = await graphqlClient(null, {}, gatewayUrl)(ListProductsDocument, {});
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', response: { status: 401 } });
  });

  test('_entities resolves a Product reference by id within the workspace only', async () => {
    const created = await graphqlClient(ws)(CreateProductDocument, { name: 'Entity Product', projectId: ws.projectId, type: 'DigitalDownload' });
    const { id } = created.data!.createProduct.product;

    const resolved = await graphqlClient(ws, { write: false })(ProductEntities, { representations: [{ __typename: 'Product', id }] });
    expect(resolved.errors).toBeUndefined();
    expect(resolved.data!._entities).toEqual([{ object: 'product', id, name: 'Entity Product', slug: 'entity-product' }]);

    // Another workspace's keys cannot resolve the reference.
    const foreign = await graphqlClient(other, { write: false })(ProductEntities, { representations: [{ __typename: 'Product', id }] });
    expect(foreign.data?._entities?.[0] ?? null).toBeNull();
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
