// Subscription create and update (a plan change), the API's side: the body's items resolved to
// offers and prices, the change sent to the subscription's workflow (./requests.ts), a new
// subscription charged on its buyer's saved card and its workflow started. docs/decisions.md
// "Create and plan changes".
import { randomUUID } from 'node:crypto';

import type { Offer, PrismaClient, Subscription } from '../generated/prisma/client.js';
import { NotFound, TemporarilyUnavailable, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { createOrder } from '../orders/index.js';
import { bodyHash, checkIdempotencyKey, claimKey, claimKeyForOrder, earlierOrder, earlierRequest, KeyTaken, type Placed } from '../core/idempotency.js';
import { notifyPaymentPaid, ProcessorError, type PaymentProcessor, markPaymentPaid } from '../payments/index.js';
import type { BillingDetails } from '../users/index.js';
import { checkItemsTotal, itemLine, MAX_ITEMS, type SubscriptionItemInput } from './items.js';
import { chargeThroughPaymentWorkflow } from './off-session.js';
import { findSubscription } from './queries.js';
import { clockOf, requestChange, type LifecycleDeps } from './requests.js';
import { planChangeMoney } from './off-period-payments.js';
import { priceLines, subscriptionPlanItems, type PlanItem } from './service.js';

/** An item of a create or update body: an offer (for update, default the subscription's first item's) and its price. */
export interface SubscriptionPlanItemInput extends SubscriptionItemInput {
  offerId?: string | null;
}

/** The subscription's billing terms, which every item's offer must share. */
type Terms = Pick<Offer, 'currency' | 'recurringInterval' | 'recurringIntervalCount'>;

const sameTerms = (a: Terms, b: Terms) => a.currency === b.currency && a.recurringInterval === b.recurringInterval && (a.recurringIntervalCount ?? 1) === (b.recurringIntervalCount ?? 1);

/**
 * The body's items as plan lines: each names a subscription offer of the workspace that is on
 * sale (its `offerId`, or `defaultOfferId`), priced unitPrice, value, price, else the offer's
 * price; every offer on the same currency and interval (`terms`, default the first offer's). 400
 * for anything else, naming the item.
 */
async function planItems(prisma: PrismaClient, scope: Scope, inputs: readonly SubscriptionPlanItemInput[], defaultOfferId: string | null, terms?: Terms) {
  if (inputs.length === 0 || inputs.length > MAX_ITEMS) throw new ValidationFailed(`items: 1 to ${MAX_ITEMS} items`);
  const offerIds = inputs.map((item, index) => {
    const offerId = item.offerId ?? defaultOfferId;
    if (offerId == null) throw new ValidationFailed(`items.${index}.offerId is required`);
    return offerId.toLowerCase();
  });
  const offers = await prisma.offer.findMany({ where: { ...inScope(scope), id: { in: offerIds } }, include: { product: { select: { archivedAt: true } } } });
  const byId = new Map(offers.map((offer) => [offer.id, offer]));
  const first = byId.get(offerIds[0]!);
  const expected = terms ?? first;
  const items: PlanItem[] = inputs.map((item, index) => {
    const offer = byId.get(offerIds[index]!);
    if (!offer) throw new ValidationFailed(`items.${index}.offerId: no such offer`);
    if (offer.archivedAt || offer.product.archivedAt || offer.status !== 'ACTIVE') throw new ValidationFailed(`items.${index}: the offer is not on sale`);
    if (!offer.recurringInterval) throw new ValidationFailed(`items.${index}: the offer is not a subscription offer`);
    if (!sameTerms(offer, expected!)) throw new ValidationFailed(`items.${index}: every item's offer must bill in ${expected!.currency} every ${expected!.recurringIntervalCount ?? 1} ${expected!.recurringInterval}`);
    return { offerId: offer.id, productId: offer.productId, ...itemLine(item, index, offer.price) };
  });
  checkItemsTotal(items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0));
  return { items, offers: offerIds.map((id) => byId.get(id)!) };
}

/** An item as its Idempotency-Key's hash sees it: a field left out and a null are the same request. */
const asSent = (item: SubscriptionPlanItemInput) => ({
  offerId: item.offerId?.toLowerCase() ?? null, unitPrice: item.unitPrice ?? null, value: item.value ?? null, price: item.price ?? null, quantity: item.quantity ?? null,
});

/**
 * PATCH /v0/subscriptions/{id}/update with items: a plan change, applied by the subscription's
 * workflow between its steps (prorated; an upgrade is charged now as a plan-change payment and
 * applies once it is paid). Answers the subscription and the plan-change payment (null when
 * nothing was charged). With an Idempotency-Key the change's id is the key's row: a repeat (or a
 * concurrent duplicate) sends the same change, which the workflow applies and charges once, and a
 * repeat after it was answered gets the subscription as it now is and the same payment, without
 * asking the workflow again (docs/decisions.md "Create and plan changes", Idempotency-Key).
 */
