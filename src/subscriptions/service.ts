// The subscription lifecycle's records: every state change of a subscription and its renewal
// payments, each in one transaction with its outbox events, under the subscription's row lock.
// Called by the subscription workflow's activities (./activities.ts), which the workflow
// (workflows/subscription.ts) calls in the order time and requests make them due; the API side
// (./requests.ts) only asks the workflow. Times are the subscription's clock (test clocks), passed
// in by the workflow.
import type { Discount, Prisma, PrismaClient, Subscription, SubscriptionStatus } from '../generated/prisma/client.js';
import { discountShares, orderTaxReason } from '../checkout/index.js';
import { formatAmount } from '../discounts/index.js';
import type { Scope } from '../core/scope.js';
import { recordEvent } from '../events/event-service.js';
import { paymentFee, FEE_RULE, orderItemResource, paymentNumber, loadOrderForEvent } from '../orders/index.js';
import { markPaymentPaid, markPaymentUnpaid, recordCharge, recordRetryingPaymentFailure } from '../payments/index.js';
import { calculateTax, type TaxReason, taxRegistrations } from '../tax/index.js';
import { userResource } from '../users/index.js';
import { subscriptionEventData } from './events.js';
import { beginFirstPeriod, periodEnd } from './first-period.js';
import { HARD_DECLINES, retryAt } from './periods.js';

type Tx = Prisma.TransactionClient;

/** What the workflow knows of its subscription: plain JSON (it is stored in the workflow's history). */
export interface LifecycleState {
  status: SubscriptionStatus;
  /** The current period: 1 for the one the first payment paid, n for the one renewal n-1 started. */
  period: number;
  periodEndMs: number | null;
  cancelAtPeriodEnd: boolean;
  /** Dunning: the renewal being retried, its next retry (subscription clock) and the attempts made. */
  dunning: { paymentId: string; dueMs: number; attempts: number; nextRetryMs: number | null } | null;
  clockOffsetMs: number;
  /** The worker's charge timings, on the state a run starts from (./activities.ts). */
  timings?: ChargeTimings;
}

/** How long a renewal charge may stay pending (PAYMENT_EXPIRY_SECONDS), and be retried under one processor key (PROCESSOR_KEY_WINDOW_SECONDS). */
export interface ChargeTimings {
  pendingChargeMs: number;
  chargeWindowMs: number;
}

/** Requests to the workflow (updates), applied in the order they arrive between its steps. */
export type LifecycleCommand =
  | { type: 'cancel'; atPeriodEnd: boolean }
  | { type: 'undoCancel' }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'paymentMethodReplaced'; paymentMethodRef: string }
  | { type: 'endTrial' }
  | { type: 'charge'; paymentId: string; amount: number }
  | { type: 'changeItems'; changeId: string; items: PlanItem[] };

/** The subscription's workflow: its business key. */
export const subscriptionWorkflowId = (s: { workspaceId: string; number: string }) => `subscription/${s.workspaceId}/${s.number}`;

/** The processor's idempotency key of a renewal's charge attempt: a retried activity charges once. */
export const renewalChargeKey = (subscriptionId: string, period: number, attempt: number) => `subscription/${subscriptionId}/period/${period}/attempt/${attempt}`;

const scopeOf = (s: Subscription): Scope => ({ workspaceId: s.workspaceId, livemode: s.livemode });
const ms = (date: Date | null) => (date ? date.getTime() : null);

/** Locks the subscription's row for the transaction: its changes and its renewals are serialised. */
export async function lock(tx: Tx, subscriptionId: string): Promise<Subscription> {
  await tx.$queryRaw`SELECT id FROM "Subscription" WHERE id = ${subscriptionId}::uuid FOR UPDATE`;
  return tx.subscription.findUniqueOrThrow({ where: { id: subscriptionId } });
}

