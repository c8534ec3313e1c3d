import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { config } from '../config.js';

export interface RateLimitOptions {
  points: number;
  durationSeconds: number;
  blockSeconds: number;
  keyPrefix: string;
  redisUrl?: string;
}

/**
 * The edge limit per client IP. In memory by default; with REDIS_URL the counters live in Redis
 * so several server processes share one budget per client.
 */
export function createRateLimiter(options: RateLimitOptions = { ...config.rateLimit, redisUrl: config.redisUrl }) {
  const common = {
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSeconds,
    blockDuration: options.blockSeconds,
  };
  let redis: Redis | undefined;
  let limiter: RateLimiterAbstract;
  if (options.redisUrl) {
    redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    // A Redis outage must not take the API down: fall back to a per-process limit meanwhile.
    limiter = new RateLimiterRedis({ ...common, storeClient: redis, insuranceLimiter: new RateLimiterMemory(common) });
  } else {
    limiter = new RateLimiterMemory(common);
  }
  return {
    /**
     * Waits (at most `timeoutMs`) for the Redis connection, so the first requests count in the
     * shared budget rather than in the per-process fallback. Serving starts either way.
     */
    async ready(timeoutMs = 5000): Promise<void> {
      if (!redis || redis.status === 'ready') return;
      const connection = redis;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        connection.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    /** Seconds to wait, or 0 when the request may pass. */
    async consume(clientKey: string): Promise<number> {
      try {
        await limiter.consume(clientKey);
        return 0;
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw rejection;
      }
    },
    async close() {
      redis?.disconnect();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
