// Budgets of requests per key in a window (the contract's 60 download URLs a minute per workspace).
// A domain declares its rules (its module's `rateLimits`) and spends them in its services; the
// server builds one limiter per rule at start, all on one Redis client when REDIS_URL is set
// (src/http/rate-limit.ts), and hands them to resolvers in the context. Services see only this.

/** One budget: `points` requests per key in `windowSeconds` (rolling), then 429 until a point frees. */
export interface RateLimitRule {
  /** Unique across domains; it names the rule's counters in Redis. */
  name: string;
  points: number;
  windowSeconds: number;
  /** The 429's message, e.g. "At most 60 download URLs a minute per workspace". */
  message: string;
}

export interface RateLimits {
  /** Counts one request of `key` (a workspace, a subscription); past the rule's budget throws RateLimited with the seconds to wait. */
  spend(rule: RateLimitRule, key: string): Promise<void>;
}