/** The initial order (the subscription's number is its number). */
const initialOrder = (tx: Tx, s: Subscription) => tx.order.findFirstOrThrow({ where: { subscriptionId: s.id, number: s.number }, select: { id: true } });

/** subscription_updated (or subscription_cancelled) with the subscription as it now is, its items and buyer. */
export async function recordSubscriptionEvent(tx: Tx, s: Subscription, type: 'subscription_updated' | 'subscription_cancelled') {
  const { order, items } = await loadOrderForEvent(tx, (await initialOrder(tx, s)).id);
  await recordEvent(tx, scopeOf(s), type, subscriptionEventData(s, items.map(orderItemResource), order.user ? userResource(order.user) : null));
}

/** Writes the change; a status change (or a cancel scheduled or undone) records its event. */
export async function change(tx: Tx, s: Subscription, data: Prisma.SubscriptionUpdateInput): Promise<Subscription> {
  const updated = await tx.subscription.update({ where: { id: s.id }, data });
  if (updated.status !== s.status || updated.cancelAtPeriodEnd !== s.cancelAtPeriodEnd) {
    await recordSubscriptionEvent(tx, updated, updated.status === 'cancelled' ? 'subscription_cancelled' : 'subscription_updated');
  }
  return updated;
}

export async function lifecycleState(db: Tx | PrismaClient, subscriptionId: string): Promise<LifecycleState> {
  const s = await db.subscription.findUniqueOrThrow({ where: { id: subscriptionId } });
  const latest = await db.payment.findFirst({ where: { subscriptionId, subscriptionPeriod: { not: null } }, orderBy: { subscriptionPeriod: 'desc' }, include: { _count: { select: { charges: true } } } });
  const dunning =
    latest && latest.status === 'PENDING' && latest.subscriptionPeriod !== null
      ? { paymentId: latest.id, dueMs: latest.createdAt.getTime(), attempts: latest._count.charges, nextRetryMs: ms(s.nextRetryAt) }
      : null;
  // The renewal's due time is its period's start (the payment is created at it, on the subscription's clock).
  if (dunning && s.currentPeriodStart) dunning.dueMs = s.currentPeriodStart.getTime();
  return {
    status: s.status,
    period: latest?.subscriptionPeriod ?? 1,
    periodEndMs: ms(s.currentPeriodEnd),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    dunning,
    clockOffsetMs: Number(s.clockOffsetMs),
  };
}

/**
 * The workflow's first run. A subscription begins its first period in its first payment's
 * transaction (./first-period.ts); one paid before that was so gets it here, from its start.
 */
export async function beginPeriods(prisma: PrismaClient, subscriptionId: string): Promise<LifecycleState> {
  await prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    if (s.currentPeriodEnd || !s.currentPeriodStart || (s.status !== 'active' && s.status !== 'trialing')) return;
    await beginFirstPeriod(tx, s, (await initialOrder(tx, s)).id, s.currentPeriodStart);
  });
  return lifecycleState(prisma, subscriptionId);
}

/** A line the subscription's periods are priced from. */
export interface PlanItem {
  offerId: string;
  productId: string;
  unitPrice: number;
  quantity: number;
}

/** Subscription.items: the last plan change's lines, with its id (a retried activity applies it once). */
export interface StoredItems {
  changeId: string;
  items: PlanItem[];
}

export const storedItems = (s: Pick<Subscription, 'items'>) => s.items as unknown as StoredItems | null;

/** Where a subscription is taxed: the initial order's billing address (or the buyer's, for one created by the API). */
export interface TaxAddress {
  country: string | null;
  billingState: string | null;
  billingPostalCode: string | null;
  taxInclusive: boolean;
  /** The business buyer's VAT number (reverse charge), as the initial order kept it. */
  taxId: string | null;
  /** The workspace's taxRegistrations now: a registration made since applies from the next period. */
  taxRegistrations: string;
}

