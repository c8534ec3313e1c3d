import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNotifications, LISTENER_NAME, type Notifications, type Subscription } from '../src/db/notifications.js';
import { salesDb } from './support/sales.js';

// LISTEN/NOTIFY between processes (src/db/notifications.ts) on the suite's PostgreSQL: what a
// waiting request relies on (a refund's answer as its bookkeeping commits), and what it does when
// the connection is lost or never made.

const CHANNEL = 'test_notice';
let notifications: Notifications;

beforeAll(() => {
  // Straight to PostgreSQL, as the service listens: through a pooler in transaction mode
  // (TEST_PGBOUNCER) DATABASE_URL would lose every notice.
  notifications = createNotifications(process.env.DATABASE_DIRECT_URL ?? process.env.DATABASE_URL!);
});
afterAll(async () => {
  await notifications.close();
});

const notify = (payload: string, channel = CHANNEL) => salesDb().$executeRaw`SELECT pg_notify(${channel}, ${payload})`;

/** Whether the subscription hears a notice within `ms` (a later one stays for the next call). */
const hears = (subscription: Subscription, ms = 5000) => subscription.next(AbortSignal.timeout(ms)).then(() => true, () => false);

test('a committed NOTIFY of the payload wakes its subscription; another payload or channel does not', async () => {
  const payload = randomUUID();
  const subscription = await notifications.subscribe(CHANNEL, payload);
  await notify(randomUUID());
  await notify(payload, 'test_other');
  expect(await hears(subscription, 500)).toBe(false);
  await notify(payload);
  expect(await hears(subscription)).toBe(true);
  subscription.close();
});

test('a NOTIFY in a rolled-back transaction is never heard; one that commits is heard once it commits', async () => {
  const payload = randomUUID();
  const subscription = await notifications.subscribe(CHANNEL, payload);
  await expect(
    salesDb().$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${payload})`;
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  expect(await hears(subscription, 500)).toBe(false);
  let committed = false;
  const heard = subscription.next().then(() => committed);
  await salesDb().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_notify(${CHANNEL}, ${payload})`;
    await sleep(300);
    committed = true;
  });
  expect(await heard).toBe(true);
  subscription.close();
});

test('notices that came before next() are counted, one per call; next() waits once at a time; close() rejects a waiting next()', async () => {
  const payload = randomUUID();
  const subscription = await notifications.subscribe(CHANNEL, payload);
  await notify(payload);
  await notify(payload);
  await sleep(500);
  expect(await hears(subscription)).toBe(true);
  expect(await hears(subscription)).toBe(true);
  expect(await hears(subscription, 500)).toBe(false);
  const waiting = subscription.next();
  await expect(subscription.next()).rejects.toThrow('already waiting');
  subscription.close();
  await expect(waiting).rejects.toThrow('closed');
  await expect(subscription.next()).rejects.toThrow('closed');
});

test('the connection lost: the next subscription connects again and hears', async () => {
  // Only this file's listener (its last statement was its one LISTEN): the suite's server listens too.
  const before = await notifications.subscribe(CHANNEL, randomUUID());
  const ended = await salesDb().$queryRaw<{ ended: boolean }[]>`
    SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
    WHERE application_name = ${LISTENER_NAME} AND query = ${`LISTEN "${CHANNEL}"`}`;
  expect(ended.some((row) => row.ended)).toBe(true);
  before.close();
  const payload = randomUUID();
  // The loss is noticed asynchronously: subscribe until the new connection hears.
  const deadline = Date.now() + 10_000;
  let heard = false;
  while (!heard && Date.now() < deadline) {
    const subscription = await notifications.subscribe(CHANNEL, payload);
    await notify(payload);
    heard = await hears(subscription, 500);
    subscription.close();
  }
  expect(heard).toBe(true);
});

test('no database: subscribe resolves all the same and hears nothing (the waiter learns the outcome another way)', async () => {
  const unreachable = createNotifications('postgresql://nobody@127.0.0.1:1/none');
  const subscription = await unreachable.subscribe(CHANNEL, 'x');
  expect(await hears(subscription, 200)).toBe(false);
  await expect(unreachable.subscribe('Not A Channel', 'x')).rejects.toThrow('not a channel name');
  await unreachable.close();
});
