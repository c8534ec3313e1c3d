import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimited } from '../core/errors.js';
import type { RateLimitRule, RateLimits } from '../core/rate-limits.js';

/**
 * Where a process's limiters keep their counters: one Redis connection shared by all of them when
 * REDIS_URL is set (so several server processes share each budget), else memory. The server owns
 * it: opened at start, closed at shutdown.
 */
export interface RateLimitStore {
  redis?: Redis;
  /**
   * Waits (at most `timeoutMs`) for the Redis connection, so the first requests count in the
   * shared budgets rather than in the per-process fallback. Serving starts either way.
   */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The name the connection carries in Redis (CLIENT LIST), to tell a process's connection apart. */
export const redisClientName = (pid = process.pid) => `commerce-api:${pid}`;

/** The store for REDIS_URL (ioredis, about 20 MB of memory, imported only then), or memory without it. */
export async function connectRateLimitStore(redisUrl: string | undefined): Promise<RateLimitStore> {
  if (!redisUrl) return { ready: async () => undefined, close: async () => undefined };
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectionName: redisClientName() });
  return {
    redis,
    async ready(timeoutMs = 5000) {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      // QUIT lets Redis drop the client before we go; without a connection there is nothing to say goodbye to.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

export interface RateLimitOptions {
  points: number;
  durationSeconds: number;
  blockSeconds: number;
  keyPrefix: string;
}

export interface RateLimiter {
  /** Seconds to wait, or 0 when the request may pass. */
  consume(key: string): Promise<number>;
}

/** A limiter on the store (the edge limit per client IP takes config.rateLimit). */
export function createRateLimiter(store: RateLimitStore, options: RateLimitOptions): RateLimiter {
  const common = { keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSeconds, blockDuration: options.blockSeconds };
  const limiter: RateLimiterAbstract = store.redis
    ? // A Redis outage must not take the API down: fall back to a per-process limit meanwhile.
      new RateLimiterRedis({ ...common, storeClient: store.redis, insuranceLimiter: new RateLimiterMemory(common) })
    : new RateLimiterMemory(common);
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
        return 0;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw rejection;
      }
    },
  };
}

/** One limiter per domain rule, built once at start; each rule's counters are under `<keyPrefix>-<rule name>`. */
export function createRateLimits(store: RateLimitStore, rules: readonly RateLimitRule[], keyPrefix: string): RateLimits {
  const limiters = new Map<string, RateLimiter>();
  for (const rule of rules) {
    if (limiters.has(rule.name)) throw new Error(`Two rate limit rules are named ${rule.name}`);
    limiters.set(rule.name, createRateLimiter(store, { points: rule.points, durationSeconds: rule.windowSeconds, blockSeconds: 0, keyPrefix: `${keyPrefix}-${rule.name}` }));
  }
  return {
    async spend(rule, key) {
      const limiter = limiters.get(rule.name);
      if (!limiter) throw new Error(`The rate limit rule ${rule.name} is in no domain module's rateLimits`);
      const retryAfter = await limiter.consume(key);
      if (retryAfter > 0) throw new RateLimited(`${rule.message}; retry in ${retryAfter} s`, retryAfter);
    },
  };
}
