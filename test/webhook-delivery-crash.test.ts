import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { Workspace } from './support/api.js';
import type { webhookDelivery } from '../workflows/webhook-delivery.js';
import { Deployment, Receiver, SLOW, connectTemporal, ok, until } from './support/webhook-delivery-suite.js';

// A deployment without an in-process worker, whose workers the test starts and kills; its
// allow-list is the receiver's whole host (a bare host is every port).
let temporal: Client;
const receiver = new Receiver();
const crashDeployment = new Deployment();
let crashWs: Workspace;

beforeAll(async () => {
  temporal = await connectTemporal();
  await receiver.listen();
  await crashDeployment.start({ WORKER_IN_PROCESS: 'false' });
  crashWs = await crashDeployment.workspace('Webhook crash');
}, SLOW);

afterAll(async () => {
  await crashDeployment.stop();
  await receiver.close();
  await temporal.connection.close();
});

describe('webhook delivery across worker crashes', () => {
  // Long enough to kill the worker while a retry waits.
  const RETRY_MS = '3000';

  test('events recorded while no worker runs are dispatched at its start; a worker killed between tries loses and duplicates nothing', async () => {
    const deployment = crashDeployment;
    const ws = crashWs;
    const api = deployment.api(ws);
    const url = receiver.on('/crash', (n) => (n === 0 ? { status: 500 } : { status: 200, body: { ok: true } }));
    const webhook = (await ok(api.POST('/v0/webhooks/create', { body: { url, events: ['product_created'] } as any }))).webhook;
    const product = (await ok(api.POST('/v0/products/create', { body: { name: 'Crash', projectId: ws.projectId, type: 'DigitalDownload' } as any }))).product;
    const [event] = await deployment.query(`SELECT * FROM "Event" WHERE payload->'product'->>'id' = $1`, [product.id]);
    // No worker, no dispatcher: the event waits in the outbox.
    await sleep(1000);
    expect((await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt).toBeNull();

    const first = await deployment.startWorker({ WEBHOOK_RETRY_INTERVAL_MS: RETRY_MS });
    const handle = temporal.workflow.getHandle<typeof webhookDelivery>(`webhook-delivery-${event.id}-${webhook.id}`);
    // Killed once the first try is recorded and the workflow sleeps before the retry.
    await until('the dispatch at worker start', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt);
    await until('the retry timer', async () => (await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes));
    expect(await deployment.attempts(webhook.id)).toHaveLength(1);
    first.child.kill('SIGKILL');
    await deployment.startWorker({ WEBHOOK_RETRY_INTERVAL_MS: RETRY_MS });

    expect(await handle.result()).toBe('delivered');
    const requests = receiver.received('/crash');
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    const attempts = await deployment.attempts(webhook.id);
    expect(attempts.map((a) => [a.sequence, a.statusCode])).toEqual([
      [0, 500],
      [1, 200],
    ]);

    // A re-dispatch (as after a crash before dispatchedAt was written) starts nothing new: the
    // dispatcher's start returns before it marks the event, so the same run is proof.
    const { runId } = await handle.describe();
    await deployment.query(`UPDATE "Event" SET "dispatchedAt" = NULL WHERE id = $1`, [event.id]);
    await until('the re-dispatch', async () => (await deployment.query(`SELECT "dispatchedAt" FROM "Event" WHERE id = $1`, [event.id]))[0].dispatchedAt);
    expect(await handle.describe()).toMatchObject({ runId, status: { name: 'COMPLETED' } });
    expect(receiver.received('/crash')).toHaveLength(2);
    expect(await deployment.attempts(webhook.id)).toHaveLength(2);
  }, SLOW);
});
