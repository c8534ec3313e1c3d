// Payment-method sessions (issue 26): a back end mints a short-lived token for one subscription
// (POST /v0/subscriptions/{id}/paymentMethodSession) and gives the buyer's browser only the token;
// the hosted page behind its url saves a new card with a zero-amount setup at the processor and
// hands it to the subscriptions domain's hook (replacePaymentMethod), which retries a past_due or
// unpaid renewal at once. Tokens are stored as their SHA-256, single-use, 15 minutes; a token whose
// card could not be attached (the hook failed) is given back.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { config } from '../config.js';
import { FeatureDisabled, NotFound, PaymentDeclined, TemporarilyUnavailable, ValidationFailed } from '../core/errors.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { Principal, Scope } from '../core/scope.js';
import { isUuid } from '../core/uuid.js';
import type { PaymentMethodSession, PrismaClient, Subscription } from '../generated/prisma/client.js';
import { processorFor, checkCardSource, type CardSource, CardDeclined, InvalidProcessorRequest, ProcessorUnavailable, type PaymentProcessor, type SetupResult } from '../payments/index.js';
import type { TemporalConnection } from '../temporal/client.js';
import { findSubscription, replacePaymentMethod } from '../subscriptions/index.js';
import { sessionAttemptBudget, sessionMintBudget } from './budgets.js';
import { PAGE_PATH } from './page-path.js';

export const SESSION_LIFETIME_SECONDS = 15 * 60;
/** The contract's states in which a session may be minted. */
export const SESSION_STATUSES: readonly string[] = ['active', 'trialing', 'past_due', 'unpaid', 'paused'];
/** States whose open renewal the hook retries at once. */
const RETRIED_STATUSES: readonly string[] = ['past_due', 'unpaid'];
/** How long a completion waits for that retry's outcome before answering. */
const RETRY_WAIT = { ms: 10_000, step: 100 };

export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface MintDeps {
  prisma: PrismaClient;
  rateLimits: RateLimits;
}

export interface MintRequest {
  /** Where the service is reached (PUBLIC_BASE_URL wins). */
  origin: string;
  now: Date;
}

/** POST /v0/subscriptions/{id}/paymentMethodSession: 403 feature off, then openSession's 404, 400 state, 429 rate. */
export async function mintSession(deps: MintDeps, principal: Principal, subscriptionIdOrNumber: string, request: MintRequest) {
  if (!principal.settings.embeddedPaymentMethodUpdate) throw new FeatureDisabled('The embedded payment-method update is not enabled for this workspace');
  return openSession(deps, principal, subscriptionIdOrNumber, request);
}

/**
 * A session for the subscription (404), in a state that allows one (400), within the rate (429).
 * The API's minting checks the workspace's embedded-update switch first; the buyer portal opens
 * sessions for its own signed-in buyers without it (docs/decisions.md "Buyer portal").
 */
export async function openSession({ prisma, rateLimits }: MintDeps, scope: Scope, subscriptionIdOrNumber: string, request: MintRequest) {
  const subscription = await findSubscription(prisma, scope, subscriptionIdOrNumber);
  if (!SESSION_STATUSES.includes(subscription.status)) {
    throw new ValidationFailed(`The subscription is ${subscription.status}: a payment-method session needs it active, trialing, past_due, unpaid or paused`);
  }
  await rateLimits.spend(sessionMintBudget, subscription.id);
  const sessionToken = `pms_${randomBytes(32).toString('base64url')}`;
  // Whole seconds, as answered: the stored expiry is the one the caller was told.
  const expiresAt = new Date((Math.floor(request.now.getTime() / 1000) + SESSION_LIFETIME_SECONDS) * 1000);
  await prisma.paymentMethodSession.create({
    data: { workspaceId: scope.workspaceId, livemode: scope.livemode, subscriptionId: subscription.id, tokenHash: hashToken(sessionToken), expiresAt },
  });
  const base = config.publicBaseUrl ?? request.origin;
  return { sessionToken, expiresAt: Math.floor(expiresAt.getTime() / 1000), url: `${base}${PAGE_PATH}/${subscription.id}/${sessionToken}` };
}

