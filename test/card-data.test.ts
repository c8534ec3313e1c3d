// Card numbers and CVCs never stay on our side: after paying through the checkout JSON API and
// completing payment-method sessions with every sandbox test card, neither the server's log (at
// debug level), the database nor the Temporal histories hold a card number or a CVC; the logger
// redacts card fields.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, Connection } from '@temporalio/client';
import { pino } from 'pino';

import { LOG_REDACT_PATHS } from '../src/logger.js';
import { TEST_CARDS } from '../src/payments/processors/test-cards.js';
import { newWorkspace, type Workspace } from './support/api.js';
import { orderBody } from './support/checkout.js';
import { httpOnlyEnv, loggedOutput, startServerProcess, type ServerProcess } from './support/processes.js';
import { restClient } from './support/client.js';
import { databaseText } from './support/database.js';
import { salesDb } from './support/sales.js';
import { ok } from './support/responses.js';
import { subscribe, subscriptionElement, TEST } from './support/subscriptions.js';

const SLOW = 240_000;
// A CVC no id, amount or timestamp contains by chance is not to be had in 3 or 4 digits: the
// "cvc" key is what is looked for, with the numbers.
const cvcOf = (number: string) => (number.startsWith('3') ? '9173' : '917');

let server: ServerProcess;
let ws: Workspace;

beforeAll(async () => {
  server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, LOG_LEVEL: 'debug' });
  ws = await newWorkspace('Card data', ['testMode=true', 'embeddedPaymentMethodUpdate=true']);
}, SLOW);
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const cardOf = (number: string) => ({ number, expMonth: 12, expYear: new Date().getUTCFullYear() + 4, cvc: cvcOf(number) });

test(
  'every sandbox test card, through the checkout and a payment-method session: no card number or CVC in the server log, the database or the workflow histories',
  async () => {
    const element = await subscriptionElement(ws, 900);
    const numbers = Object.keys(TEST_CARDS);
    // The 3-D Secure card's answers carry a client secret: answered to the buyer, kept nowhere.
    const clientSecrets: string[] = [];
    // Sessions are minted at most 10 an hour per subscription: one subscription per 10 cards.
    const subscriptions = await Promise.all(Array.from({ length: Math.ceil(numbers.length / 10) }, async () => (await subscribe(ws, element)).subscription));
    for (const [index, number] of numbers.entries()) {
      const subscription = subscriptions[Math.floor(index / 10)]!;
      const paid = await post(`/checkout/${element}/orders`, orderBody({ card: cardOf(number) }), { 'idempotency-key': randomUUID() });
      expect([200, 402]).toContain(paid.status);
      const nextAction = paid.status === 200 ? ((await paid.json()) as { data: { nextAction: { clientSecret: string } | null } }).data.nextAction : null;
      if (nextAction) clientSecrets.push(nextAction.clientSecret);
      const { sessionToken } = await ok(
        restClient(ws, TEST).POST('/v0/subscriptions/{subscriptionIdOrNumber}/paymentMethodSession', { params: { path: { subscriptionIdOrNumber: subscription.number } }, body: {} }),
      );
      const completed = await post(`/payment-method/${subscription.id}/${sessionToken}/complete`, { card: cardOf(number) });
      expect([200, 402]).toContain(completed.status);
    }
    const log = await loggedOutput(server);
    // The log is there: the requests' own lines at debug level.
    expect(log).toContain('/payment-method/');
    for (const number of numbers) {
      expect(log).not.toContain(number);
      expect(log).not.toContain(number.slice(0, 12));
    }
    expect(log).not.toMatch(/"cvc"\s*:\s*"\d/);
    const dump = await databaseText(process.env.DATABASE_URL!);
    for (const number of numbers) expect(dump).not.toContain(number);
    expect(dump).not.toMatch(/"cvc"\s*:/);
    expect(clientSecrets.length).toBeGreaterThan(0);
    for (const secret of clientSecrets) {
      expect(log).not.toContain(secret);
      expect(dump).not.toContain(secret);
    }

    // The workflows these payments and subscriptions ran: their inputs, signals, updates and activities.
    const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    try {
      const client = new Client({ connection });
      const payments = await salesDb().payment.findMany({ where: { workspaceId: ws.workspaceId }, select: { id: true } });
      const subscriptionRows = await salesDb().subscription.findMany({ where: { workspaceId: ws.workspaceId }, select: { number: true } });
      const ids = [...payments.map((p) => `payment-${p.id}`), ...subscriptionRows.map((r) => `subscription/${ws.workspaceId}/${r.number}`)];
      const histories = await Promise.all(ids.map((id) => client.workflow.getHandle(id).fetchHistory().then((h) => JSON.stringify(h), () => '')));
      // A payment workflow per checkout, a subscription workflow per paid one.
      expect(histories.filter(Boolean).length).toBeGreaterThan(numbers.length);
      const all = histories.join('\n');
      for (const number of numbers) expect(all).not.toContain(number);
      expect(all).not.toMatch(/"cvc"/);
      for (const secret of clientSecrets) expect(all).not.toContain(secret);
    } finally {
      await connection.close();
    }
  },
  SLOW,
);

test('the logger redacts card objects and CVCs wherever they are nested', () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  // Without pino's time, pid and hostname, whose digits could hold a CVC by chance: each line is
  // exactly what was logged, redacted.
  const log = pino({ redact: LOG_REDACT_PATHS, base: undefined, timestamp: false }, sink);
  log.info({ card: cardOf('4242424242424242') }, 'top');
  log.info({ args: { card: cardOf('4000000000000002') } }, 'args');
  log.info({ request: { variables: { card: cardOf('5555555555554444') } } }, 'variables');
  log.info({ body: { cvc: '9173' } }, 'cvc');
  expect(lines.map((line) => JSON.parse(line))).toEqual([
    { level: 30, card: '[Redacted]', msg: 'top' },
    { level: 30, args: { card: '[Redacted]' }, msg: 'args' },
    { level: 30, request: { variables: { card: '[Redacted]' } }, msg: 'variables' },
    { level: 30, body: { cvc: '[Redacted]' }, msg: 'cvc' },
  ]);
  const text = lines.join('');
  for (const number of ['4242424242424242', '4000000000000002', '5555555555554444']) expect(text).not.toContain(number);
  expect(text).not.toContain('9173');
});
