import { randomUUID } from 'node:crypto';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';

// The edge rate limit per client IP, on servers of their own with a small budget.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function get(server: ServerProcess, path = '/v0/products/list') {
  const requestId = `rl-${randomUUID()}`;
  const response = await fetch(`${server.url}${path}`, { headers: { 'x-request-id': requestId } });
  return { status: response.status, requestId, headers: response.headers, body: await response.json() };
}

describe('in memory', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ ...httpOnlyEnv(), DATABASE_URL: process.env.DATABASE_URL!, RATE_LIMIT_POINTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_COOLDOWN_SECONDS: '2' });
  }, 120_000);
  afterAll(() => server?.stop());

  test('over the limit: 429 with Retry-After, the envelope and the request id; after the cooldown requests pass again', async () => {
    // Every request counts, whatever its outcome (these are 401s without keys).
    for (let i = 0; i < 5; i++) expect((await get(server)).status).toBe(401);
    const limited = await get(server);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    expect(limited.headers.get('x-request-id')).toBe(limited.requestId);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 2).toBe(true);
    // Every path under the limit is covered, unknown ones included; health checks are not.
    expect((await get(server, '/v0/nowhere')).status).toBe(429);
    expect((await get(server, '/healthz')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 300));
    expect((await get(server)).status).toBe(401);
  }, 60_000);
});

describe('shared through Redis', () => {
  let servers: ServerProcess[];
  beforeAll(async () => {
    // A prefix of its own per run: earlier runs and other processes on this Redis do not count.
    const env = {
      ...httpOnlyEnv(),
      DATABASE_URL: process.env.DATABASE_URL!,
      REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `test-${randomUUID()}`,
      RATE_LIMIT_POINTS: '6',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      RATE_LIMIT_COOLDOWN_SECONDS: '30',
    };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  }, 120_000);
  afterAll(() => Promise.all(servers?.map((s) => s.stop()) ?? []));

  test('two server processes share one budget per client', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const statuses: number[] = [];
    for (const server of [a, b, a, b, a, b]) statuses.push((await get(server)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    // Each process has seen only three requests: alone, neither would limit yet.
    const fromA = await get(a);
    const fromB = await get(b);
    expect([fromA.status, fromB.status]).toEqual([429, 429]);
    expect(fromB.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    expect(fromB.headers.get('x-request-id')).toBe(fromB.requestId);
    expect(Number(fromB.headers.get('retry-after'))).toBeGreaterThan(1);
  });
});
