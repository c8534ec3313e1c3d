import type { PrismaClient } from '../generated/prisma/client.js';
import { ApiError } from '../errors.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { Access, Principal, Scope } from '../core/scope.js';
import type { Notifications } from '../db/notifications.js';
import type { TemporalConnection } from '../temporal/client.js';
import type { PaymentProcessor } from '../payments/processors/processor.js';

export interface Context {
  prisma: PrismaClient;
  /** For resolvers whose service starts or signals workflows. */
  temporal: TemporalConnection;
  /** LISTEN/NOTIFY on the database: for services that wait on a commit of another process (a refund's bookkeeping). */
  notifications: Notifications;
  /** The card processor (PAYMENT_PROCESSOR), for resolvers that charge (checkout). */
  processor: PaymentProcessor;
  /** Every domain's rate limits (their `rateLimits`), for services that spend a budget. */
  rateLimits: RateLimits;
  requestId: string;
  /** Who is calling, as per-client budgets count it: the client's address (TRUST_PROXY), an IPv6 address's /64. */
  client: string;
  /** Where the request came in (scheme, host, port): links the service hands out point there unless PUBLIC_BASE_URL says otherwise. */
  origin: string;
  /** The request's Idempotency-Key header as sent; the operations that honour one check it. */
  idempotencyKey?: string;
  /** Resolves (once) who is calling; throws 401 when the access is not granted. */
  principal(access: Access): Promise<Principal>;
}

/** Builds the per-request principal resolver from a lazy authenticator. */
export function principalResolver(authenticateOnce: () => Promise<Principal>): Context['principal'] {
  let pending: Promise<Principal> | undefined;
  return async (access) => {
    pending ??= authenticateOnce();
    const principal = await pending;
    if (access === 'write' && !principal.canWrite) {
      throw new ApiError(401, 'This operation needs a valid x-svc-secret-key header');
    }
    return principal;
  };
}

/** For buyer routes: no keys are read, and a resolver asking for the principal is a programming error answered 401. */
export const noPrincipal: Context['principal'] = async () => {
  throw new ApiError(401, 'This route takes no API keys');
};

export async function scopeOf(ctx: Context, access: Access): Promise<Scope> {
  const { workspaceId, livemode } = await ctx.principal(access);
  return { workspaceId, livemode };
}
