import path from 'node:path';

// All configuration comes from environment variables with safe defaults (documented in README).
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

export const config = {
  port: intEnv('PORT', 3000),
  host: process.env.HOST ?? '127.0.0.1',
  dataDir: path.resolve(process.env.DATA_DIR ?? '.data'),
  logLevel: process.env.LOG_LEVEL ?? 'info',
  rateLimit: {
    points: intEnv('RATE_LIMIT_POINTS', 600),
    durationSeconds: intEnv('RATE_LIMIT_WINDOW_SECONDS', 60),
    blockSeconds: intEnv('RATE_LIMIT_COOLDOWN_SECONDS', 10),
  },
  redisUrl: process.env.REDIS_URL || undefined,
  // Only honoured from the loopback peer unless TRUST_PROXY is set: otherwise anyone could
  // pick their own rate-limit bucket with a forged header.
  trustProxy: process.env.TRUST_PROXY === 'true',
};
