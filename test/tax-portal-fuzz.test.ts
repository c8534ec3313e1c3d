import fc from 'fast-check';
import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { tally } from './support/checkout.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { documentedOperation, readDocument } from './support/openapi.js';
import { ok } from './support/responses.js';
import { seedOrder } from './support/sales.js';

// POST /v0/tax/calculate and GET /v0/portal/url under hostile input, with every kind of key:
// never a 5xx, every answer in the envelope and as the published OpenAPI document says; a tax
// answer adds up (net + tax = total, the components sum to the tax, the amount is the net or the
// total as the prices say); a portal answer is a link into the workspace or its custom URL;
// neither route writes anything. TAX_FUZZ_RUNS scales the runs.

const RUNS = Number(process.env.TAX_FUZZ_RUNS ?? 150);
const SLOW = 180_000;
const CUSTOM_URL = 'https://manage.example.com/subscriptions';

const document = await readDocument();
const knownIds: string[] = [];
const kit = fuzzKit(document, knownIds);
const { anyString, anyInt, json } = kit;

let ws: Workspace;
let custom: Workspace;
const ids: Record<string, string> = {};
const numbers: string[] = [];

beforeAll(async () => {
  [ws, custom] = await Promise.all([newWorkspace('Tax fuzz', ['testMode=true']), newWorkspace('Tax fuzz custom', ['testMode=true', `customSubscriptionManagementUrl=${CUSTOM_URL}`])]);
  const client = restClient(ws);
  const { product } = await ok(client.POST('/v0/products/create', { body: { name: 'Fuzzed', projectId: ws.projectId, type: 'DigitalDownload' } }));
  const { product: key } = await ok(client.POST('/v0/products/create', { body: { name: 'Fuzzed key', projectId: ws.projectId, type: 'SoftwareKey' } as never }));
  const { offer } = await ok(client.POST('/v0/offers/create', { body: { productId: product.id, price: 1999, currency: 'EUR' } }));
  Object.assign(ids, { product: product.id, key: key.id, offer: offer.id });
  const oneTime = (await seedOrder(ws)).order;
  const subscription = (await seedOrder(ws, { subscription: { recurringInterval: 'month' } })).order;
  numbers.push(oneTime.number, oneTime.id, subscription.number, subscription.id, `#${subscription.number}`);
  knownIds.push(product.id, key.id, offer.id, oneTime.id, subscription.id);
}, SLOW);

/** Every kind of caller: live and test write keys, the public key alone, a foreign workspace, garbage, none. */
const keys = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null).map(() => keyHeaders(ws)) },
  { weight: 1, arbitrary: fc.constant(null).map(() => keyHeaders(ws, { mode: 'test' })) },
  { weight: 2, arbitrary: fc.constant(null).map(() => keyHeaders(ws, { write: false })) },
  { weight: 2, arbitrary: fc.constant(null).map(() => keyHeaders(custom, { mode: 'test', write: false })) },
  { weight: 1, arbitrary: fc.constantFrom<Record<string, string>>({}, { 'x-svc-public-key': 'pk_live_nope' }) },
);

const countries = fc.constantFrom('DE', 'FR', 'GB', 'NO', 'CH', 'AU', 'NZ', 'CA', 'US', 'HK', 'XK', 'de', 'ZZ', '', 'DEU');
const states = fc.constantFrom('WA', 'CA', 'NY', 'QC', 'ON', 'BC', 'ZZ', 'wa', 'Washington', '', 'x'.repeat(300));
const postalCodes = fc.constantFrom('10115', '98101', '10001', '94107', 'H2X 1Y4', 'M5V 3L9', '00000', 'ABCDE', '', ' ', 'x'.repeat(65));
const taxIds = fc.constantFrom('DE143454214', 'FR40303265045', 'EL094259216', 'GB980780684', 'DE123456789', 'GB123456789', 'DE12', '', 'ATU1234567');

const plausibleTax = fc
  .record(
    {
      productId: fc.oneof(fc.constantFrom('product', 'key').map((name) => ids[name]!), kit.knownId, fc.uuid()),
      offerId: fc.oneof(fc.constant(null).map(() => ids.offer!), fc.uuid()),
      amount: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 2_147_483_647 }) }, { weight: 1, arbitrary: anyInt }),
      currency: fc.constantFrom('EUR', 'USD', 'CAD', 'JPY', 'BHD', 'eur', 'XXX'),
      country: countries,
      state: states,
      postalCode: postalCodes,
      taxId: taxIds,
      priceIncludesTax: fc.boolean(),
    },
    { requiredKeys: ['country'] },
  )
  .map((body) => JSON.stringify(body));

const taxOperation = () => documentedOperation(document, 'POST', '/v0/tax/calculate')!;
const portalOperation = () => documentedOperation(document, 'GET', '/v0/portal/url')!;

const taxRequest = fc
  .record({
    body: fc.oneof({ weight: 5, arbitrary: plausibleTax }, { weight: 3, arbitrary: kit.bodyFor(taxOperation()) }, { weight: 1, arbitrary: json.map((value) => JSON.stringify(value)) }),
    keys,
    contentType: kit.contentType,
  })
  .map(({ body, keys: headers, contentType }): Sent => ({ method: 'POST', path: '/v0/tax/calculate', query: '', keys: headers, body, contentType }));