/** A token as presented with a subscription: open, or why it is refused. */
export type SessionLookup =
  | { state: 'open'; session: PaymentMethodSession; subscription: Subscription }
  | { state: 'unknown' | 'expired' | 'used' }
  | { state: 'closed'; subscription: Subscription };

/**
 * The session a token opens for this subscription. A token of another subscription is `unknown`,
 * as a made-up one: the page says nothing about the subscription it belongs to.
 */
export async function lookUpSession(prisma: PrismaClient, subscriptionId: string, token: string, now: Date): Promise<SessionLookup> {
  if (!isUuid(subscriptionId) || !/^pms_[A-Za-z0-9_-]{43}$/.test(token)) return { state: 'unknown' };
  const session = await prisma.paymentMethodSession.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!session || session.subscriptionId !== subscriptionId.toLowerCase()) return { state: 'unknown' };
  if (session.usedAt) return { state: 'used' };
  if (session.expiresAt <= now) return { state: 'expired' };
  const subscription = await prisma.subscription.findUniqueOrThrow({ where: { id: session.subscriptionId } });
  if (!SESSION_STATUSES.includes(subscription.status)) return { state: 'closed', subscription };
  return { state: 'open', session, subscription };
}

/** The refusals of a token as the buyer route answers them. */
function refuse(lookup: Exclude<SessionLookup, { state: 'open' }>): never {
  switch (lookup.state) {
    case 'unknown':
      throw new NotFound('Payment-method session');
    case 'used':
      throw new ValidationFailed('This payment-method session was used already; ask for a new link');
    case 'expired':
      throw new ValidationFailed('This payment-method session expired; ask for a new link');
    case 'closed':
      throw new ValidationFailed(`The subscription is ${lookup.subscription.status}: its payment method can no longer be updated`);
  }
}

export interface CompleteDeps {
  prisma: PrismaClient;
  temporal: TemporalConnection;
  rateLimits: RateLimits;
  /** The configured processor (PAYMENT_PROCESSOR); the subscription's own one is used. */
  processor: PaymentProcessor;
}

/** The subscription's own processor (it saved the card its renewals are charged to). */
function processorOf(deps: CompleteDeps, subscription: Subscription): PaymentProcessor {
  const processor = subscription.processor ? processorFor(subscription.processor, deps.processor, { prisma: deps.prisma }) : null;
  if (!processor || subscription.methodType !== 'card') throw new ValidationFailed("This subscription's payment method cannot be replaced by a card here");
  return processor;
}

/** The card's zero-amount setup at the subscription's processor, with the buyer there to authenticate (3-D Secure). */
async function setUp(deps: CompleteDeps, processor: PaymentProcessor, session: PaymentMethodSession, subscription: Subscription, source: CardSource): Promise<SetupResult> {
  checkCardSource(processor.name, source);
  const user = subscription.userId ? await deps.prisma.user.findUnique({ where: { id: subscription.userId }, select: { email: true } }) : null;
  // Each attempt its own key: after a decline, the next card is a new setup.
  return processor.setupPaymentMethod({
    idempotencyKey: `payment-method-session/${session.id}/${randomUUID()}`,
    card: source.card ?? undefined,
    paymentMethod: source.paymentMethod ?? undefined,
    email: user?.email ?? '',
    livemode: subscription.livemode,
    metadata: { subscriptionId: subscription.id, paymentMethodSessionId: session.id },
    buyerPresent: true,
  });
}

