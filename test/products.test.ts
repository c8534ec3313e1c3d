import { call, newWorkspace, raw, type Workspace } from './support/api.js';

describe('products', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Products');
  });

  const create = (body: Record<string, unknown>, key = {}) =>
    call('POST', '/v0/products/create', ws, { projectId: ws.projectId, type: 'DigitalDownload', ...body }, key);

  test('create returns the product in the envelope with a fixed slug', async () => {
    const res = await create({ name: 'Ebook One', description: 'A book' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const { product } = res.body.data;
    expect(product).toMatchObject({ object: 'product', name: 'Ebook One', description: 'A book', type: 'DigitalDownload', status: 'DRAFT', slug: 'ebook-one' });
    const update = await call('PATCH', `/v0/products/${product.id}/update`, ws, { name: 'Renamed', slug: 'other' });
    expect(update.status).toBe(200);
    expect(update.body.data.product).toMatchObject({ name: 'Renamed', slug: 'ebook-one' });
  });

  test('a write with only the public key is 401 and writes nothing', async () => {
    const res = await create({ name: 'Nope' }, { write: false });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    const list = await raw('GET', '/v0/products/list', { headers: { 'x-svc-public-key': ws.publicKey }, query: 'termOrId=Nope&returnCount=true' });
    expect(list.body.data.count).toBe(0);
  });
});