/** A discount's terms as a subscription's periods apply it (the Discount row's). */
type DiscountTerms = Pick<Discount, 'duration' | 'durationInMonths' | 'amount' | 'amountType' | 'includedOfferIds' | 'excludedOfferIds'>;

/**
 * What lines cost at `at`: unitPrice × quantity each, less its share of `discount` (as at
 * checkout: discountShares), taxed by calculateTax at the address on what is left (no country, no
 * tax). The one pricing of renewals, upcoming payments, plan changes and created subscriptions'
 * first periods.
 */
export async function priceLines(db: Tx | PrismaClient, lines: readonly PlanItem[], address: TaxAddress, currency: string, at: Date, discount: DiscountTerms | null = null) {
  const shares = discount
    ? discountShares({ ...discount, amount: formatAmount(discount.amount) }, lines.map((item) => ({ offerId: item.offerId, subtotal: item.unitPrice * item.quantity })))
    : lines.map(() => 0);
  const products = await db.product.findMany({ where: { id: { in: lines.map((item) => item.productId) } }, select: { id: true, type: true } });
  const typeOf = new Map(products.map((p) => [p.id, p.type]));
  let subtotal = 0;
  let tax = 0;
  let amount = 0;
  const lineTaxes: number[] = [];
  const lineReasons: (TaxReason | null)[] = [];
  const taxes: { type: string; rate: number; jurisdiction: string; amount: number }[] = [];
  for (const [index, item] of lines.entries()) {
    const line = item.unitPrice * item.quantity - shares[index]!;
    const taxed = address.country
      ? calculateTax({
          productType: typeOf.get(item.productId)!, amount: line, currency, priceIncludesTax: address.taxInclusive, at,
          location: { country: address.country, state: address.billingState, postalCode: address.billingPostalCode },
          taxId: address.taxId, registrations: taxRegistrations(address.taxRegistrations),
        })
      : null;
    subtotal += item.unitPrice * item.quantity;
    tax += taxed?.taxAmount ?? 0;
    lineTaxes.push(taxed?.taxAmount ?? 0);
    lineReasons.push(taxed?.taxReason ?? null);
    for (const component of taxed?.components ?? []) {
      const same = taxes.find((t) => t.type === component.type && t.rate === component.rate && t.jurisdiction === component.jurisdiction);
      if (same) same.amount += component.amount;
      else taxes.push({ ...component });
    }
    amount += taxed?.totalAmount ?? line;
  }
  const discounted = shares.reduce((sum, share) => sum + share, 0);
  return { subtotal, discount: discounted, tax, amount, taxInclusive: address.taxInclusive, taxes, lineTaxes, taxReason: orderTaxReason(lineReasons) };
}

/** The subscription's items (the last plan change's, else the initial order's lines), its tax address and its checkout's discount. */
export async function planOf(db: Tx | PrismaClient, s: Subscription): Promise<{ items: PlanItem[]; address: TaxAddress; discount: DiscountTerms | null }> {
  const order = await db.order.findFirstOrThrow({
    where: { subscriptionId: s.id, number: s.number },
    select: {
      country: true, billingState: true, billingPostalCode: true, taxInclusive: true, taxId: true, discountId: true, workspaceId: true,
      items: { orderBy: { position: 'asc' }, select: { offerId: true, productId: true, unitPrice: true, quantity: true } },
    },
  });
  const { items, discountId, workspaceId, ...taxed } = order;
  const { taxRegistrations } = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { taxRegistrations: true } });
  // Archived or edited since, the discount still applies as it now is (archiving stops new uses only).
  const discount = discountId ? await db.discount.findUnique({ where: { id: discountId } }) : null;
  return { items: storedItems(s)?.items ?? items, address: { ...taxed, taxRegistrations }, discount };
}

/**
 * The checkout's discount if it applies to the period starting at `periodStartMs` (its duration,
 * docs/decisions.md "Discount durations"): forever, every period; once and repeating, the periods
 * starting before discountEndsAt (the first paid period's end, which end-trial moves with the
 * period; the subscription's start plus durationInMonths).
 */