export async function updateSubscription(deps: LifecycleDeps, scope: Scope, idOrNumber: string, inputs: readonly SubscriptionPlanItemInput[], idempotencyKey?: string) {
  checkIdempotencyKey(idempotencyKey);
  const current = await findSubscription(deps.prisma, scope, idOrNumber);
  const [first] = await subscriptionPlanItems(deps.prisma, current);
  const { items } = await planItems(deps.prisma, scope, inputs, first?.offerId ?? null, current);
  const key = idempotencyKey === undefined ? null : { value: idempotencyKey, hash: bodyHash({ items: inputs.map(asSent) }) };
  const earlier = key ? await earlierRequest(deps.prisma, changeTarget(current.id), key.value, key.hash) : null;
  // Answered before (orderId is set once the change was answered): the same answer, nothing asked again.
  if (earlier?.orderId) {
    const payment = earlier.paymentId ? await deps.prisma.payment.findUnique({ where: { id: earlier.paymentId } }) : null;
    return { subscription: await deps.prisma.subscription.findUniqueOrThrow({ where: { id: current.id } }), payment };
  }
  const changeId = key ? (earlier?.id ?? (await claimChange(deps.prisma, scope, current.id, key))) : randomUUID();
  const subscription = await requestChange(deps, scope, idOrNumber, { type: 'changeItems', changeId, items });
  const payment = await deps.prisma.payment.findUnique({ where: { id: changeId } });
  if (key) {
    const { id: orderId } = await deps.prisma.order.findFirstOrThrow({ where: { subscriptionId: current.id, number: current.number }, select: { id: true } });
    await deps.prisma.idempotencyKey.update({ where: { id: changeId }, data: { orderId, paymentId: payment?.id ?? null } });
  }
  return { subscription, payment };
}

/**
 * What PATCH .../update with these items would cost now, without changing anything: the same
 * items' checks (400) and the proration the change books (planChangeMoney), at the subscription's
 * clock now (the change itself is booked at its own clock, a moment later).
 */
export async function previewSubscriptionUpdate(deps: LifecycleDeps, scope: Scope, idOrNumber: string, inputs: readonly SubscriptionPlanItemInput[]) {
  const current = await findSubscription(deps.prisma, scope, idOrNumber);
  const [first] = await subscriptionPlanItems(deps.prisma, current);
  const { items } = await planItems(deps.prisma, scope, inputs, first?.offerId ?? null, current);
  return { subscription: current, ...(await planChangeMoney(deps.prisma, current, items, clockOf(current))) };
}

/** The plan change's key row, committed at once (its id is the change's); a concurrent duplicate's row when it won. */
async function claimChange(prisma: PrismaClient, scope: Scope, subscriptionId: string, key: { value: string; hash: string }): Promise<string> {
  try {
    return await prisma.$transaction((tx) => claimKey(tx, scope, changeTarget(subscriptionId), key.value, key.hash));
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    const winner = await earlierRequest(prisma, changeTarget(subscriptionId), key.value, key.hash);
    if (!winner) throw new ValidationFailed('Idempotency-Key is in use by a request that has not finished; retry');
    return winner.id;
  }
}

