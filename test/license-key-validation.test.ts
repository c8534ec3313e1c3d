import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { baseUrl, keyHeaders, newWorkspace, type KeyChoice, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { orderBody, payCheckout } from './support/checkout.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { operationAt, readDocument } from './support/openapi.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';
import { refundUnits } from './support/refunds.js';
import { failure, ok, useSuiteDatabase } from './support/responses.js';

// The public license key validation through the real HTTP server (validate, activate, deactivate
// with the workspace's public key), offers' key policies (activation limit, validity), revoked
// and expired answers, tenant isolation, the budgets per client address and per workspace (429), and fuzzing of the three
// routes: every answer as the published document says. Units are refunded through the refund
// API; an old payment is made by moving its paidAt back with SQL.

const SLOW = 240_000;
const PUBLIC: KeyChoice = { write: false };
const db = useSuiteDatabase();
const LIVE: KeyChoice = { mode: 'live' };
const document = await readDocument();

/** A SoftwareKey product with an offer, `stock` keys, and a paid order of `quantity` units: its keys' values. */
async function soldKeys(ws: Workspace, options: { quantity?: number; stock?: number } = {}) {
  const client = restClient(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: `App ${randomUUID().slice(0, 8)}`, projectId: ws.projectId, type: 'SoftwareKey' } }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 1000, currency: 'USD' } }));
  const { checkoutElement } = await ok(client.POST('/v0/elements/checkout/create', { body: { offersIds: [offer.id] } }));
  const prefix = randomUUID().slice(0, 8);
  await ok(client.POST('/v0/products/{productId}/keys', { params: { path: { productId: product.id } }, body: { keys: Array.from({ length: options.stock ?? 3 }, (_, i) => `${prefix}-KEY-${i}`) } }));
  const paid = await payCheckout(checkoutElement.id, orderBody({ quantity: options.quantity ?? 1 }));
  expect(paid.status).toBe(200);
  const orderId: string = paid.body.data.order.id;
  const order = (await ok(client.GET('/v0/orders/{orderIdOrNumber}', { params: { path: { orderIdOrNumber: orderId } } }))).order;
  const item = order.items[0]!;
  return { product, offer, orderId, itemId: item.id as string, keys: item.licenseKeys.map((k) => k.key!), unsold: `${prefix}-KEY-${(options.stock ?? 3) - 1}` };
}

type KeyBody = { productId: string; key: string; instance?: string };
const validate = (ws: Workspace, body: KeyBody, key: KeyChoice = PUBLIC) => restClient(ws, key).POST('/v0/license-keys/validate', { body });
const activate = (ws: Workspace, body: Required<KeyBody>, key: KeyChoice = PUBLIC) => restClient(ws, key).POST('/v0/license-keys/activate', { body });
const deactivate = (ws: Workspace, body: Required<KeyBody>, key: KeyChoice = PUBLIC) => restClient(ws, key).POST('/v0/license-keys/deactivate', { body });
const setPolicy = (ws: Workspace, offerId: string, body: { activationLimit?: number | null; validForDays?: number | null }, key: KeyChoice = {}) =>
  restClient(ws, key).PATCH('/v0/offers/{offerId}/license-key-policy', { params: { path: { offerId } }, body });