export const discountOfPeriod = (s: Pick<Subscription, 'discountEndsAt'>, discount: DiscountTerms | null, periodStartMs: number) =>
  discount && (discount.duration === 'forever' || (s.discountEndsAt !== null && periodStartMs < s.discountEndsAt.getTime())) ? discount : null;

/** The subscription's current items (GET details' planItems). */
export const subscriptionPlanItems = async (db: PrismaClient, s: Subscription) => (await planOf(db, s)).items;

/**
 * What the period starting at `at` costs: the subscription's items priced by priceLines at `at`,
 * with the checkout's discount when its duration covers the period, less the credit a downgrade
 * left (up to the amount; docs/decisions.md "Create and plan changes"). The renewal charges this;
 * the upcoming payment shows it.
 */
export async function priceOfPeriod(db: Tx | PrismaClient, s: Subscription, at: Date) {
  const { items, address, discount } = await planOf(db, s);
  const price = await priceLines(db, items, address, s.currency, at, discountOfPeriod(s, discount, at.getTime()));
  const credit = Math.min(s.credit, price.amount);
  // A credit can cover the tax too: the tax booked is at most what is charged.
  return { ...price, amount: price.amount - credit, tax: Math.min(price.tax, price.amount - credit), credit };
}

/**
 * Renewal `period` at `dueMs` (the end of the period before): the new period starts and its
 * payment (`{orderNumber}-{n}`, PENDING) is created. Idempotent: a retried activity finds the
 * period's payment and returns it.
 */
export async function startRenewal(prisma: PrismaClient, subscriptionId: string, period: number, dueMs: number): Promise<{ paymentId: string } | null> {
  return prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    const existing = await tx.payment.findUnique({ where: { subscriptionId_subscriptionPeriod: { subscriptionId, subscriptionPeriod: period } }, select: { id: true } });
    if (existing) return { paymentId: existing.id };
    // Cancelled, paused, or a cancel that won the race: nothing is charged. (Unpaid renews only
    // once a new payment method restarted billing: the workflow does not ask before.)
    if (!['active', 'trialing', 'past_due', 'unpaid'].includes(s.status) || s.cancelAtPeriodEnd) return null;
    const order = await initialOrder(tx, s);
    const { amount, tax, credit } = await priceOfPeriod(tx, s, new Date(dueMs));
    const last = await tx.payment.findFirstOrThrow({ where: { orderId: order.id }, orderBy: { sequence: 'desc' }, select: { sequence: true } });
    const sequence = last.sequence + 1;
    const { number } = await tx.order.findUniqueOrThrow({ where: { id: order.id }, select: { number: true } });
    const payment = await tx.payment.create({
      data: {
        workspaceId: s.workspaceId, livemode: s.livemode, orderId: order.id, sequence, number: paymentNumber(number, sequence), amount, tax,
        ...paymentFee(amount - tax, FEE_RULE), currency: s.currency, processor: s.processor, methodType: s.methodType, userId: s.userId,
        subscriptionId, subscriptionPeriod: period, createdAt: new Date(dueMs),
      },
    });
    await tx.order.update({ where: { id: order.id }, data: { lastPaymentId: payment.id } });
    await tx.subscription.update({
      where: { id: s.id },
      data: { amount: amount + credit, credit: { decrement: credit }, currentPeriodStart: new Date(dueMs), currentPeriodEnd: new Date(periodEnd(s, dueMs)) },
    });
    return { paymentId: payment.id };
  });
}

export type AttemptOutcome = { status: 'succeeded'; chargeId: string | null } | { status: 'failed'; chargeId: string | null; failureCode: string; failureMessage: string } | { status: 'pending'; chargeId: string };