/** The buyer's most recently saved card in the scope: the one of their latest subscription that has one. */
async function savedCardOf(prisma: PrismaClient, scope: Scope, userId: string) {
  const latest = await prisma.subscription.findFirst({
    where: { ...inScope(scope), userId, paymentMethodRef: { not: null } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    select: { processor: true, methodType: true, paymentMethodRef: true },
  });
  if (!latest) throw new ValidationFailed('The buyer has no saved card: start their first subscription through a checkout');
  return latest;
}

/** What an Idempotency-Key of POST /v0/subscriptions/create is scoped to: the workspace and mode. */
const createTarget = (scope: Scope) => `subscriptions/create/${scope.workspaceId}/${scope.livemode ? 'live' : 'test'}`;
/** A plan change's key target: the subscription it was sent to. */
const changeTarget = (subscriptionId: string) => `subscription/${subscriptionId}`;

/**
 * POST /v0/subscriptions/create: a subscription for an existing buyer, charged off-session now on
 * the card their latest subscription saved (Stripe's subscription create on a customer's default
 * method). Its order and first payment are created as a checkout's would be (taxed at the buyer's
 * billing details); a trial offer charges nothing now. The charge is the payment workflow's, as a
 * checkout's (startPayment starts it first, so a charge whose answer never came still settles).
 * PAID: active (or trialing), its workflow started; declined: the payment FAILED and the
 * subscription incomplete_expired, in the answer; the processor unreachable: 503, the payment
 * PENDING until a retry with the same Idempotency-Key charges it (same charge key) or its
 * workflow expires it. With an Idempotency-Key, a repeat of the same body gets the same
 * subscription and payment, another body is 400 (as the checkout's).
 */
export async function createSubscription(deps: LifecycleDeps & { processor: PaymentProcessor }, scope: Scope, userId: string, inputs: readonly SubscriptionPlanItemInput[], idempotencyKey?: string) {
  checkIdempotencyKey(idempotencyKey);
  const key = idempotencyKey === undefined ? null : { value: idempotencyKey, hash: bodyHash({ userId: userId.toLowerCase(), items: inputs.map(asSent) }) };
  let placed = key ? await earlierOrder(deps.prisma, createTarget(scope), key.value, key.hash) : null;
  if (!placed) {
    try {
      placed = await placeSubscription(deps, scope, userId, inputs, key);
    } catch (error) {
      if (!(error instanceof KeyTaken) || !key) throw error;
      placed = await earlierOrder(deps.prisma, createTarget(scope), key.value, key.hash);
      if (!placed) throw new ValidationFailed('Idempotency-Key is in use by a request that has not finished; retry');
    }
  }
  const paymentId = placed.paymentId;
  try {
    await chargeThroughPaymentWorkflow(deps, paymentId);
  } catch (error) {
    // The charge may exist at the processor: a retry with the same key (same charge key) or the payment's workflow settles it.
    if (error instanceof ProcessorError) throw new TemporarilyUnavailable('The payment processor is unavailable; retry with the same Idempotency-Key');
    throw error;
  }
  // The payment as the answer shows it: starting the subscription's workflow does not change it.
  const payment = await deps.prisma.payment.findUniqueOrThrow({ where: { id: paymentId } });
  // Its first period began with the payment's PAID; the workflow starts before the answer.
  if (payment.status === 'PAID') await notifyPaymentPaid(deps, payment);
  const subscription: Subscription = await deps.prisma.subscription.findUniqueOrThrow({ where: { id: payment.subscriptionId! } });
  return { subscription, payment };
}

/** The order, its first payment and the subscription on the buyer's saved card, in one transaction with the key's row; a trial's payment (of 0) is PAID at once. */
async function placeSubscription(deps: LifecycleDeps, scope: Scope, userId: string, inputs: readonly SubscriptionPlanItemInput[], key: { value: string; hash: string } | null): Promise<Placed> {
  const user = await deps.prisma.user.findFirst({ where: { ...inScope(scope), id: userId.toLowerCase(), archivedAt: null } });
  if (!user) throw new NotFound('User');
  const { items, offers } = await planItems(deps.prisma, scope, inputs, null);
  const terms = offers[0]!;
  const card = await savedCardOf(deps.prisma, scope, user.id);
  const workspace = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId }, select: { pricesIncludeTax: true, taxRegistrations: true } });
  const billing = user.billingDetails as BillingDetails | null;
  const address = {
    country: billing?.countryCode ?? null, billingState: billing?.state ?? null, billingPostalCode: billing?.postalCode ?? null,
    taxInclusive: workspace.pricesIncludeTax, taxId: null, taxRegistrations: workspace.taxRegistrations,
  };
  const { lineTaxes, taxReason } = await priceLines(deps.prisma, items, address, terms.currency, new Date());
  return deps.prisma.$transaction(async (tx) => {
    const ids = key ? await claimKeyForOrder(tx, scope, createTarget(scope), key.value, key.hash) : undefined;
    const order = await createOrder(tx, scope, {
      ids,
      user, currency: terms.currency, country: address.country, billingState: address.billingState, billingPostalCode: address.billingPostalCode,
      taxInclusive: address.taxInclusive, taxReason,
      items: items.map((item, index) => {
        const offer = offers[index]!;
        return { offerId: item.offerId, productId: item.productId, variantId: offer.variantId, quantity: item.quantity, unitPrice: item.unitPrice, tax: lineTaxes[index], taxInclusive: address.taxInclusive };
      }),
      payment: { processor: card.processor, methodType: card.methodType },
      subscription: { recurringInterval: terms.recurringInterval!, recurringIntervalCount: terms.recurringIntervalCount, trialInterval: terms.trialInterval, trialIntervalCount: terms.trialIntervalCount },
    });
    await tx.subscription.update({ where: { id: order.subscription!.id }, data: { paymentMethodRef: card.paymentMethodRef } });
    // A trial charges nothing now: its payment of 0 is paid at once (the trial's end charges the saved card).
    if (order.payment.amount === 0) await markPaymentPaid(tx, order.payment.id);
    return { orderId: order.order.id, paymentId: order.payment.id };
  });
}
