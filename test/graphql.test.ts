import { CreateProductDocument, GetProductDocument, ListProductsDocument } from './generated/graphql/graphql.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { graphqlClient, restClient } from './support/client.js';

describe('GraphQL (/graphql) with the typed documents', () => {
  let ws: Workspace;
  let other: Workspace;
  beforeAll(async () => {
    [ws, other] = await Promise.all([newWorkspace('GraphQL'), newWorkspace('GraphQL other')]);
  });

  const createVariables = (name: string) => ({ name, projectId: ws.projectId, type: 'Game' as const, description: 'Made over GraphQL', genres: ['Puzzle'] });

  test('a mutation with the write keys creates a product that REST reads back', async () => {
    const created = await graphqlClient(ws)(CreateProductDocument, createVariables('GraphQL Book'));
    expect(created.errors).toBeUndefined();
    expect(created.status).toBe(200);
    const product = created.data!.createProduct.product;
    expect(product).toMatchObject({ object: 'product', name: 'GraphQL Book', type: 'Game', status: 'DRAFT', slug: 'graphql-book', genres: ['Puzzle'] });
    expect(Number.isInteger(product.createdAt)).toBe(true);

    const { data, response } = await restClient(ws).GET('/v0/products/{productId}', { params: { path: { productId: product.id } } });
    expect(response.status).toBe(200);
    expect(data!.data.product).toMatchObject({ id: product.id, name: 'GraphQL Book', description: 'Made over GraphQL', projectId: ws.projectId });
    const details = await graphqlClient(ws, { write: false })(GetProductDocument, { productId: product.id });
    expect(details.data!.product.product).toEqual({ object: 'product', id: product.id, name: 'GraphQL Book', slug: 'graphql-book', variants: [] });
  });

  test('the list query with the public key only returns the workspace products, newest first', async () => {
    // Its own products, by a name no other test uses: the count is this test's alone.
    const first = await graphqlClient(ws)(CreateProductDocument, createVariables('Listed First'));
    const second = await graphqlClient(ws)(CreateProductDocument, createVariables('Listed Second'));
    const list = await graphqlClient(ws, { write: false })(ListProductsDocument, { termOrId: 'Listed', returnCount: true });
    expect(list.errors).toBeUndefined();
    expect(list.data!.products.count).toBe(2);
    expect(list.data!.products.products.map((p) => p.name)).toEqual(['Listed Second', 'Listed First']);
    expect(list.data!.products.products.map((p) => p.id)).toEqual([second.data!.createProduct.product.id, first.data!.createProduct.product.id]);

    const elsewhere = await graphqlClient(other, { write: false })(ListProductsDocument, { termOrId: 'Listed', returnCount: true });
    expect(elsewhere.data!.products).toEqual({ count: 0, products: [] });
  });

  test('a query without keys is UNAUTHENTICATED', async () => {
    const result = await graphqlClient(null)(ListProductsDocument, {});
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  test('a mutation with only the public key is UNAUTHENTICATED and writes nothing', async () => {
    const result = await graphqlClient(ws, { write: false })(CreateProductDocument, createVariables('GraphQL Forbidden'));
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const list = await graphqlClient(ws, { write: false })(ListProductsDocument, { termOrId: 'GraphQL Forbidden', returnCount: true });
    expect(list.data!.products.count).toBe(0);
  });

  test('a product of another workspace is NOT_FOUND', async () => {
    const created = await graphqlClient(other)(CreateProductDocument, { ...createVariables('Other Book'), projectId: other.projectId });
    const result = await graphqlClient(ws, { write: false })(GetProductDocument, { productId: created.data!.createProduct.product.id });
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  test('a malformed UUID variable is rejected before any resolver runs', async () => {
    const result = await graphqlClient(ws, { write: false })(GetProductDocument, { productId: 'not-a-uuid' });
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toMatch(/UUID/);
  });
});