/**
 * The outcome of a renewal's charge attempt, booked: PAID (payment_success; a past_due
 * subscription is active again), or a failure: retried on the dunning schedule (the payment stays
 * PENDING, payment_failed, the subscription past_due) or, after the last retry or on a hard
 * decline, UNPAID and the subscription unpaid. Idempotent per attempt (the charge row's status).
 */
export async function bookAttempt(prisma: PrismaClient, paymentId: string, attempt: number, outcome: AttemptOutcome, clockMs: number, dueMs: number): Promise<void> {
  if (outcome.status === 'pending') return;
  await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Payment" WHERE id = ${paymentId}::uuid FOR UPDATE`;
    const payment = await tx.payment.findUniqueOrThrow({ where: { id: paymentId } });
    const s = await lock(tx, payment.subscriptionId!);
    const before = await tx.charge.findUnique({ where: { paymentId_attempt: { paymentId, attempt } } });
    const processor = payment.processor!;
    const base = { processor, amount: payment.amount, currency: payment.currency, processorChargeId: outcome.chargeId };
    if (outcome.status === 'succeeded') {
      // A period of 0 (free items) is paid without a charge.
      if (outcome.chargeId) await recordCharge(tx, paymentId, attempt, { ...base, status: 'succeeded', failureCode: null, failureMessage: null });
      await markPaymentPaid(tx, paymentId, { processorChargeId: outcome.chargeId, paidAt: new Date(clockMs) });
      // Paid: a trial's first renewal, a recovered past_due or unpaid subscription are active.
      if (s.status === 'past_due' || s.status === 'unpaid' || s.status === 'trialing') await change(tx, s, { status: 'active', nextRetryAt: null });
      return;
    }
    const failure = { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage, processorChargeId: outcome.chargeId };
    await recordCharge(tx, paymentId, attempt, { ...base, status: 'failed', failureCode: outcome.failureCode, failureMessage: outcome.failureMessage });
    if (before?.status === 'failed') return;
    const next = HARD_DECLINES.has(outcome.failureCode) ? null : retryAt(dueMs, attempt + 1);
    if (next === null) {
      await markPaymentUnpaid(tx, paymentId, failure);
      if (s.status !== 'cancelled') await change(tx, s, { status: 'unpaid', nextRetryAt: null });
      return;
    }
    await recordRetryingPaymentFailure(tx, paymentId, failure);
    await change(tx, s, { status: 'past_due', nextRetryAt: new Date(next) });
  });
}

/** The period ended with a cancel scheduled: cancelled (subscription_cancelled). */
export async function endAtPeriodEnd(prisma: PrismaClient, subscriptionId: string, clockMs: number): Promise<LifecycleState> {
  await prisma.$transaction(async (tx) => {
    const s = await lock(tx, subscriptionId);
    if (s.status === 'cancelled') return;
    const at = new Date(clockMs);
    await change(tx, s, { status: 'cancelled', cancelledAt: s.cancelledAt ?? at, endedAt: at, nextRetryAt: null, pausedAt: null });
  });
  return lifecycleState(prisma, subscriptionId);
}

/** The channel an advance waits on (requests.ts): the subscription's id, once its clock is recorded. */
export const SUBSCRIPTION_CLOCK_CHANNEL = 'subscription_clock';

/**
 * The workflow ran everything due by its advanced clock: the API's advance answers from here. One
 * statement: the clock moved and, at its commit, a notice to the advance waiting for it.
 */
export async function recordClock(prisma: PrismaClient, subscriptionId: string, clockOffsetMs: number): Promise<void> {
  const offset = BigInt(clockOffsetMs);
  await prisma.$executeRaw`
    WITH moved AS (
      UPDATE "Subscription" SET "clockOffsetMs" = ${offset}, "updatedAt" = ${new Date()}
      WHERE id = ${subscriptionId}::uuid AND "clockOffsetMs" < ${offset} RETURNING id
    )
    SELECT pg_notify(${SUBSCRIPTION_CLOCK_CHANNEL}, id::text) FROM moved`;
}
