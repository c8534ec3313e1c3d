import fc from 'fast-check';

import { baseUrl, keyHeaders, newWorkspace, type Workspace } from './support/api.js';
import { checkAnswer, fuzzKit, send, type Sent } from './support/fuzz.js';
import { operationAt, readDocument } from './support/openapi.js';
import { restClient } from './support/client.js';
import { ok } from './support/responses.js';
import { salesDb } from './support/sales.js';
import { subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

// The payment-method session routes and page, and the sandbox's tokenizer, under hostile input (fast-check): subscription ids
// and tokens (malformed, another subscription's, made up), arbitrary JSON bodies and cards. Never
// a 5xx; every route answer in the envelope the published document describes; a rejected request
// changes nothing (the sessions, the saved method). PAYMENT_METHOD_SESSION_FUZZ_RUNS scales the runs.

const RUNS = Number(process.env.PAYMENT_METHOD_SESSION_FUZZ_RUNS ?? 60);
const SLOW = 300_000;

const document = await readDocument();
const kit = fuzzKit(document, []);

let ws: Workspace;
let number: string;
let subscriptionId: string;
let otherId: string;
let token: string;

beforeAll(async () => {
  ws = await newWorkspace('Payment-method sessions fuzz', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
  const element = await subscriptionElement(ws, 900);
  const [mine, other] = [await subscribe(ws, element), await subscribe(ws, element)];
  ({ number, id: subscriptionId } = mine.subscription);
  otherId = other.subscription.id;
  ({ sessionToken: token } = await ok(
    restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: number } }, body: {} }),
  ));
}, SLOW);

async function tally() {
  const db = salesDb();
  const [subscription, sessions] = await Promise.all([
    db.subscription.findUniqueOrThrow({ where: { id: subscriptionId }, select: { status: true, paymentMethodRef: true } }),
    db.paymentMethodSession.findMany({ where: { subscriptionId: { in: [subscriptionId, otherId] } }, select: { id: true, usedAt: true }, orderBy: { id: 'asc' } }),
  ]);
  return { ...subscription, sessions };
}

/** A hosted page of a made-up or real session: a page (or the JSON 404 of a path it does not match), never an error, nothing written. */
async function checkPage(url: string, before: Awaited<ReturnType<typeof tally>>) {
  const response = await fetch(url);
  expect([200, 404, 410]).toContain(response.status);
  // A path the page does not match (an empty token) is the service's JSON 404; every page has the policy.
  const html = response.headers.get('content-type')?.startsWith('text/html') ?? false;
  expect(html ? response.headers.get('content-security-policy') : "default-src 'none'").toContain("default-src 'none'");
  await response.text();
  expect(await tally()).toEqual(before);
}

const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

test(
  'hostile ids, tokens and bodies on minting, completing and the page: never a 5xx, the documented envelope, nothing changed on rejection',
  async () => {
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constant(() => subscriptionId) },
      { weight: 1, arbitrary: fc.constant(() => otherId) },
      { weight: 1, arbitrary: fc.constant(() => number) },
      { weight: 1, arbitrary: kit.anyString.map((s) => () => s) },
    );
    const sessionToken = fc.oneof(
      { weight: 2, arbitrary: fc.constant(() => token) },
      { weight: 1, arbitrary: fc.constant(() => `pms_${'A'.repeat(43)}`) },
      { weight: 1, arbitrary: kit.anyString.map((s) => () => s) },
    );
    const cardBody = fc
      .record(
        {
          card: fc.oneof(
            fc.record(
              {
                number: fc.oneof(fc.constantFrom('4242424242424242', '4000000000000002', '4111111111111111'), kit.anyString),
                expMonth: fc.oneof(fc.integer({ min: 1, max: 12 }), kit.anyInt),
                expYear: fc.oneof(fc.constant(new Date().getUTCFullYear() + 2), kit.anyInt),
                cvc: fc.oneof(fc.constant('123'), kit.anyString),
              },
              { requiredKeys: [] },
            ),
            kit.json,
          ),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body));
    const body = fc.oneof({ weight: 3, arbitrary: cardBody }, { weight: 1, arbitrary: kit.json.map((v) => JSON.stringify(v)) });
    const target = fc.constantFrom('mint', 'complete', 'page', 'tokenize');
    await fc.assert(
      fc.asyncProperty(target, id, sessionToken, body, async (which, idOf, tokenOf, sent) => {
        const before = await tally();
        const subject = encodeURIComponent(wellFormed(idOf()));
        const secret = encodeURIComponent(wellFormed(tokenOf()));
        if (which === 'page') return checkPage(`${baseUrl()}/payment-method/${subject}/${secret}`, before);
        const [sentPath, documentedPath] = {
          mint: [`/v0/subscriptions/${subject}/paymentMethodSession`, `/v0/subscriptions/${number}/paymentMethodSession`],
          complete: [`/payment-method/${subject}/${secret}/complete`, `/payment-method/${subscriptionId}/${token}/complete`],
          tokenize: ['/sandbox/payment-methods', '/sandbox/payment-methods'],
        }[which] as [string, string];
        const request: Sent = { method: 'POST', path: sentPath, query: '', keys: which === 'mint' ? keyHeaders(ws, TEST) : {}, body: sent };
        const operation = operationAt(document, 'POST', documentedPath);
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
