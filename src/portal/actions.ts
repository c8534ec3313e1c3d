// What a buyer's forms do, through the services the API uses (so the same hooks, events and
// webhooks follow: a cancel here records subscription_updated as the API's does). Each is safe to
// send again: a subscription change asks for a state and is done when the subscription is in it
// (a repeat or a double click changes nothing more); a plan change carries an Idempotency-Key
// minted with its preview, so a repeat is answered with the first change and charged once.
import { FeatureDisabled, NotFound, ValidationFailed } from '../core/errors.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { PrismaClient, Subscription } from '../generated/prisma/client.js';
import type { TemporalConnection } from '../temporal/client.js';
import { buyerSubscription, ownSubscription, scopeOf } from './buyer.js';
import {
  findOrder, mintDownloadUrl, openPaymentMethodSession, previewSubscriptionUpdate, requestChange, sendEmail, updateSubscription, type LifecycleCommand,
} from './domain-calls.js';
import { createSignInLinks, SIGN_IN_LINK_SECONDS, type Buyer, type PortalWorkspace } from './sessions.js';

export interface ActionDeps {
  prisma: PrismaClient;
  temporal: TemporalConnection;
  rateLimits: RateLimits;
}

/** The subscription changes a buyer asks for, each with the state that fulfils it. */
export const SUBSCRIPTION_CHANGES = {
  'cancel-at-period-end': { command: { type: 'cancel', atPeriodEnd: true }, done: (s: Subscription) => s.cancelAtPeriodEnd || s.status === 'cancelled' },
  'cancel-now': { command: { type: 'cancel', atPeriodEnd: false }, done: (s: Subscription) => s.status === 'cancelled' },
  'undo-cancel': { command: { type: 'undoCancel' }, done: (s: Subscription) => !s.cancelAtPeriodEnd && s.status !== 'cancelled' },
  pause: { command: { type: 'pause' }, done: (s: Subscription) => s.status === 'paused' },
  resume: { command: { type: 'resume' }, done: (s: Subscription) => s.status !== 'paused' },
} satisfies Record<string, { command: LifecycleCommand; done: (s: Subscription) => boolean }>;

export type SubscriptionChange = keyof typeof SUBSCRIPTION_CHANGES;

/**
 * Sends the change to the subscription's workflow (the API's path) unless the subscription is
 * already as asked; a refusal that a concurrent twin of this request made moot counts as done.
 * Pausing is offered only where the workspace allows it (portalPauseEnabled); resuming always.
 */
export async function changeSubscription(deps: ActionDeps, workspace: PortalWorkspace, buyer: Buyer, number: string, change: SubscriptionChange): Promise<Subscription> {
  const { command, done } = SUBSCRIPTION_CHANGES[change];
  const current = await ownSubscription(deps.prisma, buyer, number);
  if (change === 'pause' && !workspace.portalPauseEnabled) throw new FeatureDisabled('Pausing is not offered for this subscription');
  if (done(current)) return current;
  try {
    return await requestChange(deps, scopeOf(buyer), current.number, command);
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    const now = await ownSubscription(deps.prisma, buyer, number);
    if (done(now)) return now;
    throw error;
  }
}

/** An offer the workspace lets this subscription switch to (400 otherwise), with the quantity kept. */
function switchTarget(details: Awaited<ReturnType<typeof buyerSubscription>>, offerId: string) {
  const offer = details.switchTo.find((o) => o.id === offerId.toLowerCase());
  if (!offer) throw new ValidationFailed('This plan cannot be chosen for your subscription');
  return { offer, items: [{ offerId: offer.id, quantity: details.quantity }] };
}

/** What the switch costs now (the proration the change would book), shown before the buyer confirms. */
export async function previewSwitch(deps: ActionDeps, workspace: PortalWorkspace, buyer: Buyer, number: string, offerId: string) {
  const details = await buyerSubscription(deps.prisma, workspace, buyer, number);
  const { offer, items } = switchTarget(details, offerId);
  const { net, tax, periodAmount } = await previewSubscriptionUpdate(deps, scopeOf(buyer), details.subscription.number, items);
  return { subscription: details.subscription, preview: { offer, net, tax, periodAmount } };
}

/**
 * The confirmed switch: the API's plan change under the preview's key (answered once, charged
 * once). Already on that offer, it is a repeat whose first answer applied the change: done.
 */
export async function switchPlan(deps: ActionDeps, workspace: PortalWorkspace, buyer: Buyer, number: string, offerId: string, key: string) {
  const details = await buyerSubscription(deps.prisma, workspace, buyer, number);
  if (details.items.length === 1 && details.items[0]!.offerId === offerId.toLowerCase()) return { subscription: details.subscription, payment: null };
  const { items } = switchTarget(details, offerId);
  return updateSubscription(deps, scopeOf(buyer), details.subscription.number, items, key);
}

/** The hosted payment-method page for the buyer's subscription: a fresh session's URL. */
export async function paymentMethodUrl(deps: ActionDeps, buyer: Buyer, number: string, origin: string, now: Date): Promise<string> {
  const subscription = await ownSubscription(deps.prisma, buyer, number);
  return (await openPaymentMethodSession(deps, scopeOf(buyer), subscription.number, { origin, now })).url;
}

/** A download URL for an item of the buyer's order, minted as the API mints one. */
export async function downloadUrl(deps: ActionDeps, buyer: Buyer, number: string, itemId: string, origin: string, now: Date): Promise<string> {
  const order = await findOrder(deps.prisma, scopeOf(buyer), number).catch(() => null);
  if (!order || order.userId !== buyer.userId) throw new NotFound('Order');
  return (await mintDownloadUrl(deps, scopeOf(buyer), { orderIdOrNumber: order.id, itemId, origin, now })).url;
}

/**
 * Emails one-time sign-in links to whoever bought with this address (nothing when nobody did).
 * The links never reach the database: the outbox keeps the email without them.
 */
export async function emailSignInLinks(prisma: PrismaClient, workspace: PortalWorkspace, email: string, next: string | null, base: string, now: Date): Promise<void> {
  const links = await createSignInLinks(prisma, workspace, email, next, now);
  if (!links.length) return;
  const merchant = workspace.name.trim() || 'the seller';
  const paragraphs = (link: (token: string) => string) =>
    links.map((l) => (links.length > 1 ? `${l.livemode ? 'Your purchases' : 'Your test-mode purchases'}:\n${link(l.token)}` : link(l.token))).join('\n\n');
  const text = (link: (token: string) => string) =>
    `Sign in to your orders and subscriptions at ${merchant}:\n\n${paragraphs(link)}\n\nThe link works once, within ${SIGN_IN_LINK_SECONDS / 60} minutes. If you did not ask for it, ignore this email.\n`;
  await sendEmail(prisma, {
    workspaceId: workspace.id,
    to: links[0]!.email,
    subject: `Sign in to ${merchant}`,
    text: text((token) => `${base}/${workspace.id}/sign-in/${token}`),
    storedText: text(() => '[a one-time sign-in link, not stored]'),
    kind: 'portal_sign_in',
  });
}
