// Subscription create and update (a plan change), the API's side: the body's items resolved to
// offers and prices, the change sent to the subscription's workflow (./requests.ts), a new
// subscription charged on its buyer's saved card and its workflow started. docs/decisions.md
// "Create and plan changes".
import { randomUUID } from 'node:crypto';

import type { Offer, PrismaClient, Subscription } from '../generated/prisma/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { inScope, type Scope } from '../core/scope.js';
import { createOrder } from '../orders/service.js';
import { notifyPaymentPaid } from '../payments/payment-hooks.js';
import type { PaymentProcessor } from '../payments/processors/processor.js';
import { markPaymentFailed, markPaymentPaid, recordCharge } from '../payments/transitions.js';
import type { BillingDetails } from '../users/service.js';
import { checkItemsTotal, itemLine, MAX_ITEMS, type SubscriptionItemInput } from './items.js';
import { chargeSavedMethod } from './off-session.js';
import { findSubscription } from './queries.js';
import { requestChange, type LifecycleDeps } from './requests.js';
import { beginPeriods, priceLines, subscriptionPlanItems, type PlanItem } from './service.js';

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

/**
 * PATCH /v0/subscriptions/{id}/update with items: a plan change, applied by the subscription's
 * workflow between its steps (prorated; an upgrade is charged now as a plan-change payment and
 * applies once it is paid). Answers the subscription and the plan-change payment (null when
 * nothing was charged).
 */
export async function updateSubscription(deps: LifecycleDeps, scope: Scope, idOrNumber: string, inputs: readonly SubscriptionPlanItemInput[]) {
  const current = await findSubscription(deps.prisma, scope, idOrNumber);
  const [first] = await subscriptionPlanItems(deps.prisma, current);
  const { items } = await planItems(deps.prisma, scope, inputs, first?.offerId ?? null, current);
  const changeId = randomUUID();
  const subscription = await requestChange(deps, scope, idOrNumber, { type: 'changeItems', changeId, items });
  return { subscription, payment: await deps.prisma.payment.findUnique({ where: { id: changeId } }) };
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

/**
 * POST /v0/subscriptions/create: a subscription for an existing buyer, charged off-session now on
 * the card their latest subscription saved (Stripe's subscription create on a customer's default
 * method). Its order and first payment are created as a checkout's would be (taxed at the buyer's
 * billing details); a trial offer charges nothing now. PAID: active (or trialing), its workflow
 * started; declined: the payment FAILED and the subscription incomplete_expired, in the answer.
 */
export async function createSubscription(deps: LifecycleDeps & { processor: PaymentProcessor }, scope: Scope, userId: string, inputs: readonly SubscriptionPlanItemInput[]) {
  const user = await deps.prisma.user.findFirst({ where: { ...inScope(scope), id: userId.toLowerCase(), archivedAt: null } });
  if (!user) throw new NotFound('User');
  const { items, offers } = await planItems(deps.prisma, scope, inputs, null);
  const terms = offers[0]!;
  const card = await savedCardOf(deps.prisma, scope, user.id);
  const workspace = await deps.prisma.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId }, select: { pricesIncludeTax: true } });
  const billing = user.billingDetails as BillingDetails | null;
  const address = { country: billing?.countryCode ?? null, billingState: billing?.state ?? null, billingPostalCode: billing?.postalCode ?? null, taxInclusive: workspace.pricesIncludeTax };
  const { lineTaxes } = await priceLines(deps.prisma, items, address, terms.currency, new Date());
  const created = await deps.prisma.$transaction(async (tx) => {
    const order = await createOrder(tx, scope, {
      userId: user.id, currency: terms.currency, country: address.country, billingState: address.billingState, billingPostalCode: address.billingPostalCode,
      taxInclusive: address.taxInclusive,
      items: items.map((item, index) => {
        const offer = offers[index]!;
        return { offerId: item.offerId, productId: item.productId, variantId: offer.variantId, quantity: item.quantity, unitPrice: item.unitPrice, tax: lineTaxes[index], taxInclusive: address.taxInclusive };
      }),
      payment: { processor: card.processor, methodType: card.methodType },
      subscription: { recurringInterval: terms.recurringInterval!, recurringIntervalCount: terms.recurringIntervalCount, trialInterval: terms.trialInterval, trialIntervalCount: terms.trialIntervalCount },
    });
    await tx.subscription.update({ where: { id: order.subscription!.id }, data: { paymentMethodRef: card.paymentMethodRef } });
    return { subscriptionId: order.subscription!.id, paymentId: order.payment.id };
  });
  const outcome = await chargeSavedMethod(deps.prisma, deps.processor, created.paymentId, `subscription/${created.subscriptionId}/create`, 0);
  // Pending (3-D Secure asked off-session): the processor's event settles the payment later, as a checkout's.
  if (outcome.status !== 'pending') {
    await deps.prisma.$transaction(async (tx) => {
      const payment = await tx.payment.findUniqueOrThrow({ where: { id: created.paymentId }, select: { processor: true, amount: true, currency: true } });
      if (outcome.chargeId) {
        const failure = outcome.status === 'failed' ? { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage } : {};
        await recordCharge(tx, created.paymentId, 0, { processor: payment.processor!, amount: payment.amount, currency: payment.currency, processorChargeId: outcome.chargeId, status: outcome.status, ...failure });
      }
      if (outcome.status === 'succeeded') await markPaymentPaid(tx, created.paymentId, { processorChargeId: outcome.chargeId });
      else await markPaymentFailed(tx, created.paymentId, { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId: outcome.chargeId });
    });
  }
  if (outcome.status === 'succeeded') {
    // The first period gets its end before the answer; the workflow's first run finds it set.
    await beginPeriods(deps.prisma, created.subscriptionId);
    await notifyPaymentPaid(deps, created.paymentId);
  }
  const subscription: Subscription = await deps.prisma.subscription.findUniqueOrThrow({ where: { id: created.subscriptionId } });
  return { subscription, payment: await deps.prisma.payment.findUniqueOrThrow({ where: { id: created.paymentId } }) };
}
