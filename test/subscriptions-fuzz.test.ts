import fc from 'fast-check';

import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { operationAt, readDocument } from './support/openapi.js';
import { salesDb } from './support/sales.js';
import { subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

// The lifecycle routes under hostile input (fast-check): ids (#-prefixed, malformed, other
// strings), arbitrary JSON bodies, wrong types, times around the limits. Never a 5xx; every answer
// in the envelope and as the published document describes it; a rejected request changes nothing
// (the subscription, its payments, the events). SUBSCRIPTION_FUZZ_RUNS scales the runs.

const RUNS = Number(process.env.SUBSCRIPTION_FUZZ_RUNS ?? 60);
const SLOW = 300_000;

const document = await readDocument();
const knownIds: string[] = [];
const kit = fuzzKit(document, knownIds);

let ws: Workspace;
let number: string;
let subscriptionId: string;
let userId: string;
let offerId: string;

beforeAll(async () => {
  ws = await newWorkspace('Subscriptions fuzz', ['testMode=true']);
  const { order, subscription } = await subscribe(ws, await subscriptionElement(ws, 900));
  number = order.number;
  subscriptionId = subscription.id;
  userId = subscription.userId!;
  offerId = (await salesDb().orderItem.findFirstOrThrow({ where: { orderId: order.id } })).offerId;
}, SLOW);

async function tally() {
  const db = salesDb();
  const [subscription, payments, events] = await Promise.all([
    db.subscription.findUniqueOrThrow({
      where: { id: subscriptionId },
      select: { status: true, cancelAtPeriodEnd: true, pausedAt: true, clockOffsetMs: true, paymentMethodRef: true, items: true, credit: true, amount: true },
    }),
    db.payment.count({ where: { subscriptionId } }),
    db.event.count({ where: { workspaceId: ws.workspaceId } }),
  ]);
  return { ...subscription, payments, events, subscriptions: await db.subscription.count({ where: { workspaceId: ws.workspaceId } }) };
}

/** Lone surrogates replaced (encodeURIComponent refuses them; they are not what a client can send). */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** Items of create, update and charge bodies: prices and quantities around the limits, offers known, unknown or not UUIDs. */
const items = () =>
  fc.oneof(
    fc.array(
      fc.record(
        { offerId: fc.oneof(fc.constant(() => offerId), fc.uuid().map((id) => () => id), kit.anyString.map((id) => () => id)), unitPrice: kit.anyInt, value: kit.anyInt, price: kit.anyInt, quantity: kit.anyInt },
        { requiredKeys: [] },
      ).map(({ offerId: offerOf, ...item }) => ({ ...item, ...(offerOf ? { offerId: offerOf() } : {}) })),
      { maxLength: 3 },
    ),
    kit.json,
  );

const ROUTES = [
  ['PATCH', 'cancel'],
  ['PATCH', 'undo-cancel'],
  ['PATCH', 'pause'],
  ['PATCH', 'resume'],
  ['POST', 'end-trial'],
  ['POST', 'charge'],
  ['PATCH', 'update'],
  ['GET', 'upcoming-payment'],
  ['POST', 'advance'],
  ['POST', 'payment-method'],
] as const;

test(
  'hostile ids and bodies on every lifecycle route: never a 5xx, the documented envelope, nothing changed on rejection',
  async () => {
    const id = fc.oneof(
      { weight: 4, arbitrary: fc.constant(() => number) },
      { weight: 1, arbitrary: fc.constant(() => `#${number}`) },
      { weight: 1, arbitrary: kit.anyString.map((s) => () => s) },
    );
    const plausible = fc
      .record(
        {
          cancelAtIntervalEnd: fc.oneof(fc.boolean(), kit.json),
          cancelOption: fc.oneof(fc.constant('endInterval'), kit.anyString),
          to: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), kit.anyInt, fc.constant(Math.floor(Date.now() / 1000) + 86_400 * 40), kit.anyString),
          items: items(),
          testCard: fc.oneof(fc.constantFrom('4242424242424242', '4000000000000341', '4111111111111111'), kit.anyString),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), id, fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: kit.json.map((v) => JSON.stringify(v)) }), async ([method, action], idOf, body) => {
        const before = await tally();
        const path = `/v0/${action === 'advance' || action === 'payment-method' ? 'test-helpers/' : ''}subscriptions/${encodeURIComponent(wellFormed(idOf()))}/${action}`;
        const operation = operationAt(document, method, `/v0/${action === 'advance' || action === 'payment-method' ? 'test-helpers/' : ''}subscriptions/${number}/${action}`);
        const request: Sent = { method, path, query: '', keys: keyHeaders(ws, { ...TEST, write: method !== 'GET' }), body: method === 'GET' ? undefined : body };
        const response = await send(baseUrl(), request);
        checkAnswer(document, request, response, operation);
        expect(response.status).toBeLessThan(500);
        // A refused request wrote nothing.
        expect(response.status === 200 ? before : await tally()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  },
  SLOW,
);

test(
  'hostile bodies on POST /v0/subscriptions/create: never a 5xx, the documented envelope, nothing created on rejection',
  async () => {
    const body = fc
      .record({ userId: fc.oneof(fc.constant(() => userId), fc.uuid().map((id) => () => id), kit.anyString.map((id) => () => id)), items: items() }, { requiredKeys: [] })
      .map(({ userId: userOf, ...rest }) => JSON.stringify({ ...rest, ...(userOf ? { userId: userOf() } : {}) }));
    const operation = operationAt(document, 'POST', '/v0/subscriptions/create');
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 3, arbitrary: body }, { weight: 1, arbitrary: kit.json.map((v) => JSON.stringify(v)) }), async (sent) => {
        const before = await tally();
        const request: Sent = { method: 'POST', path: '/v0/subscriptions/create', query: '', keys: keyHeaders(ws, { ...TEST, write: true }), body: sent };
        const response = await send(baseUrl(), request);
        checkAnswer(document, request, response, operation);
        expect(response.status).toBeLessThan(500);
        // A refused request wrote nothing.
        expect(response.status === 200 ? before : await tally()).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  },
  SLOW,
);
