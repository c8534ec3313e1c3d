// A subscription's first period, begun in the transaction that makes its first payment PAID
// (src/payments/transitions.ts, through src/subscriptions/first-payment.ts): the status, the period, the billing anchor, the trial's end and
// the discount's bound in one write, so that no reader ever sees it active without its period.
import type { Prisma, Subscription } from '../generated/prisma/client.js';
import { addInterval, type Interval } from './periods.js';

type Tx = Prisma.TransactionClient;

/** The end of the period of `s` that starts at `startMs`, its months keeping the anchor's day. */
export const periodEnd = (s: Pick<Subscription, 'recurringInterval' | 'recurringIntervalCount' | 'billingAnchor'>, startMs: number) =>
  addInterval(startMs, s.recurringInterval as Interval, s.recurringIntervalCount, s.billingAnchor?.getUTCDate());

/** The end of the first paid period when it starts at `startMs` (a trial's end, or the first payment). */
export const firstPaidPeriodEnd = (s: Pick<Subscription, 'recurringInterval' | 'recurringIntervalCount'>, startMs: number) => periodEnd({ ...s, billingAnchor: new Date(startMs) }, startMs);

/**
 * What the first period is when it starts at `startMs`, with the initial order's discount terms:
 * the trial (its end is the first charge and the billing anchor) or the first paid period. The
 * discount's bound (docs/decisions.md "Discount durations"): a `once` discount covers the first
 * paid period (the trial's end charges it discounted), `repeating` the periods starting within its
 * months of the start, the trial included.
 */
export function firstPeriod(
  s: Pick<Subscription, 'recurringInterval' | 'recurringIntervalCount' | 'trialInterval' | 'trialIntervalCount'>,
  startMs: number,
  discount: { duration: string; durationInMonths: number | null } | null,
) {
  const trialEndMs = s.trialInterval ? addInterval(startMs, s.trialInterval as Interval, s.trialIntervalCount ?? 1) : null;
  const anchorMs = trialEndMs ?? startMs;
  const endMs = trialEndMs ?? firstPaidPeriodEnd(s, startMs);
  const discountEndMs =
    discount?.duration === 'once' ? firstPaidPeriodEnd(s, anchorMs) : discount?.duration === 'repeating' ? addInterval(startMs, 'month', discount.durationInMonths!) : null;
  return {
    status: trialEndMs === null ? ('active' as const) : ('trialing' as const),
    currentPeriodStart: new Date(startMs),
    currentPeriodEnd: new Date(endMs),
    billingAnchor: new Date(anchorMs),
    trialEndsAt: trialEndMs === null ? null : new Date(trialEndMs),
    discountEndsAt: discountEndMs === null ? null : new Date(discountEndMs),
  };
}

/** The subscription starts now, with its first period, in the caller's transaction. */
export async function beginFirstPeriod(tx: Tx, s: Subscription, orderId: string, now: Date): Promise<Subscription> {
  const [discount] = await tx.$queryRaw<{ duration: string; durationInMonths: number | null }[]>`
    SELECT d.duration::text AS duration, d."durationInMonths" FROM "Order" o JOIN "Discount" d ON d.id = o."discountId" WHERE o.id = ${orderId}::uuid`;
  return tx.subscription.update({ where: { id: s.id }, data: firstPeriod(s, now.getTime(), discount ?? null) });
}