const portalTypes = fc.constantFrom('subscriptions-list', 'subscriptions-manage', 'subscriptions-update-payment-method', 'subscriptions-cancel', 'subscriptions-other', 'orders-list', 'orders-view', 'orders-downloads', 'nope', '');
const plausiblePortal = fc
  .record(
    {
      type: fc.oneof({ weight: 4, arbitrary: portalTypes }, { weight: 1, arbitrary: anyString }),
      orderNumber: fc.oneof({ weight: 3, arbitrary: fc.nat().map((i) => numbers[i % numbers.length]!) }, { weight: 1, arbitrary: fc.uuid() }, { weight: 1, arbitrary: anyString }),
      offerId: fc.oneof(fc.uuid(), anyString),
      cartOfferId: fc.oneof(fc.uuid(), anyString),
    },
    { requiredKeys: [] },
  )
  .map((query) => new URLSearchParams(Object.entries(query)).toString());

const portalRequest = fc
  .record({ query: fc.oneof({ weight: 4, arbitrary: plausiblePortal }, { weight: 2, arbitrary: kit.queryFor(portalOperation()) }), keys })
  .map(({ query, keys: headers }): Sent => ({ method: 'GET', path: '/v0/portal/url', query, keys: headers }));

// Each outcome of a route sent once before the random runs (fast-check's examples), so the runs
// reach every outcome whatever the seed draws.
const taxSent = (body: unknown, headers: Record<string, string>): Sent => ({ method: 'POST', path: '/v0/tax/calculate', query: '', keys: headers, body: JSON.stringify(body) });
const taxExamples = (): [Sent][] => {
  const sold = { productId: ids.product, amount: 1999, currency: 'EUR' };
  return [
    [taxSent({ ...sold, country: 'DE' }, keyHeaders(ws))],
    [taxSent({ ...sold, amount: 'many', country: 'DE' }, keyHeaders(ws))],
    [taxSent({ ...sold, country: 'DE' }, {})],
    [taxSent({ ...sold, productId: '00000000-0000-4000-8000-000000000000', country: 'DE' }, keyHeaders(ws))],
    [taxSent({ ...sold, currency: 'USD', country: 'US' }, keyHeaders(ws))],
  ];
};
const portalSent = (query: Record<string, string>, headers: Record<string, string>): Sent => ({ method: 'GET', path: '/v0/portal/url', query: new URLSearchParams(query).toString(), keys: headers });
const portalExamples = (): [Sent][] => [
  [portalSent({ type: 'subscriptions-list' }, keyHeaders(ws, { write: false }))],
  [portalSent({ type: 'nope' }, keyHeaders(ws, { write: false }))],
  [portalSent({ type: 'subscriptions-list' }, keyHeaders(ws, { mode: 'test', write: false }))],
  [portalSent({ type: 'orders-view', orderNumber: '00000000-0000-4000-8000-000000000000' }, keyHeaders(ws, { write: false }))],
];

test(
  'POST /v0/tax/calculate: never a 5xx, always documented; a 200 adds up; nothing is written',
  async () => {
    const seen: Record<number, number> = {};
    const before = await tally([ws.workspaceId, custom.workspaceId]);
    await fc.assert(
      fc.asyncProperty(taxRequest, async (request) => {
        const response = await send(baseUrl(), request);
        const body = checkAnswer(document, request, response, taxOperation());
        seen[response.status] = (seen[response.status] ?? 0) + 1;
        if (![200, 400, 401, 404, 413, 415, 422].includes(response.status)) throw new Error(`unexpected ${response.status}: ${response.text.slice(0, 300)}`);
        if (response.status !== 200) return;
        const { tax } = body.data as { tax: { amount: number; netAmount: number; taxAmount: number; totalAmount: number; priceIncludesTax: boolean; components: { amount: number }[] } };
        const sum = tax.components.reduce((total, component) => total + component.amount, 0);
        const adds = tax.netAmount + tax.taxAmount === tax.totalAmount && sum === tax.taxAmount && (tax.priceIncludesTax ? tax.totalAmount : tax.netAmount) === tax.amount;
        if (!adds) throw new Error(`does not add up: ${request.body} -> ${response.text}`);
      }),
      { numRuns: RUNS, examples: taxExamples() },
    );
    expect(await tally([ws.workspaceId, custom.workspaceId])).toEqual(before);
    // The run reached the route's outcomes, not only its refusals.
    for (const status of [200, 400, 401, 404, 422]) expect([status, seen[status] ?? 0]).not.toEqual([status, 0]);
  },
  SLOW,
);

test(
  'GET /v0/portal/url: never a 5xx, always documented; a 200 is a link into the workspace or its custom URL; nothing is written',
  async () => {
    const seen: Record<number, number> = {};
    const before = await tally([ws.workspaceId, custom.workspaceId]);
    await fc.assert(
      fc.asyncProperty(portalRequest, async (request) => {
        const response = await send(baseUrl(), request);
        const body = checkAnswer(document, request, response, portalOperation());
        seen[response.status] = (seen[response.status] ?? 0) + 1;
        if (![200, 400, 401, 404].includes(response.status)) throw new Error(`unexpected ${response.status}: ${response.text.slice(0, 300)}`);
        if (response.status !== 200) return;
        const { url } = body.data as { url: string };
        const isCustom = request.keys['x-svc-public-key'] === custom.testPublicKey;
        const expected = isCustom ? url === CUSTOM_URL : new URL(url).pathname.startsWith(`/portal/${ws.workspaceId}/`);
        if (!expected) throw new Error(`unexpected link ${url} for ${request.query}`);
      }),
      { numRuns: RUNS, examples: portalExamples() },
    );
    expect(await tally([ws.workspaceId, custom.workspaceId])).toEqual(before);
    for (const status of [200, 400, 401, 404]) expect([status, seen[status] ?? 0]).not.toEqual([status, 0]);
  },
  SLOW,
);