/** The processor's refusals as the buyer route answers them. */
async function asked<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProcessorUnavailable) throw new TemporarilyUnavailable('The payment processor is unavailable; try again shortly');
    if (error instanceof CardDeclined) throw new PaymentDeclined(error.message);
    // A token the processor does not know (made up, of another processor).
    if (error instanceof InvalidProcessorRequest) throw new ValidationFailed(`paymentMethod: ${error.message}`);
    throw error;
  }
}

/**
 * The hosted page's completion: the card (or the payment method the browser tokenized) saved at
 * the processor, the session retired, the subscription's saved method replaced through its hook;
 * a past_due or unpaid subscription's renewal is retried at once and its outcome awaited
 * (bounded) so the page can show it. A card that needs 3-D Secure answers nextAction instead and
 * the session keeps its setup: the page authenticates, then completes again without a card, which
 * continues that setup (saved: as above; failed: 402; still waiting: nextAction again).
 */
export async function completeSession(deps: CompleteDeps, subscriptionId: string, token: string, source: CardSource, now: Date) {
  const lookup = await lookUpSession(deps.prisma, subscriptionId, token, now);
  if (lookup.state !== 'open') refuse(lookup);
  const { session, subscription } = lookup;
  const processor = processorOf(deps, subscription);
  let setup: SetupResult;
  if (source.card || source.paymentMethod) {
    await deps.rateLimits.spend(sessionAttemptBudget, session.id);
    setup = await asked(() => setUp(deps, processor, session, subscription, source));
  } else if (session.pendingSetupId) {
    const setupId = session.pendingSetupId;
    setup = await asked(() => processor.setupState(setupId));
  } else {
    throw new ValidationFailed('card or paymentMethod is required');
  }
  if (setup.status === 'requires_action') {
    await deps.prisma.paymentMethodSession.update({ where: { id: session.id }, data: { pendingSetupId: setup.setupId } });
    return { status: subscription.status, paymentMethod: null, nextAction: setup.nextAction };
  }
  if (session.pendingSetupId) await deps.prisma.paymentMethodSession.update({ where: { id: session.id }, data: { pendingSetupId: null } });
  if (setup.status === 'failed') throw new PaymentDeclined(setup.failureMessage);
  const method = setup.paymentMethod;
  // Claimed before the hook, atomically: two completions racing replace the method once.
  const claimed = await deps.prisma.paymentMethodSession.updateMany({ where: { id: session.id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (claimed.count === 0) {
    const lost = await lookUpSession(deps.prisma, subscriptionId, token, now);
    refuse(lost.state === 'open' ? { state: 'used' } : lost);
  }
  const scope: Scope = { workspaceId: session.workspaceId, livemode: session.livemode };
  let replaced: Subscription;
  try {
    replaced = await replacePaymentMethod(deps, scope, subscription.number, method.ref);
  } catch (error) {
    // The card was not attached: the link is given back (this completion's claim, never
    // another's), so the buyer can try again with it instead of asking for a new one.
    await deps.prisma.paymentMethodSession.updateMany({ where: { id: session.id, usedAt: now }, data: { usedAt: null } });
    throw error;
  }
  const settled = RETRIED_STATUSES.includes(subscription.status) ? await retryOutcome(deps.prisma, replaced) : replaced;
  return { status: settled.status, paymentMethod: { brand: method.brand ?? null, last4: method.last4 ?? null }, nextAction: null };
}

/** The subscription once the retried renewal is booked (it changes the row), or as it is after the wait. */
async function retryOutcome(prisma: PrismaClient, replaced: Subscription): Promise<Subscription> {
  for (const deadline = Date.now() + RETRY_WAIT.ms; Date.now() < deadline; await sleep(RETRY_WAIT.step)) {
    const now = await prisma.subscription.findUniqueOrThrow({ where: { id: replaced.id } });
    if (now.updatedAt > replaced.updatedAt || !RETRIED_STATUSES.includes(now.status)) return now;
  }
  return prisma.subscription.findUniqueOrThrow({ where: { id: replaced.id } });
}
