import { randomUUID } from 'node:crypto';

import { newWorkspace, type Workspace } from './support/api.js';
import { eventually, orderBody, placeOrder } from './support/checkout.js';
import { restClient } from './support/client.js';
import { ownTaskQueueEnv, startServerProcess, startWorkerProcess, type ServerProcess, type StartedProcess } from './support/processes.js';
import { salesDb } from './support/sales.js';
import { subscriptionElement, subscriptionEvents, TEST } from './support/subscriptions.js';

// A subscription's request runs again when its workflow task does (local activities are recorded
// only with their task): a worker lost after the request committed, or a task over its timeout on
// a busy machine (CI's installed pass refused 14 of 50 cancels with "A subscription in status
// cancelled cannot change", their own first run's doing). Here a worker with the test-only fault
// point subscription-command-applied dies right after a request's transaction commits; the worker
// started after it runs the task again. The request is answered as its first run applied it
// (200), once: one change, one event, one record of it.

const SLOW = 300_000;

let api: ServerProcess;
let env: Record<string, string>;
let ws: Workspace;
let elementId: string;
const workers: StartedProcess[] = [];

beforeAll(async () => {
  env = { DATABASE_URL: process.env.DATABASE_URL!, ...ownTaskQueueEnv('subscription-command-once'), SANDBOX_WEBHOOK_DELIVERY: 'false' };
  [api, ws] = await Promise.all([startServerProcess({ ...env, WORKER_IN_PROCESS: 'false' }), newWorkspace('Subscription requests once', ['testMode=true'])]);
  elementId = await subscriptionElement(ws, 800);
}, SLOW);

// Each test's workers end with it: one left polling the queue would take the next test's request from its dying worker.
afterEach(async () => {
  await Promise.all(workers.splice(0).map((started) => started.stop('SIGKILL')));
});

afterAll(async () => {
  await api?.stop('SIGKILL');
});

async function worker(extra: Record<string, string> = {}): Promise<StartedProcess> {
  const started = await startWorkerProcess({ ...env, ...extra });
  workers.push(started);
  return started;
}

/** A subscription bought through the API under test, its workflow started (it is what the request is sent to). */
async function bought() {
  return (await placeOrder(elementId, orderBody(), randomUUID(), api.url)).order.number;
}

const path = (number: string) => ({ params: { path: { subscriptionIdOrNumber: number } } });

test.each([
  { request: 'cancel', send: (number: string) => restClient(ws, TEST, api.url).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/cancel', { ...path(number), body: {} }), status: 'cancelled', event: 'subscription_cancelled' },
  { request: 'pause', send: (number: string) => restClient(ws, TEST, api.url).PATCH('/v0/subscriptions/{subscriptionIdOrNumber}/pause', { ...path(number), body: {} }), status: 'paused', event: 'subscription_updated' },
])(
  'a $request whose workflow task runs again after it committed (the worker lost) is answered 200 and applied once',
  async ({ send, status, event }) => {
    const healthy = await worker();
    const number = await bought();
    const subscription = await eventually(
      () => salesDb().subscription.findFirstOrThrow({ where: { workspaceId: ws.workspaceId, number } }),
      (s) => s.status === 'active',
      60_000,
    );
    const eventsBefore = (await subscriptionEvents(ws, number)).length;
    await healthy.stop('SIGKILL');

    const dying = await worker({ FAULT_INJECTION: 'subscription-command-applied' });
    const exited = new Promise((resolve) => dying.child.once('exit', resolve));
    const answer = send(number);
    await exited;
    await worker();
    const { response, data, error } = await answer;

    expect({ status: response.status, error }).toEqual({ status: 200, error: undefined });
    expect(data!.data.subscription).toMatchObject({ id: number, status });
    const row = await salesDb().subscription.findUniqueOrThrow({ where: { id: subscription.id }, include: { commands: true } });
    expect(row.status).toBe(status);
    expect(row.commands.map((c) => ({ type: c.type, refusal: c.refusal }))).toEqual([{ type: expect.any(String), refusal: null }]);
    expect((await subscriptionEvents(ws, number)).slice(eventsBefore).map((e) => e.type)).toEqual([event]);
  },
  SLOW,
);
