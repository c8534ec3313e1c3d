// `npm run bench:subscriptions`: BENCH_SUBSCRIPTIONS (default 1,000) test-mode monthly
// subscriptions, bought through the hosted checkout (not measured), are each advanced through
// BENCH_PERIODS (default 12) periods by one test-clock call (POST
// /v0/test-helpers/subscriptions/{id}/advance: every renewal charged at the sandbox and booked,
// the periods one advance catches up in one run of the workflow), BENCH_SUBSCRIPTION_CONCURRENCY
// (default 8) at a time.
// Printed: renewals per second, the largest workflow history of one run (a sample's runs), side by
// side with the same dev server and worker's empty-workflow rate at the same concurrency (the
// floor, workflows/bench-noop.ts). Production's shape: an API process and a worker process.
// Target: renewals/s at least 50% of the floor's workflows/s.
import { randomUUID } from 'node:crypto';
import os from 'node:os';

import { runCli } from '../test/support/processes.js';
import { CARD, inParallel, post, startApiAndWorker, withBenchEnvironment } from './support.js';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const PERIODS = Number(process.env.BENCH_PERIODS ?? 12);
const CONCURRENCY = Number(process.env.BENCH_SUBSCRIPTION_CONCURRENCY ?? 8);
const TARGET_RATIO = 0.5;
const DAY = 24 * 60 * 60;

interface TestWorkspace {
  workspaceId: string;
  projectId: string;
  testPublicKey: string;
  testSecretKey: string;
}

await withBenchEnvironment(async (environment) => {
  const { env } = environment;
  const { server, taskQueue, client, memory } = await startApiAndWorker(environment);

  const ws = await runCli<TestWorkspace>(['workspace', 'create', '--name', 'Bench subscriptions'], env);
  await runCli(['workspace', 'set', ws.workspaceId, 'testMode=true'], env);
  const headers = { 'x-svc-public-key': ws.testPublicKey, 'x-svc-secret-key': ws.testSecretKey };
  const { product } = await post<{ product: { id: string } }>(`${server.url}/v0/products/create`, headers, { name: 'Bench plan', projectId: ws.projectId, type: 'DigitalDownload', status: 'ACTIVE' });
  const { offer } = await post<{ offer: { id: string } }>(`${server.url}/v0/offers/create`, headers, { productId: product.id, price: 999, currency: 'USD', recurringInterval: 'month' });
  const { checkoutElement } = await post<{ checkoutElement: { id: string } }>(`${server.url}/v0/elements/checkout/create`, headers, { offersIds: [offer.id] });
  const numbers: string[] = [];
  await inParallel(SUBSCRIPTIONS, 4, async (i) => {
    const { order } = await post<{ order: { number: string; status: string } }>(`${server.url}/checkout/${checkoutElement.id}/orders`, {}, {
      email: `subscriber${i}@example.com`,
      billingDetails: { countryCode: 'US', postalCode: '94107', state: 'CA' },
      card: CARD,
    });
    if (order.status !== 'PAID') throw new Error(`order ${order.number} is ${order.status}`);
    numbers.push(order.number);
  });

  // Through PERIODS periods: the first period ends a month after purchase, each later one a month on.
  const to = Math.floor(Date.now() / 1000) + PERIODS * 31 * DAY - 15 * DAY;
  const advance = async (number: string) => {
    for (let tries = 0; ; tries += 1) {
      const response = await fetch(`${server.url}/v0/test-helpers/subscriptions/${number}/advance`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ to }),
      });
      const text = await response.text();
      if (response.status === 200) return;
      // A 503 answered while it was still catching up: asked again, "not after its clock" means it is done.
      if (response.status === 400 && tries > 0 && text.includes("after the subscription's clock")) return;
      // Its workflow may still be starting (the first payment's hook), or still catching up (503): ask again shortly.
      if ((response.status !== 400 && response.status !== 503) || tries >= 50) throw new Error(`advance ${number}: ${response.status} ${text.slice(0, 300)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const emptyWorkflow = async () => {
    await client.workflow.execute('benchNoop', { taskQueue, workflowId: `bench-noop-${randomUUID()}`, args: [] });
  };

  await emptyWorkflow();
  const floorStarted = performance.now();
  const floorCount = Math.min(SUBSCRIPTIONS, 500);
  await inParallel(floorCount, CONCURRENCY, () => emptyWorkflow());
  const floorRate = floorCount / ((performance.now() - floorStarted) / 1000);

  const started = performance.now();
  await inParallel(numbers.length, CONCURRENCY, (i) => advance(numbers[i]!));
  const seconds = (performance.now() - started) / 1000;

  // Every renewal happened (PERIODS - 1 renewals each: the first period was the checkout's).
  const renewalsEach = PERIODS - 1;
  const renewals = numbers.length * renewalsEach;
  const rate = renewals / seconds;

  // The largest history of one run, over every run of a sample of subscriptions.
  let largest = 0;
  let runs = 0;
  for (const number of numbers.slice(0, 20)) {
    for await (const execution of client.workflow.list({ query: `WorkflowId = 'subscription/${ws.workspaceId}/${number}'` })) {
      runs += 1;
      largest = Math.max(largest, execution.historyLength);
    }
  }

  console.log(`Subscriptions through ${PERIODS} monthly periods by test clock, one Temporal dev server, an API process and a worker process; ${os.cpus().length} CPUs`);
  console.log(`subscriptions ${numbers.length}, renewals ${renewals} in ${seconds.toFixed(1)} s at concurrency ${CONCURRENCY}: ${rate.toFixed(1)} renewals/s`);
  console.log(`empty workflows at concurrency ${CONCURRENCY}: ${floorRate.toFixed(1)} /s (floor)`);
  console.log(`largest history of one run: ${largest} events (${runs} runs of 20 subscriptions)`);
  const ratio = rate / floorRate;
  console.log(`\nrenewals/s / floor: ${(ratio * 100).toFixed(0)}% (target >= ${TARGET_RATIO * 100}%) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}; load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log(memory.stop().line);
  if (ratio < TARGET_RATIO) process.exitCode = 1;
});
