// The subscription's payments outside its periods: a one-off charge of the subscription and a
// plan change's prorated payment, each a payment of the initial order (`{orderNumber}-{n}`) made
// and booked under the subscription's row lock by the workflow's activities (./activities.ts).
import type { Prisma, PrismaClient, Subscription } from '../generated/prisma/client.js';
import { ValidationFailed } from '../core/errors.js';
import { paymentFee, FEE_RULE, paymentNumber } from '../orders/index.js';
import { markPaymentFailed, markPaymentPaid, recordCharge } from '../payments/index.js';
import { discountOfPeriod, lock, planOf, priceLines, recordSubscriptionEvent, storedItems, type AttemptOutcome, type PlanItem, type StoredItems } from './service.js';

type Tx = Prisma.TransactionClient;

/**
 * A one-off charge of the subscription (POST /v0/subscriptions/{id}/charge): a payment of the
 * initial order (`{orderNumber}-{n}`, in no period) created under the given id, so a retried
 * activity finds it. Only while active or trialing (400 otherwise).
 */
export async function createOneOffPayment(prisma: PrismaClient, subscriptionId: string, paymentId: string, amount: number, clockMs: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    if (await tx.payment.findUnique({ where: { id: paymentId }, select: { id: true } })) return;
    if (s.status !== 'active' && s.status !== 'trialing') throw new ValidationFailed(`A subscription in status ${s.status} cannot be charged`);
    await createPaymentOutsidePeriods(tx, s, paymentId, { amount, tax: 0 }, clockMs, false);
  });
}

/** A payment of the initial order in no period (`{orderNumber}-{n}`): a one-off charge or a plan change. */
async function createPaymentOutsidePeriods(tx: Tx, s: Subscription, paymentId: string, money: { amount: number; tax: number }, clockMs: number, planChange: boolean) {
  const order = await tx.order.findFirstOrThrow({ where: { subscriptionId: s.id, number: s.number }, select: { id: true, number: true } });
  const last = await tx.payment.findFirstOrThrow({ where: { orderId: order.id }, orderBy: { sequence: 'desc' }, select: { sequence: true } });
  const sequence = last.sequence + 1;
  await tx.payment.create({
    data: {
      id: paymentId, workspaceId: s.workspaceId, livemode: s.livemode, orderId: order.id, sequence, number: paymentNumber(order.number, sequence), ...money, planChange,
      ...paymentFee(money.amount - money.tax, FEE_RULE), currency: s.currency, processor: s.processor, methodType: s.methodType, userId: s.userId, subscriptionId: s.id,
      createdAt: new Date(clockMs),
    },
  });
}

/**
 * Proration of a plan change at `atMs` within the period [startMs, endMs), as Stripe's
 * create_prorations: the unused time of the old price is credited, the remaining time of the new
 * price charged, each rounded to minor units; `net` is what the change costs (negative: a credit).
 */
export function prorate(oldAmount: number, newAmount: number, startMs: number, endMs: number, atMs: number) {
  const remaining = Math.min(Math.max(endMs - atMs, 0), endMs - startMs);
  const share = (amount: number) => Math.round((amount * remaining) / (endMs - startMs));
  const credit = share(oldAmount);
  const charge = share(newAmount);
  return { credit, charge, net: charge - credit };
}

/**
 * A plan change (PATCH .../update with items), first step, under the row lock: the proration of
 * the current period's remaining time (the current items' price against the new items', tax
 * included, at the subscription's clock). An upgrade creates the plan-change payment (its id is
 * the change's, so a retried activity finds it) and the change waits for it to be paid; a
 * downgrade or an even change applies now, its credit kept for the next renewals. A trial has
 * paid nothing: its change applies now, free. Active or trialing only (400 otherwise).
 */
