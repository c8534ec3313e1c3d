// The payment-method sessions' rate limits (declared in module.ts, spent by service.ts).
import type { RateLimitRule } from '../core/rate-limits.js';

/** Minting: 10 sessions an hour per subscription (docs/decisions.md, "Payment-method sessions"). */
export const sessionMintBudget: RateLimitRule = {
  name: 'payment-method-session-mint',
  points: 10,
  windowSeconds: 3600,
  message: 'At most 10 payment-method sessions an hour per subscription',
};

/** Completing: 5 card attempts per session (a session is no card-testing oracle). */
export const sessionAttemptBudget: RateLimitRule = {
  name: 'payment-method-session-attempt',
  points: 5,
  windowSeconds: 15 * 60,
  message: 'At most 5 card attempts per payment-method session; mint a fresh session',
};