describe('license key validation', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Key validation', ['testMode=true']);
  });

  test('a sold key of a paid order is granted with the public key; unknown, unsold and another product\'s keys are not_found; the value is trimmed', async () => {
    const sale = await soldKeys(ws);
    const answer = (await ok(validate(ws, { productId: sale.product.id, key: ` ${sale.keys[0]!} ` }))).validation;
    expect(answer).toEqual({
      object: 'license_key_validation',
      valid: true,
      status: 'granted',
      productId: sale.product.id,
      licenseKeyId: expect.any(String),
      offerId: sale.offer.id,
      orderId: sale.orderId,
      expiresAt: null,
      activationLimit: null,
      activations: 0,
      instance: null,
      instanceActivated: null,
    });
    for (const key of ['NOPE', sale.unsold]) {
      expect((await ok(validate(ws, { productId: sale.product.id, key }))).validation).toMatchObject({ valid: false, status: 'not_found', licenseKeyId: null, orderId: null });
    }
    const other = await soldKeys(ws);
    expect((await ok(validate(ws, { productId: other.product.id, key: sale.keys[0]! }))).validation.status).toBe('not_found');
    expect((await failure(validate(ws, { productId: sale.product.id, key: '   ' }))).status).toBe(400);
    expect((await failure(validate(ws, { productId: 'not-a-uuid', key: 'x' }))).status).toBe(400);
  }, SLOW);

  test('tenant isolation: another workspace and the test mode of the same one never find the key', async () => {
    const sale = await soldKeys(ws);
    const stranger = await newWorkspace('Key validation: stranger');
    expect((await ok(validate(stranger, { productId: sale.product.id, key: sale.keys[0]! }))).validation.status).toBe('not_found');
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }, { mode: 'test', write: false }))).validation.status).toBe('not_found');
    expect((await failure(activate(stranger, { productId: sale.product.id, key: sale.keys[0]!, instance: 'm1' }))).status).toBe(404);
    expect((await failure(setPolicy(stranger, sale.offer.id, { activationLimit: 1 }))).status).toBe(404);
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation.status).toBe('granted');
  }, SLOW);

  test('policy: read (nulls by default), set and unset with the secret key; bounds 400; another product type 400; unknown 404; public key 401', async () => {
    const sale = await soldKeys(ws);
    const read = () => restClient(ws, PUBLIC).GET('/v0/offers/{offerId}/license-key-policy', { params: { path: { offerId: sale.offer.id } } });
    expect((await ok(read())).policy).toEqual({ object: 'license_key_policy', offerId: sale.offer.id, activationLimit: null, validForDays: null });
    expect((await ok(setPolicy(ws, sale.offer.id, { activationLimit: 2, validForDays: 30 }))).policy).toMatchObject({ activationLimit: 2, validForDays: 30 });
    expect((await ok(setPolicy(ws, sale.offer.id, { validForDays: null }))).policy).toMatchObject({ activationLimit: 2, validForDays: null });
    expect((await ok(read())).policy).toMatchObject({ activationLimit: 2, validForDays: null });
    for (const body of [{ activationLimit: 0 }, { activationLimit: -1 }, { validForDays: 36_501 }, { activationLimit: 100_001 }]) {
      expect((await failure(setPolicy(ws, sale.offer.id, body))).status).toBe(400);
    }
    expect((await failure(setPolicy(ws, sale.offer.id, { activationLimit: 1 }, PUBLIC))).status).toBe(401);
    expect((await failure(setPolicy(ws, randomUUID(), { activationLimit: 1 }))).status).toBe(404);
    const { product } = await ok(restClient(ws).POST('/v0/products/create', { body: { name: 'File', projectId: ws.projectId, type: 'DigitalDownload' } }));
    const { offer } = await ok(restClient(ws).POST('/v0/offers/create', { body: { productId: product.id, price: 500, currency: 'USD' } }));
    expect((await failure(setPolicy(ws, offer.id, { activationLimit: 1 }))).status).toBe(400);
  }, SLOW);

  test('activations: up to the limit (again is the same), 409 past it, deactivating frees a place; unknown key or instance 404', async () => {
    const sale = await soldKeys(ws);
    await ok(setPolicy(ws, sale.offer.id, { activationLimit: 2 }));
    const on = (instance: string) => ({ productId: sale.product.id, key: sale.keys[0]!, instance });
    expect((await ok(activate(ws, on('laptop')))).validation).toMatchObject({ valid: true, activationLimit: 2, activations: 1, instance: 'laptop', instanceActivated: true });
    expect((await ok(activate(ws, on('laptop')))).validation.activations).toBe(1);
    expect((await ok(activate(ws, on('desktop')))).validation.activations).toBe(2);
    const full = await failure(activate(ws, on('phone')));
    expect(full.status).toBe(409);
    expect(full.body.error.message).toMatch(/2 of 2/);
    expect((await ok(validate(ws, on('phone')))).validation).toMatchObject({ valid: true, activations: 2, instanceActivated: false });
    expect((await ok(deactivate(ws, on('laptop')))).validation).toMatchObject({ activations: 1, instanceActivated: false });
    expect((await ok(activate(ws, on('phone')))).validation.activations).toBe(2);
    expect((await failure(deactivate(ws, on('laptop')))).status).toBe(404);
    expect((await failure(activate(ws, { ...on('x'), key: 'NOPE' }))).status).toBe(404);
    expect((await failure(activate(ws, on('')))).status).toBe(400);
  }, SLOW);

  test('20 parallel activations of different instances on a limit of 3: exactly 3 succeed', async () => {
    const sale = await soldKeys(ws);
    await ok(setPolicy(ws, sale.offer.id, { activationLimit: 3 }));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => activate(ws, { productId: sale.product.id, key: sale.keys[0]!, instance: `box-${i}` })));
    expect(answers.filter((answer) => answer.response.status === 200)).toHaveLength(3);
    expect(answers.filter((answer) => answer.response.status === 409)).toHaveLength(17);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "LicenseKeyActivation" a JOIN "LicenseKey" k ON k.id = a."licenseKeyId" WHERE k."orderItemId" = $1`, [sale.itemId]);
    expect(rows[0].n).toBe(3);
  }, SLOW);

  test('a refunded unit\'s key is revoked (the other unit stays granted); an order refunded in full revokes all; a revoked key cannot be activated but can be deactivated', async () => {
    const sale = await soldKeys(ws, { quantity: 2 });
    await ok(activate(ws, { productId: sale.product.id, key: sale.keys[1]!, instance: 'old' }));
    expect((await refundUnits(ws, sale.orderId, [{ id: sale.itemId, quantity: 1 }], LIVE)).orderStatus).toBe('PARTIALLY_REFUNDED');
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation).toMatchObject({ valid: true, status: 'granted' });
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[1]! }))).validation).toMatchObject({ valid: false, status: 'revoked' });
    const refused = await failure(activate(ws, { productId: sale.product.id, key: sale.keys[1]!, instance: 'new' }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/revoked/);
    expect((await ok(deactivate(ws, { productId: sale.product.id, key: sale.keys[1]!, instance: 'old' }))).validation.activations).toBe(0);
    expect((await refundUnits(ws, sale.orderId, undefined, LIVE)).orderStatus).toBe('REFUNDED');
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation.status).toBe('revoked');
  }, SLOW);

  test('expiry: validForDays after the payment; past it the key is expired and cannot be activated', async () => {
    const sale = await soldKeys(ws);
    await ok(setPolicy(ws, sale.offer.id, { validForDays: 10 }));
    const { rows } = await db.query(`SELECT "paidAt" FROM "Order" WHERE id = $1`, [sale.orderId]);
    const paidAt = (rows[0].paidAt as Date).getTime();
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation).toMatchObject({ valid: true, expiresAt: Math.floor((paidAt + 10 * 86_400_000) / 1000) });
    await db.query(`UPDATE "Order" SET "paidAt" = "paidAt" - interval '11 days' WHERE id = $1`, [sale.orderId]);
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation).toMatchObject({ valid: false, status: 'expired' });
    expect((await failure(activate(ws, { productId: sale.product.id, key: sale.keys[0]!, instance: 'm' }))).status).toBe(400);
    await ok(setPolicy(ws, sale.offer.id, { validForDays: null }));
    expect((await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation).toMatchObject({ valid: true, expiresAt: null });
  }, SLOW);

  test('fuzz: hostile bodies on validate, activate and deactivate never 5xx, always the documented envelope, never pass the limit', async () => {
    const sale = await soldKeys(ws);
    await ok(setPolicy(ws, sale.offer.id, { activationLimit: 2 }));
    const kit = fuzzKit(document, [sale.product.id, sale.offer.id]);
    const plausible = fc
      .record(
        {
          productId: fc.oneof(fc.constant(sale.product.id), fc.uuid(), kit.anyString),
          key: fc.oneof(fc.constant(sale.keys[0]!), kit.anyString, kit.aroundMaxLength(255), fc.constant(null)),
          instance: fc.oneof(fc.constantFrom('a', 'b', 'c'), kit.anyString, kit.aroundMaxLength(255), fc.constant(null)),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('validate', 'activate', 'deactivate'), fc.oneof(plausible, kit.json.map((v) => JSON.stringify(v))), async (action, body) => {
        const path = `/v0/license-keys/${action}`;
        const request: Sent = { method: 'POST', path, query: '', keys: keyHeaders(ws, PUBLIC), body };
        checkAnswer(document, request, await send(baseUrl(), request), operationAt(document, 'POST', path));
      }),
      { numRuns: Number(process.env.KEY_VALIDATION_FUZZ_RUNS ?? 80) },
    );
    const answer = (await ok(validate(ws, { productId: sale.product.id, key: sale.keys[0]! }))).validation;
    expect(answer.activations).toBeLessThanOrEqual(2);
  }, SLOW);
});

describe('the validation budgets', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // Its peer (this test, on loopback) is a trusted proxy: X-Forwarded-For names each request's client.
    server = await startServerProcess({
      ...httpOnlyEnv(),
      DATABASE_URL: process.env.DATABASE_URL!,
      RATE_LIMIT_KEY_PREFIX: `keys-${randomUUID()}`,
      TRUST_PROXY: '127.0.0.1,::1',
      LICENSE_KEY_VALIDATIONS_PER_MINUTE: '6',
      LICENSE_KEY_VALIDATIONS_PER_ADDRESS_PER_MINUTE: '3',
      RATE_LIMIT_POINTS: '100000',
    });
  }, 120_000);
  afterAll(() => server?.stop());

  const post = (workspace: Workspace, action: string, forwardedFor: string) =>
    fetch(`${server.url}/v0/license-keys/${action}`, {
      method: 'POST',
      headers: { ...keyHeaders(workspace, PUBLIC), 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ productId: randomUUID(), key: 'K', instance: 'i' }),
    });

  /** A 429 as the published document says, with Retry-After in whole seconds within the minute; its message. */
  async function refused(response: Response): Promise<string> {
    expect(response.status).toBe(429);
    const body = await response.json();
    const problems = checkAnswer(document, { method: 'POST', path: '/v0/license-keys/validate', query: '', keys: {} }, { status: 429, headers: response.headers, text: JSON.stringify(body) }, operationAt(document, 'POST', '/v0/license-keys/validate'));
    expect(problems).toMatchObject({ status: 'error' });
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    return body.error.message;
  }

  test('per client address of a workspace over validate, activate and deactivate: one address at its budget is 429 alone (a forged X-Forwarded-For entry does not help it); the others go on until the workspace\'s own budget', async () => {
    const ws = await newWorkspace('Key validation: budgets');
    const statuses: number[] = [];
    for (const action of ['validate', 'activate', 'deactivate']) statuses.push((await post(ws, action, '203.0.113.7')).status);
    expect(statuses).toEqual([200, 404, 404]);
    expect(await refused(await post(ws, 'validate', '203.0.113.7'))).toMatch(/^At most 3 license key validations a minute per client address; retry in \d+ s$/);
    // The trusted proxy appended the client's address at the right: what the client wrote left of it is not read.
    expect(await refused(await post(ws, 'validate', '198.51.100.200, 203.0.113.7'))).toMatch(/per client address/);
    // Other customers of the workspace are not refused: the refused address spent nothing of the workspace's budget.
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) expect((await post(ws, 'validate', address)).status).toBe(200);
    expect(await refused(await post(ws, 'validate', '198.51.100.4'))).toMatch(/^At most 6 license key validations a minute per workspace; retry in \d+ s$/);
    expect((await post(await newWorkspace('Key validation: other budget'), 'validate', '203.0.113.7')).status).toBe(200);
  }, SLOW);

  test('IPv6 clients count by their /64: another address of the same network shares its budget, another network does not', async () => {
    const ws = await newWorkspace('Key validation: IPv6 budgets');
    for (const address of ['2001:db8:1:1::1', '2001:db8:1:1::2', '2001:db8:1:1:abcd::3']) expect((await post(ws, 'validate', address)).status).toBe(200);
    expect(await refused(await post(ws, 'validate', '2001:db8:1:1::4'))).toMatch(/per client address/);
    expect((await post(ws, 'validate', '2001:db8:1:2::1')).status).toBe(200);
  }, SLOW);
});
