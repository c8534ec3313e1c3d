import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Redis } from 'ioredis';
import { keyHeaders, newWorkspace } from './support/api.js';
import { httpOnlyEnv, startServerProcess, type ServerProcess } from './support/processes.js';

// The edge rate limit per client IP, on servers of their own with a small budget; the one Redis
// connection a server holds for all its limiters (the edge limit and the domains' budgets).
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const safeReadlink = (link: string) => {
  try {
    return readlinkSync(link);
  } catch {
    return ''; // closed meanwhile
  }
};

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

describe('one Redis connection per server process', () => {
  let server: ServerProcess;
  let redis: Redis;
  const redisPort = Number(new URL(REDIS_URL).port || 6379);
  const clients = async () => ((await redis.client('LIST')) as string).split('\n').map((line) => line.split(' '));
  /** The connections Redis has that carry the process's name (commerce-api:<pid>). */
  const named = async (pid: number) => (await clients()).filter((fields) => fields.includes(`name=commerce-api:${pid}`));
  /** The local ports of the process's TCP connections to Redis, named or not (Linux /proc: its socket inodes in the TCP tables). */
  function redisPortsOf(pid: number): number[] {
    const inodes = new Set(readdirSync(`/proc/${pid}/fd`).flatMap((fd) => /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`))?.[1] ?? []));
    return ['tcp', 'tcp6']
      .flatMap((table) => readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1))
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields.length > 9 && parseInt(fields[2]!.split(':')[1]!, 16) === redisPort && fields[3] === '01' && inodes.has(fields[9]!))
      .map((fields) => parseInt(fields[1]!.split(':')[1]!, 16));
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    server = await startServerProcess({
      ...httpOnlyEnv(),
      DATABASE_URL: process.env.DATABASE_URL!,
      REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `conn-${randomUUID()}`,
      RATE_LIMIT_POINTS: '100000',
      DOWNLOAD_URLS_PER_MINUTE: '1',
      LICENSE_KEY_VALIDATIONS_PER_MINUTE: '2',
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    redis?.disconnect();
  });

  test('every limiter (edge, download URLs, license key validations) on one connection, 429s with Retry-After, none left after SIGTERM', async () => {
    const pid = server.child.pid!;
    expect((await named(pid)).length).toBe(1);
    const ws = await newWorkspace('Rate limits: one connection');
    const post = (path: string, headers: Record<string, string>, body: unknown) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const retryAfterOf = (response: Response) => Number(response.headers.get('retry-after'));

    // Download URLs: the budget is spent before the order is looked up (an unknown one is 404).
    const mint = () => post(`/v0/orders/${randomUUID()}/items/${randomUUID()}/download-url`, keyHeaders(ws), {});
    expect((await mint()).status).toBe(404);
    const mintLimited = await mint();
    expect(mintLimited.status).toBe(429);
    expect(await mintLimited.json()).toEqual({ status: 'error', error: { message: expect.stringMatching(/^At most 1 download URLs a minute per workspace; retry in \d+ s$/) } });
    expect(retryAfterOf(mintLimited)).toBeGreaterThanOrEqual(58);
    expect(retryAfterOf(mintLimited)).toBeLessThanOrEqual(60);

    // License key validations, then the same budget through GraphQL: the seconds in the error's extensions and the header.
    const question = { productId: randomUUID(), key: 'K' };
    expect((await post('/v0/license-keys/validate', keyHeaders(ws, { write: false }), question)).status).toBe(200);
    expect((await post('/v0/license-keys/validate', keyHeaders(ws, { write: false }), question)).status).toBe(200);
    const validateLimited = await post('/v0/license-keys/validate', keyHeaders(ws, { write: false }), question);
    expect(validateLimited.status).toBe(429);
    expect(retryAfterOf(validateLimited)).toBeGreaterThanOrEqual(58);
    expect(retryAfterOf(validateLimited)).toBeLessThanOrEqual(60);
    const graphql = await post('/graphql', keyHeaders(ws, { write: false }), {
      query: 'mutation ($productId: UUID!) { validateLicenseKey(productId: $productId, key: "K") { validation { status } } }',
      variables: { productId: question.productId },
    });
    const answer = await graphql.json();
    expect(answer.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/^At most 2 license key validations a minute/), extensions: { code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) } })]);
    const { retryAfterSeconds } = answer.errors[0].extensions;
    expect(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 1 && retryAfterSeconds <= 60).toBe(true);
    expect(retryAfterOf(graphql)).toBe(retryAfterSeconds);

    // Every limiter has counted by now: the process still holds one connection to Redis, the named one.
    const ports = redisPortsOf(pid);
    expect(ports).toHaveLength(1);
    const mine = await named(pid);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain(`addr=127.0.0.1:${ports[0]}`);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(await named(pid)).toEqual([]);
    expect((await clients()).filter((fields) => fields.includes(`addr=127.0.0.1:${ports[0]}`))).toEqual([]);
  }, 60_000);
});