export async function startPlanChange(prisma: PrismaClient, subscriptionId: string, changeId: string, items: PlanItem[], clockMs: number): Promise<{ paymentId: string | null }> {
  return prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    if (storedItems(s)?.changeId === changeId) return { paymentId: null };
    if (await tx.payment.findUnique({ where: { id: changeId }, select: { id: true } })) return { paymentId: changeId };
    const money = await planChangeMoney(tx, s, items, clockMs);
    if (money.net > 0) {
      await createPaymentOutsidePeriods(tx, s, changeId, { amount: money.net, tax: Math.min(Math.max(money.tax, 0), money.net) }, clockMs, true);
      return { paymentId: changeId };
    }
    await applyPlan(tx, s, changeId, items, money.periodAmount, -money.net);
    return { paymentId: null };
  });
}

/**
 * What changing an active or trialing subscription (400 otherwise) to `items` at `clockMs` costs (the proration
 * above): `net` (> 0 charged now, <= 0 credited to the next renewals; 0 while trialing), its
 * `tax`, and `periodAmount`, what a whole period of the new items costs. The plan change books
 * it; a preview (the buyer portal's) shows it before the buyer confirms.
 */
export async function planChangeMoney(db: Tx | PrismaClient, s: Subscription, items: PlanItem[], clockMs: number) {
  if (s.status !== 'active' && s.status !== 'trialing') throw new ValidationFailed(`Only an active or trialing subscription can change its items; this one is ${s.status}`);
  const at = new Date(clockMs);
  const plan = await planOf(db, s);
  const start = s.currentPeriodStart!.getTime();
  // Both priced for the whole current period, with the discount that period has.
  const discount = discountOfPeriod(s, plan.discount, start);
  const [before, after] = await Promise.all([priceLines(db, plan.items, plan.address, s.currency, at, discount), priceLines(db, items, plan.address, s.currency, at, discount)]);
  const end = s.currentPeriodEnd!.getTime();
  const money = s.status === 'trialing' ? { net: 0, tax: 0 } : { net: prorate(before.amount, after.amount, start, end, clockMs).net, tax: prorate(before.tax, after.tax, start, end, clockMs).net };
  return { ...money, periodAmount: after.amount };
}

/** The plan-change payment was charged: PAID applies the change, FAILED leaves the items as they were. */
export async function finishPlanChange(prisma: PrismaClient, subscriptionId: string, changeId: string, items: PlanItem[], clockMs: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: changeId }, select: { status: true } });
    if (storedItems(s)?.changeId === changeId || payment.status !== 'PAID') return;
    const plan = await planOf(tx, s);
    const after = await priceLines(tx, items, plan.address, s.currency, new Date(clockMs), discountOfPeriod(s, plan.discount, s.currentPeriodStart!.getTime()));
    await applyPlan(tx, s, changeId, items, after.amount, 0);
  });
}

/** The items renewals now price from; subscription_updated says so (its items are the initial order's, its amount the new one). */
async function applyPlan(tx: Tx, s: Subscription, changeId: string, items: PlanItem[], amount: number, credit: number) {
  const stored: StoredItems = { changeId, items };
  const updated = await tx.subscription.update({ where: { id: s.id }, data: { items: stored as unknown as Prisma.InputJsonValue, amount, credit: { increment: credit } } });
  await recordSubscriptionEvent(tx, updated, 'subscription_updated');
}

/** The one-off charge's outcome: PAID or FAILED (no dunning: the integrator asked for it now). */
export async function bookOneOffCharge(prisma: PrismaClient, paymentId: string, outcome: AttemptOutcome, clockMs: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    if (payment.status !== 'PENDING' || outcome.status === 'pending') return;
    const base = { processor: payment.processor!, amount: payment.amount, currency: payment.currency, processorChargeId: outcome.chargeId };
    if (outcome.status === 'succeeded') {
      if (outcome.chargeId) await recordCharge(tx, paymentId, 0, { ...base, status: 'succeeded' });
      await markPaymentPaid(tx, paymentId, { processorChargeId: outcome.chargeId, paidAt: new Date(clockMs) });
      return;
    }
    await recordCharge(tx, paymentId, 0, { ...base, status: 'failed', failureCode: outcome.failureCode, failureMessage: outcome.failureMessage });
    await markPaymentFailed(tx, paymentId, { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId: outcome.chargeId });
  });
}
